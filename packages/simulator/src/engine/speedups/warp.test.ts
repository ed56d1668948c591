import { describe, expect, it } from "vitest";
import { type QueryIn, testScenario } from "../../../test/scenario-builder.js";
import { simulate } from "../../index.js";
import type { SimulationResult } from "../loop/simulate.js";

/**
 * The warp cuts the steady middle out of long scans and credits it at the
 * measured rate (warp.ts). Each test runs one scenario twice, exactly and
 * warped, and holds the warped answer to the exact one: durations and device
 * figures within a small tolerance, block counts exact, and the warp must
 * have cut (or, where it must not, must not have).
 *
 * The scenarios are T3 in miniature: several clients scanning a table much
 * larger than the machine's caches, in 64 MB segments so that the cut is
 * made of many whole files.
 */
const SEGMENT = 8192; // 64 MB segments
const TABLE_BLOCKS = 2_000_000; // ~15 GB, far larger than the 1 GB machine's caches

function scenario(query: Partial<QueryIn>, blocks = TABLE_BLOCKS, ram = "1GB") {
  return testScenario({
    machine: {
      cores: 16,
      ram,
      sharedBuffers: "128MB",
      device: "wd-ultrastar-dc-sn640-960gb",
      cpu: {},
    },
    table: { blocks, tuplesPerPage: 226, segmentBlocks: SEGMENT },
    query: { pg: "14", clients: 3, workers: 3, allocator: { kind: "pg14", maxChunkBlocks: 64 }, ...query },
  });
}

function both(s: ReturnType<typeof scenario>): { exact: SimulationResult; warped: SimulationResult } {
  return { exact: simulate(s, { exact: true }), warped: simulate(s) };
}

/** Relative difference. */
const rel = (a: number, b: number) => Math.abs(a - b) / Math.abs(b);

function expectClose(
  exact: SimulationResult,
  warped: SimulationResult,
  tolerance: number,
  blocks = TABLE_BLOCKS,
) {
  expect(exact.warp.cuts).toBe(0);
  expect(warped.warp.cuts).toBeGreaterThan(0);
  expect(warped.warp.skippedS).toBeGreaterThan(0);
  const e = exact.queries[0]!;
  const w = warped.queries[0]!;
  expect(w.runs.length).toBe(e.runs.length);
  expect(rel(w.meanDurationS, e.meanDurationS)).toBeLessThan(tolerance);
  expect(rel(warped.simulatedS, exact.simulatedS)).toBeLessThan(tolerance);
  expect(rel(warped.device.bytes, exact.device.bytes)).toBeLessThan(0.01);
  expect(rel(warped.device.reads, exact.device.reads)).toBeLessThan(0.02);
  expect(Math.abs(warped.device.utilisation - exact.device.utilisation)).toBeLessThan(0.02);
  expect(rel(warped.os.requestedBytes, exact.os.requestedBytes)).toBeLessThan(0.01);
  // Claims (whole chunks, rare when chunks are large) are credited per block of allocator
  // progress; with them the shared line's operations.
  const claims = (q: typeof e) => q.runs.reduce((a, r) => a + r.claims, 0);
  expect(Math.abs(claims(w) - claims(e))).toBeLessThanOrEqual(Math.max(2, 0.02 * claims(e)));
  expect(Math.abs(warped.allocator.ops - exact.allocator.ops)).toBeLessThanOrEqual(
    Math.max(2, 0.02 * exact.allocator.ops),
  );
  // Synchronized scans start where the exact ones do (a restore must not move a location).
  const starts = (q: typeof e) =>
    [...q.runs].sort((a, b) => a.client - b.client || a.run - b.run).map((r) => r.startBlock);
  expect(starts(w)).toEqual(starts(e));
  for (const run of w.runs) {
    // Every block once per run, whatever was cut: the credited blocks complete the table.
    expect(run.finished).toBe(true);
    expect(run.participants.reduce((a, p) => a + p.claims, 0)).toBe(run.claims);
    expect(run.blocks).toBe(blocks);
    expect(run.participants.reduce((a, p) => a + p.blocks, 0)).toBe(blocks);
    expect(run.participants.every((p) => p.blocks > 0)).toBe(true);
  }
  // Every run starts after the previous run of its client ended, in reported time too.
  for (const r of w.runs) {
    const next = w.runs.find((x) => x.client === r.client && x.run === r.run + 1);
    if (next !== undefined) expect(next.startS).toBeGreaterThanOrEqual(r.startS + r.durationS - 1e-9);
  }
}

