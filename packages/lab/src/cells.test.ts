import { describe, expect, it } from "vitest";
import { type Cell, LabError, planLab } from "./index.js";

const base = { quick: true, deviceReadAheadKb: 128, readAheadRefusal: null } as const;

describe("planLab", () => {
  it("fits on warm serial sequential scans of two tuple densities, and on warm bitmap scans of two selectivities", () => {
    const plan = planLab({ ...base, quick: false, pgMajors: [15, 18] });
    for (const pg of [15, 18]) {
      const fit = plan.cells.filter((c) => c.pg === pg && c.role === "fit");
      const seq = fit.filter((c) => c.scan === "seqscan");
      const bitmap = fit.filter((c) => c.scan === "bitmap");
      expect(fit.every((c) => c.cache === "warm" && c.workers === 0)).toBe(true);
      expect(seq).toHaveLength(2);
      const densities = seq.map((c) => plan.tables.find((t) => t.name === c.table)!.tuplesPerPage);
      expect(new Set(densities).size).toBe(2);
      // The middle (10 %) and the highest (50 %) of the five selectivities, on one table.
      expect(bitmap.map((c) => c.selectivity).sort()).toEqual([0.1, 0.5]);
      expect(new Set(bitmap.map((c) => c.table)).size).toBe(1);
      // PG18's at io_method sync: the backend reads into its buffers itself.
      expect(bitmap.every((c) => c.ioMethod === (pg === 18 ? "sync" : null))).toBe(true);
    }
  });

  it("the quick set fits on one bitmap selectivity, and PG18's on a warm io_method sync cell it adds for that", () => {
    const plan = planLab({ ...base, pgMajors: [15, 18] });
    const bitmapFit = (pg: number) =>
      plan.cells.filter((c) => c.pg === pg && c.role === "fit" && c.scan === "bitmap");
    expect(bitmapFit(15).map((c) => c.ioMethod)).toEqual([null]);
    expect(bitmapFit(18).map((c) => c.ioMethod)).toEqual(["sync"]);
    // Every other cell is a prediction.
    expect(plan.cells.filter((c) => c.role === "fit")).toHaveLength(6);
  });

  it("gives every cell a unique id and runs each at least three times", () => {
    const plan = planLab({ ...base, quick: false, pgMajors: [17, 18] });
    expect(new Set(plan.cells.map((c) => c.id)).size).toBe(plan.cells.length);
    expect(plan.runs).toBeGreaterThanOrEqual(3);
  });

  it("covers the mechanisms the lab exists for", () => {
    const plan = planLab({ ...base, quick: false, pgMajors: [17, 18], deviceReadAheadKb: 512 });
    const has = (f: (c: Cell) => boolean) => plan.cells.some(f);
    for (const w of [0, 1, 2, 4])
      expect(has((c) => c.scan === "seqscan" && c.workers === w && c.cache === "cold")).toBe(true);
    expect(has((c) => c.clients === 2 && c.synchronizeSeqscans)).toBe(true);
    expect(has((c) => c.clients === 2 && !c.synchronizeSeqscans)).toBe(true);
    expect(has((c) => c.readAheadKb === 128)).toBe(true);
    for (const eic of [0, 1, 16, 64]) expect(has((c) => c.scan === "bitmap" && c.eic === eic)).toBe(true);
    for (const sel of [0.01, 0.05, 0.1, 0.25, 0.5]) expect(has((c) => c.selectivity === sel)).toBe(true);
    expect(has((c) => c.pg === 18 && c.scan === "bitmap" && c.ioMethod === "sync")).toBe(true);
    for (const limit of [1, 32]) expect(has((c) => c.pg === 18 && c.ioCombineLimit === limit)).toBe(true);
    expect(has((c) => c.pg === 17 && c.ioMethod !== null)).toBe(false);
    expect(plan.tables.filter((t) => t.kind === "bitmap")).toHaveLength(4);
  });

  it("refuses a selection that matches no cell, with what cell ids look like", () => {
    expect(() => planLab({ ...base, pgMajors: [15], only: () => false })).toThrow(
      /no cell is selected: cell ids look like "pg15 seq narrow warm"/,
    );
  });

  // `scanlab lab --pg 15 --quick --cells "seq narrow"` selects six cells on the narrow table (226 tuples a page).
  const seqNarrow = (c: Cell) => c.id.includes("seq narrow");
  const seqNarrowIds = [
    "pg15 seq narrow warm",
    "pg15 seq narrow cold",
    "pg15 seq narrow w2 cold",
    "pg15 seq narrow w2 warm",
    "pg15 seq narrow 2clients sync-on cold",
    "pg15 seq narrow 2clients sync-off cold",
  ];

  it('keeps the fit cells of a selection\'s versions: --cells "seq narrow" still fits on two tuple densities', () => {
    const plan = planLab({ ...base, pgMajors: [15], only: seqNarrow });
    // The selected cells, and PG15's fit cells on bitmap_random (27 tuples a page) in plan order.
    expect(plan.cells.map((c) => c.id)).toEqual([
      "pg15 seq narrow warm",
      "pg15 seq bitmap_random warm",
      ...seqNarrowIds.slice(1),
      "pg15 bitmap bitmap_random sel5% eic16 warm",
    ]);
    expect(plan.cells.filter((c) => c.role === "fit").map((c) => c.id)).toEqual([
      "pg15 seq narrow warm",
      "pg15 seq bitmap_random warm",
      "pg15 bitmap bitmap_random sel5% eic16 warm",
    ]);
    // bitmap_random is made for those fit cells; bitmap_sequential, which no kept cell scans, is not.
    expect(plan.tables.map((t) => [t.name, t.tuplesPerPage])).toEqual([
      ["narrow", 226],
      ["bitmap_random", 27],
    ]);
  });

  it("adds the fit cells only of the versions the selection has a cell of", () => {
    const plan = planLab({ ...base, pgMajors: [15, 18], only: (c) => c.id === "pg18 seq narrow w2 cold" });
    expect(plan.cells.map((c) => c.id)).toEqual([
      "pg18 seq narrow warm",
      "pg18 seq bitmap_random warm",
      "pg18 seq narrow w2 cold",
      "pg18 bitmap bitmap_random sel5% eic16 io-sync warm",
    ]);
  });

  it("without a fit (--no-fit), runs only the selected cells, and makes only the tables they scan", () => {
    const plan = planLab({ ...base, pgMajors: [15], only: seqNarrow, fit: false });
    expect(plan.cells.map((c) => c.id)).toEqual(seqNarrowIds);
    expect(plan.tables.map((t) => t.name)).toEqual(["narrow"]);
  });

  it("keeps the quick set small", () => {
    const quick = planLab({ ...base, pgMajors: [15] });
    const full = planLab({ ...base, quick: false, pgMajors: [15] });
    expect(quick.cells.length).toBeLessThan(20);
    expect(full.cells.length).toBeGreaterThan(3 * quick.cells.length);
    const bytes = (p: typeof quick) => p.tables.reduce((a, t) => a + t.blocks * 8192, 0);
    expect(bytes(quick)).toBeLessThan(bytes(full));
  });

  it("adds read_ahead_kb 128 cells only when the device uses another value", () => {
    expect(planLab({ ...base, pgMajors: [15] }).cells.some((c) => c.readAheadKb !== null)).toBe(false);
    const other = planLab({ ...base, pgMajors: [15], deviceReadAheadKb: 4096 });
    const ra = other.cells.filter((c) => c.readAheadKb === 128);
    expect(ra.length).toBeGreaterThan(0);
    expect(ra.every((c) => c.cache === "cold")).toBe(true);
  });

  it("refuses read_ahead_kb cells with the sentence when the setting cannot be changed", () => {
    const reason =
      "read_ahead_kb cannot be changed (EACCES), so cells at another read_ahead_kb are left out.";
    const plan = planLab({ ...base, pgMajors: [15], deviceReadAheadKb: 4096, readAheadRefusal: reason });
    expect(plan.cells.some((c) => c.readAheadKb !== null)).toBe(false);
    expect(plan.refused.length).toBeGreaterThan(0);
    expect(plan.refused.every((r) => r.reason === reason && r.id.includes("ra128"))).toBe(true);
  });

  it("rejects an unknown version or too few runs with one sentence", () => {
    expect(() => planLab({ ...base, pgMajors: [12] })).toThrow(LabError);
    expect(() => planLab({ ...base, pgMajors: [12] })).toThrow(/PostgreSQL 12 is not one the lab can run/);
    expect(() => planLab({ ...base, pgMajors: [15], runs: 2 })).toThrow(LabError);
  });
});

