/**
 * Worked examples for the 2022 eic benchmark's data sets (apps/docs/src/reference/experiments.md#t7-c-synthetic-data-sets); expected values by hand.
 */

import { bitmapStats } from "@scanlab/bitmap-prefetch";
import { describe, expect, it } from "vitest";
import { BITMAP_2022_SELECTIVITIES, bitmap2022Query, bitmap2022Table } from "./bitmap-data-sets-2022.js";

describe("sequential layout on a 1500-block table: value v on blocks floor(1.5 v) .. floor(1.5 (v + 1)) - 1", () => {
  const t = bitmap2022Table({ layout: "sequential", seed: 0, tableBlocks: 1500 });

  it("values alternate 1 and 2 pages: 0 | 1 1 | 2 | 3 3 | ... | 999 999 at the end", () => {
    // floor(1.5 v): 0, 1, 3, 4, 6, ... so v = 0 has block 0, v = 1 blocks 1-2, v = 2 block 3, v = 3 blocks 4-5.
    expect([...t.pageValues.slice(0, 6)]).toEqual([0, 1, 1, 2, 3, 3]);
    // v = 999: floor(1498.5) = 1498 .. floor(1500) - 1 = 1499.
    expect([...t.pageValues.slice(1497)]).toEqual([998, 999, 999]);
  });

  // A query of width w = 1000 f values starting at lo covers floor(1.5 lo) .. floor(1.5 lo + 1.5 w) - 1:
  // exactly 1.5 w pages (1.5 w is an integer for every Vondra's 2022 benchmark (pgsql-hackers, “Re: effective_io_concurrency and NVMe devices”) width), in one run, 27 tuples each.
  it("each selectivity is one run of 1.5 x 1000 f pages: 15, 75, 150, 375, 750", () => {
    for (const [i, f] of BITMAP_2022_SELECTIVITIES.entries()) {
      for (let seed = 0; seed < 20; seed++) {
        const q = bitmap2022Query(t, { selectivity: f, seed: seed * 7 + i });
        const width = [10, 50, 100, 250, 500][i] as number;
        expect(q.highValue - q.lowValue + 1).toBe(width);
        expect(q.lowValue).toBeGreaterThanOrEqual(0);
        expect(q.highValue).toBeLessThanOrEqual(999);
        const s = bitmapStats(q.bitmap);
        expect(s.runs).toBe(1);
        expect(s.pages).toBe(1.5 * width);
        expect(q.bitmap.run(0)).toEqual({
          startBlock: Math.floor(1.5 * q.lowValue),
          pages: 1.5 * width,
          lossy: false,
          tuples: 27,
        });
      }
    }
  });
});

describe("random layouts: the bitmap is exactly the pages whose value is in the range", () => {
  it("random, random-8, random-32 on a table whose size is not a multiple of the group", () => {
    for (const [layout, group] of [
      ["random", 1],
      ["random-8", 8],
      ["random-32", 32],
    ] as const) {
      const t = bitmap2022Table({ layout, seed: 5, tableBlocks: 4001 });
      // Groups are aligned: page p shares its value with page group x floor(p / group); the last group
      // (4001 = 125 x 32 + 1 = 500 x 8 + 1) is a single page.
      for (let p = 0; p < 4001; p++)
        expect(t.pageValues[p]).toBe(t.pageValues[group * Math.floor(p / group)]);
      for (const f of BITMAP_2022_SELECTIVITIES) {
        const q = bitmap2022Query(t, { selectivity: f, seed: 3 });
        const expected: number[] = [];
        for (let p = 0; p < 4001; p++) {
          const v = t.pageValues[p] as number;
          if (v >= q.lowValue && v <= q.highValue) expected.push(p);
        }
        expect([...q.bitmap.toPages()]).toEqual(expected);
        for (const r of q.bitmap.runs()) expect(r.tuples).toBe(27);
      }
    }
  });
});