// Each case simulates a scan of ~15 GB twice (warped and exact, every block): up to ten seconds alone and
// ten times that on a loaded 2-core machine. The timeout only catches a hang.
const BOTH_WAYS_MS = 600_000;

describe("warp", { timeout: BOTH_WAYS_MS }, () => {
  it("chunked parallel scans started together: the cut is credited at the rate measured before it", () => {
    const { exact, warped } = both(scenario({ runs: 1 }));
    expectClose(exact, warped, 0.005);
    // Most of each scan was cut: the warp is what makes long scans cheap.
    expect(warped.warp.skippedBlocks).toBeGreaterThan(0.5 * 3 * TABLE_BLOCKS);
    expect(warped.events).toBeLessThan(exact.events / 2);
  });

  // The second runs find what the first ones left in the page cache: nothing of the table's
  // start (1 GB of RAM), its last 11 GB (12 GB), all of it (24 GB). A restore must put back
  // the cut stretch as warm as the real cache would hold it.
  for (const ram of ["1GB", "12GB", "24GB"]) {
    it(`synchronized scans over two runs each, ${ram} of RAM: the first cut is put back before the second runs start`, () => {
      const { exact, warped } = both(scenario({ runs: 2, synchronizeSeqscans: true }, TABLE_BLOCKS, ram));
      expectClose(exact, warped, 0.005);
      expect(rel(warped.os.hitRatio + 1, exact.os.hitRatio + 1)).toBeLessThan(0.01);
      expect(warped.warp.restores).toBeGreaterThan(0);
    });
  }

  it("large PG14 chunks: cuts inside the ramp-down, none leaving the table too short to ramp down", () => {
    const q = {
      runs: 2,
      synchronizeSeqscans: true,
      allocator: { kind: "pg14", nchunks: 128, maxChunkBlocks: null },
    };
    // 128 chunks of 2 M blocks: 16384-block chunks, ramping down from 1,048,576 blocks before
    // the end, half the table. Cuts cross halvings one at a time; the claims (within 2%, in
    // expectClose) show the ramp-down still happens after each: a table cut below 64 chunks
    // would wrap PG14's unsigned threshold and never ramp down (a sixth of the claims).
    const { exact, warped } = both(scenario(q as Partial<QueryIn>, TABLE_BLOCKS, "12GB"));
    expectClose(exact, warped, 0.005);
    expect(rel(warped.os.hitRatio + 1, exact.os.hitRatio + 1)).toBeLessThan(0.01);
    // Several cuts in the first runs (the main stretch, then inside ramp-down stages), all put back together.
    expect(warped.warp.restores).toBeGreaterThanOrEqual(2);
    expect(warped.warp.cuts).toBeGreaterThan(warped.warp.restores);
  });

  it("serial scans (no workers), synchronized, two runs each", () => {
    const { exact, warped } = both(scenario({ runs: 2, workers: 0, synchronizeSeqscans: true }));
    expectClose(exact, warped, 0.005);
    expect(warped.warp.restores).toBeGreaterThan(0);
  });

  it("one block at a time (PG13's atomic counter, the striding gang)", () => {
    const { exact, warped } = both(scenario({ pg: "13", allocator: { kind: "pg11" }, runs: 1 }, 600_000));
    expectClose(exact, warped, 0.005, 600_000);
  });

  it("never cuts what it cannot renumber (PG17 read streams) or when told to be exact", () => {
    const s = scenario({ pg: "17", allocator: { kind: "pg14" }, runs: 1 }, 600_000);
    expect(simulate(s).warp.cuts).toBe(0);
    expect(simulate(scenario({ runs: 1 }, 600_000), { exact: true }).warp).toEqual({
      cuts: 0,
      restores: 0,
      skippedBlocks: 0,
      skippedS: 0,
    });
  });

  describe("a serial bitmap heap scan (PG13-17 prefetch): its bitmap and both iterators are renumbered", () => {
    const bitmapScenario = (
      bitmap: { dataset: "sequential" | "random-8"; selectivity: number },
      eic: number,
      query: Partial<QueryIn> = {},
    ) =>
      testScenario({
        machine: { cores: 4, ram: "8GB", sharedBuffers: "128MB", device: "intel-ssd-320-120gb", cpu: {} },
        table: { blocks: 600_000, tuplesPerPage: 27, segmentBlocks: SEGMENT },
        query: {
          kind: "bitmap",
          pg: "13",
          effectiveIoConcurrency: eic,
          bitmap: { ...bitmap, seed: 4 },
          ...query,
        },
      });

    // eic 0 (kernel readahead), 1 (the regression of the 2022 eic benchmark: 8 kB advice per page), 32 (deep queue).
    for (const eic of [0, 1, 32]) {
      it(`a contiguous bitmap, eic ${eic}: the pages of the stretch are credited at the measured rate`, () => {
        const { exact, warped } = both(bitmapScenario({ dataset: "sequential", selectivity: 0.5 }, eic));
        expectClose(exact, warped, 0.005, exact.queries[0]!.runs[0]!.blocks);
        expect(warped.warp.skippedBlocks).toBeGreaterThan(0.3 * exact.queries[0]!.runs[0]!.blocks);
      });
    }

    it("a sparse bitmap: each run is credited with its pages in the stretch, not its blocks", () => {
      const { exact, warped } = both(bitmapScenario({ dataset: "random-8", selectivity: 0.5 }, 16));
      expectClose(exact, warped, 0.005, exact.queries[0]!.runs[0]!.blocks);
      expect(warped.warp.skippedBlocks).toBeLessThan(0.5 * 600_000);
    });

    it("two runs: the first run's cut comes back before the second starts", () => {
      const { exact, warped } = both(
        bitmapScenario({ dataset: "sequential", selectivity: 0.5 }, 1, { runs: 2 }),
      );
      expectClose(exact, warped, 0.005, exact.queries[0]!.runs[0]!.blocks);
      expect(warped.warp.restores).toBeGreaterThan(0);
    });

    it("never cuts a parallel bitmap scan (shared iterators) or two scans at once", () => {
      const s = (q: Partial<QueryIn>) => bitmapScenario({ dataset: "sequential", selectivity: 0.5 }, 8, q);
      expect(simulate(s({ workers: 2 })).warp.cuts).toBe(0);
      expect(simulate(s({ clients: 2 })).warp.cuts).toBe(0);
    });
  });

  it("is deterministic, and the device series covers the skipped time", () => {
    const s = scenario({ runs: 1 });
    const a = simulate(s);
    const b = simulate(s);
    expect(a).toEqual(b);
    const pts = a.series.deviceMibPerS;
    const width = pts[1]!.tS - pts[0]!.tS;
    const mib = pts.reduce((x, p) => x + p.perS * width, 0);
    expect(rel(mib * 1048576, a.device.bytes)).toBeLessThan(1e-6);
    // No hole where the cut was: every bucket but the last carries the device's steady rate.
    const inner = pts.slice(1, -1).map((p) => p.perS);
    expect(Math.min(...inner)).toBeGreaterThan(0.5 * Math.max(...inner));
  });
});
