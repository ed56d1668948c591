import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bitmapStats } from "./bitmap-stats.js";
import { HeapBitmap, HeapBitmapBuilder } from "./heap-bitmap.js";

describe("bitmapStats: fraction, run lengths and sequentiality of a bitmap (the two measures of Vondra's 2022 benchmark)", () => {
  it("pages 1, 2, 3 and 10 of 100: two runs, 2 of 3 steps sequential, a gap of 6 blocks", () => {
    const s = bitmapStats(HeapBitmap.fromPages(100, [1, 2, 3, 10]));
    expect(s.pages).toBe(4);
    expect(s.fraction).toBe(0.04);
    expect(s.runs).toBe(2);
    expect(s.meanRunPages).toBe(2);
    expect(s.medianRunPages).toBe(1);
    // (3 x 3 + 1 x 1) / 4: the run an average page sits in.
    expect(s.pageWeightedMeanRunPages).toBe(2.5);
    expect(s.maxRunPages).toBe(3);
    expect(s.sequentiality).toBeCloseTo(2 / 3, 12);
    expect(s.meanGapBlocks).toBe(6);
    expect(s.runLengthHistogram).toEqual([
      { minPages: 1, maxPages: 1, runs: 1, pages: 1 },
      { minPages: 2, maxPages: 3, runs: 1, pages: 3 },
    ]);
  });

  it("ignores exact/lossy flags when finding sequential runs, but counts them", () => {
    const bitmap = new HeapBitmapBuilder(64).addRun(0, 4).addRun(4, 4, { lossy: true, tuples: 27 }).build();
    const s = bitmapStats(bitmap);
    expect(bitmap.runCount).toBe(2);
    expect(s.runs).toBe(1);
    expect(s.sequentiality).toBe(1);
    expect(s.lossyPages).toBe(4);
    expect(s.exactPages).toBe(4);
  });

  it("no two adjacent pages: sequentiality 0; one run: 1; empty bitmap: zeros", () => {
    expect(bitmapStats(HeapBitmap.fromPages(100, [0, 2, 4, 6])).sequentiality).toBe(0);
    expect(bitmapStats(HeapBitmap.fromPages(100, [7, 8, 9])).sequentiality).toBe(1);
    const empty = bitmapStats(HeapBitmap.fromPages(100, []));
    expect(empty.pages).toBe(0);
    expect(empty.runs).toBe(0);
    expect(empty.runLengthHistogram).toEqual([]);
  });

  it("property: the histogram accounts for every run and page; sequentiality = (pages - runs) / (pages - 1)", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 3000 }), { minLength: 2, maxLength: 300 }),
        (raw) => {
          const pages = [...raw].sort((a, b) => a - b);
          const s = bitmapStats(HeapBitmap.fromPages(3001, pages));
          let breaks = 0;
          for (let i = 1; i < pages.length; i++) if (pages[i] !== (pages[i - 1] as number) + 1) breaks++;
          expect(s.runs).toBe(breaks + 1);
          expect(s.runLengthHistogram.reduce((a, b) => a + b.runs, 0)).toBe(s.runs);
          expect(s.runLengthHistogram.reduce((a, b) => a + b.pages, 0)).toBe(s.pages);
          expect(s.sequentiality).toBeCloseTo((pages.length - s.runs) / (pages.length - 1), 12);
        },
      ),
    );
  });
});
