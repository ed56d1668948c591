import { bitmapStats, forEachSequentialRun } from "@scanlab/bitmap-prefetch";
import { describe, expect, it } from "vitest";
import {
  BITMAP_2022_LAYOUTS,
  BITMAP_2022_SELECTIVITIES,
  bitmap2022Queries,
  bitmap2022Query,
  bitmap2022Table,
} from "./bitmap-data-sets-2022.js";
import { WorkloadError } from "./errors.js";

const N = 131072;

/** Binomial standard deviation of a matched fraction p over `trials` independent draws. */
const sigma = (p: number, trials: number): number => Math.sqrt((p * (1 - p)) / trials);

describe("the 2022 eic benchmark's table t (a int, padding text), 27 rows per page, one value of a per page", () => {
  it("random-8 and random-32: every aligned group of 8 / 32 pages shares one value", () => {
    for (const [layout, group] of [
      ["random-8", 8],
      ["random-32", 32],
    ] as const) {
      const t = bitmap2022Table({ layout, seed: 7, tableBlocks: N });
      let distinctNeighbours = 0;
      let splitGroups = 0;
      for (let p = 1; p < N; p++) {
        const changed = t.pageValues[p] !== t.pageValues[p - 1];
        if (p % group !== 0 && changed) splitGroups++;
        else if (p % group === 0 && changed) distinctNeighbours++;
      }
      expect(splitGroups).toBe(0);
      // Neighbouring groups draw independently: equal with probability 1/1000.
      expect(distinctNeighbours / (N / group - 1)).toBeGreaterThan(0.99);
    }
  });

  it("random: values are drawn per page, uniform over 0..999", () => {
    const t = bitmap2022Table({ layout: "random", seed: 3, tableBlocks: N });
    let equalNeighbours = 0;
    const counts = new Array(1000).fill(0);
    for (let p = 0; p < N; p++) {
      counts[t.pageValues[p] as number]++;
      if (p > 0 && t.pageValues[p] === t.pageValues[p - 1]) equalNeighbours++;
    }
    expect(equalNeighbours).toBeLessThan(N / 1000 + 5 * Math.sqrt(N / 1000));
    expect(Math.min(...counts)).toBeGreaterThan(0);
    expect(Math.max(...counts)).toBeLessThan(2 * (N / 1000));
  });

  it("sequential: exactly 1000 runs with values 0, 1, 2, ... in order", () => {
    const t = bitmap2022Table({ layout: "sequential", seed: 0, tableBlocks: N });
    let runs = 1;
    let badSteps = 0;
    for (let p = 1; p < N; p++) {
      const a = t.pageValues[p - 1] as number;
      const b = t.pageValues[p] as number;
      if (b !== a && b !== a + 1) badSteps++;
      if (b !== a) runs++;
    }
    expect(badSteps).toBe(0);
    expect(runs).toBe(1000);
    expect(t.pageValues[0]).toBe(0);
    expect(t.pageValues[N - 1]).toBe(999);
  });

  it("is deterministic for a seed and different for another", () => {
    for (const layout of BITMAP_2022_LAYOUTS) {
      const a = bitmap2022Table({ layout, seed: 42, tableBlocks: 4096 });
      const b = bitmap2022Table({ layout, seed: 42, tableBlocks: 4096 });
      expect(Buffer.from(a.pageValues.buffer).equals(Buffer.from(b.pageValues.buffer))).toBe(true);
      const q1 = bitmap2022Query(a, { selectivity: 0.1, seed: 9 });
      const q2 = bitmap2022Query(b, { selectivity: 0.1, seed: 9 });
      expect([...q1.bitmap.runWords]).toEqual([...q2.bitmap.runWords]);
      if (layout !== "sequential") {
        const c = bitmap2022Table({ layout, seed: 43, tableBlocks: 4096 });
        expect(Buffer.from(a.pageValues.buffer).equals(Buffer.from(c.pageValues.buffer))).toBe(false);
      }
    }
  });
});

