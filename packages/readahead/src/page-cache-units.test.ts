/**
 * Page-cache cases the per-page property test (page-cache.test.ts) does not
 * draw: marker units spanning extents of different readiness (apps/docs/src/reference/os-readahead-policies.md#the-simulation-frame
 * : markers are per unit and shared; in-flight pages count as present),
 * folios, touch folding completed I/O, and the default LRU epoch of 1/64 of
 * the capacity (README, "The contract").
 */
import { describe, expect, it } from "vitest";
import { PageCache } from "./page-cache.js";

describe("marker units across extents", () => {
  it("a unit over two I/Os of different completion is set, reported and cleared as one", () => {
    const cache = new PageCache();
    cache.insert(1, 0, 4, 100, 0); // [0,4) in flight until 100
    cache.insert(1, 4, 4, 200, 0); // [4,8) in flight until 200
    cache.setMarker(1, 2, 6, 0); // a 4-page folio [2,6) straddling the two
    expect([3, 5].map((p) => cache.page(1, p, 50).markerUnit)).toEqual([2, 2]);
    expect(cache.markerUnitPages(1, 2)).toBe(4);
    expect(cache.markerIn(1, 5, 8)).toBe(2); // any page of the unit reports its first page
    // The run from 0 stops at the unit; it shares the first I/O's completion.
    expect(cache.run(1, 0, 10, 50)).toEqual({ pages: 2, readyAtUs: 100 });
    // Readiness is per page, not per unit: 3 waits for 100, 5 for 200.
    expect(cache.readyAt(1, 2, 4, 50)).toBe(100);
    expect(cache.readyAt(1, 2, 6, 50)).toBe(200);
    cache.clearMarker(1, 2, 50);
    expect(cache.markerIn(1, 0, 8)).toBe(-1);
    expect(cache.run(1, 0, 10, 50)).toEqual({ pages: 4, readyAtUs: 100 });
    expect(cache.page(1, 5, 150)).toEqual({ state: "in-flight", readyAtUs: 200, markerUnit: -1 });
  });

  it("the part of a unit left after DONTNEED still fires and clears as the unit", () => {
    const cache = new PageCache();
    cache.insert(1, 0, 8, 0, 0);
    cache.setMarker(1, 4, 8, 0);
    cache.drop(1, 4, 2, 10); // pages 4, 5 go
    expect(cache.markerUnitPages(1, 4)).toBe(2);
    expect(cache.markerIn(1, 0, 8)).toBe(4);
    cache.clearMarker(1, 4, 10);
    expect(cache.markerIn(1, 0, 8)).toBe(-1);
  });
});

describe("folios and folding", () => {
  it("reports the naturally aligned folio holding a page", () => {
    const cache = new PageCache();
    cache.insert(1, 8, 16, 0, 0, 2); // order-2 folios [8,12), [12,16), ...
    cache.insert(1, 24, 2, 0, 0); // order 0
    expect(cache.folioAt(1, 13)).toEqual({ start: 12, order: 2 });
    expect(cache.folioAt(1, 25)).toEqual({ start: 25, order: 0 });
    expect(cache.folioAt(1, 30)).toBeNull();
  });

  it("touch with a time folds completed I/O into one valid run", () => {
    const cache = new PageCache();
    cache.insert(1, 0, 4, 100, 0);
    cache.insert(1, 4, 4, 200, 0);
    expect(cache.stats().extents).toBe(2);
    cache.touch(1, 0, 8, 300);
    expect(cache.extents(1)).toEqual([
      { start: 0, end: 8, readyAtUs: Number.NEGATIVE_INFINITY, markerUnit: -1, epoch: 0 },
    ]);
  });
});

describe("LRU epochs", () => {
  it("default epoch = capacity / 64: a page touched again outlives older pages", () => {
    // capacity 128 -> 2 pages per epoch. [0,2) epoch 0, [2,4) epoch 1, touch [0,2) -> epoch 2.
    const cache = new PageCache({ capacityPages: 128 });
    expect(cache.lruEpochPages).toBe(2);
    cache.insert(1, 0, 2, 0, 0);
    cache.insert(1, 2, 2, 0, 0);
    cache.touch(1, 0, 2);
    // 126 more pages: 130 > 128, 2 must go: the oldest epoch (1), pages 2 and 3.
    cache.insert(1, 4, 126, 0, 0);
    expect(cache.stats().residentPages).toBe(128);
    expect([0, 1, 2, 3].map((p) => cache.page(1, p, 0).state)).toEqual([
      "valid",
      "valid",
      "absent",
      "absent",
    ]);
    expect(cache.stats()).toMatchObject({ evictedPages: 2, evictions: 1, insertedPages: 130 });
  });

  it("one touch of n pages equals n one-page touches", () => {
    const a = new PageCache({ capacityPages: 64, lruEpochPages: 3 });
    const b = new PageCache({ capacityPages: 64, lruEpochPages: 3 });
    for (const c of [a, b]) c.insert(1, 0, 20, 0, 0);
    a.touch(1, 5, 10);
    for (let p = 5; p < 15; p++) b.touch(1, p, 1);
    const epochs = (c: PageCache) =>
      Array.from({ length: 20 }, (_, p) => c.extents(1).find((r) => r.start <= p && p < r.end)!.epoch);
    expect(epochs(a)).toEqual(epochs(b));
    // clock 20 after the insert, 3 pages per epoch: page 5 ends epoch 6 (clock 18-20), 6-8 are
    // epoch 7, 9-11 epoch 8, 12-14 epoch 9
    expect(epochs(a).slice(5, 15)).toEqual([6, 7, 7, 7, 8, 8, 8, 9, 9, 9]);
  });
});