describe("planComparisons", () => {
  it("pairs cells that differ in exactly one setting, never a fit cell", () => {
    const plan = planLab({ ...base, pgMajors: [17, 18] });
    const byId = new Map(plan.cells.map((c) => [c.id, c]));
    expect(plan.comparisons.length).toBeGreaterThan(0);
    for (const cmp of plan.comparisons) {
      const a = byId.get(cmp.a)!;
      const b = byId.get(cmp.b)!;
      expect(a.role).toBe("predict");
      expect(b.role).toBe("predict");
      const differing = (Object.keys(a) as (keyof Cell)[]).filter((k) => k !== "id" && a[k] !== b[k]);
      expect(differing).toHaveLength(1);
    }
    const kinds = new Set(plan.comparisons.map((c) => c.varied));
    for (const k of ["synchronize_seqscans", "effective_io_concurrency", "pg", "cache", "io_combine_limit"]) {
      expect(kinds.has(k as never)).toBe(true);
    }
  });

  it("pairs numeric settings with their neighbours only", () => {
    const plan = planLab({ ...base, quick: false, pgMajors: [15] });
    const eic = plan.comparisons.filter((c) => c.varied === "effective_io_concurrency");
    const byId = new Map(plan.cells.map((c) => [c.id, c]));
    const steps = new Set(eic.map((c) => `${byId.get(c.a)!.eic}-${byId.get(c.b)!.eic}`));
    expect([...steps].sort()).toEqual(["0-1", "1-16", "16-64"]);
  });
});