describe("the 2022 eic benchmark's queries: random ranges of a covering 1, 5, 10, 25 and 50 % of the table", () => {
  it("sequential layout: each query is one contiguous region of selectivity x table", () => {
    const t = bitmap2022Table({ layout: "sequential", seed: 0, tableBlocks: N });
    for (const selectivity of BITMAP_2022_SELECTIVITIES) {
      const q = bitmap2022Query(t, { selectivity, seed: 5 });
      const s = bitmapStats(q.bitmap);
      expect(q.highValue - q.lowValue + 1).toBe(selectivity * 1000);
      expect(s.runs).toBe(1);
      // Value v covers floor(v N / 1000) .. floor((v + 1) N / 1000): the region is within one page of f N.
      expect(Math.abs(s.pages - selectivity * N)).toBeLessThanOrEqual(1);
      expect(q.sql).toBe(`SELECT * FROM t WHERE a BETWEEN ${q.lowValue} AND ${q.highValue}`);
    }
  });

  it("random layouts: the matched fraction is the selectivity within 5 binomial sigma; runs are whole groups", () => {
    for (const [layout, group] of [
      ["random", 1],
      ["random-8", 8],
      ["random-32", 32],
    ] as const) {
      const t = bitmap2022Table({ layout, seed: 11, tableBlocks: N });
      for (const q of bitmap2022Queries(t, 2)) {
        const s = bitmapStats(q.bitmap);
        const trials = N / group;
        expect(Math.abs(s.fraction - q.selectivity)).toBeLessThan(5 * sigma(q.selectivity, trials) + 1e-9);
        // A run is a union of whole groups (N is a multiple of 32).
        let partialGroups = 0;
        forEachSequentialRun(q.bitmap, (start, pages) => {
          if (start % group !== 0 || pages % group !== 0) partialGroups++;
        });
        expect(partialGroups).toBe(0);
        // Adjacent groups match independently with probability f, so the mean run is group / (1 - f).
        const expectedMeanRun = group / (1 - q.selectivity);
        expect(s.meanRunPages).toBeGreaterThan(expectedMeanRun * 0.85);
        expect(s.meanRunPages).toBeLessThan(expectedMeanRun * 1.15);
        expect(q.bitmap.pageInfo(q.bitmap.run(0).startBlock)).toEqual({ lossy: false, tuples: 27 });
      }
    }
  });

  it("more sequential layouts have more sequential bitmaps (the 2022 eic benchmark's second rule)", () => {
    const seqs = BITMAP_2022_LAYOUTS.map((layout) => {
      const t = bitmap2022Table({ layout, seed: 1, tableBlocks: N });
      return bitmapStats(bitmap2022Query(t, { selectivity: 0.05, seed: 1 }).bitmap).sequentiality;
    });
    for (let i = 1; i < seqs.length; i++) expect(seqs[i]).toBeGreaterThan(seqs[i - 1] as number);
  });

  it("lossy queries keep 27 tuples per page", () => {
    const t = bitmap2022Table({ layout: "random", seed: 1, tableBlocks: 4096 });
    const q = bitmap2022Query(t, { selectivity: 0.25, seed: 1, lossy: true });
    expect(bitmapStats(q.bitmap).lossyPages).toBe(q.bitmap.pageCount);
    expect(q.bitmap.run(0).tuples).toBe(27);
  });

  it("bad layout, size, selectivity or seed are user errors", () => {
    const bad: Array<() => unknown> = [
      () => bitmap2022Table({ layout: "zigzag" as "random", seed: 1 }),
      () => bitmap2022Table({ layout: "random", seed: 1, tableBlocks: 999 }),
      () => bitmap2022Table({ layout: "random", seed: Number.NaN }),
      () =>
        bitmap2022Query(bitmap2022Table({ layout: "random", seed: 1, tableBlocks: 2000 }), {
          selectivity: 0,
          seed: 1,
        }),
      () =>
        bitmap2022Query(bitmap2022Table({ layout: "random", seed: 1, tableBlocks: 2000 }), {
          selectivity: 1.5,
          seed: 1,
        }),
    ];
    for (const f of bad) {
      expect(f).toThrow(WorkloadError);
      try {
        f();
      } catch (e) {
        expect((e as WorkloadError).code).toBe("WORKLOAD_BAD_DATASET");
      }
    }
  });
});
