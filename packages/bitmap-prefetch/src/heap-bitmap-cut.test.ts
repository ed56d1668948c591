import { cutStretch, restoreStretch } from "@scanlab/core/sim";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { INVALID_BLOCK_NUMBER } from "./constants.js";
import { bitmapWithout, HeapBitmap, HeapBitmapBuilder, REBASE } from "./heap-bitmap.js";
import { renumberBitmap } from "./sim.js";

/**
 * A simulator that cuts a steady stretch out of a table renumbers the scan's
 * bitmap (renumberBitmap) and moves its iterators onto the copy.
 */
describe("bitmapWithout: the bitmap of a table with a stretch taken out", () => {
  it("drops the stretch's pages and numbers later ones lower, keeping flags", () => {
    const bitmap = new HeapBitmapBuilder(100)
      .addRun(3, 3, { tuples: 5 })
      .addRun(20, 10, { lossy: true, tuples: 60 })
      .addRun(40, 2)
      .build();
    const cut = bitmapWithout(bitmap, 4, 30); // blocks 4..33 leave: 4, 5 and 20..29 go
    expect(cut.tableBlocks).toBe(70);
    expect(cut.pageCount).toBe(3);
    expect([...cut.runs()]).toEqual([
      { startBlock: 3, pages: 1, lossy: false, tuples: 5 },
      { startBlock: 10, pages: 2, lossy: false, tuples: 1 },
    ]);
    // The original is unchanged.
    expect(bitmap.pageCount).toBe(15);
  });

  it("a run straddling the stretch stays one run (pgbench's contiguous sixth)", () => {
    const bitmap = HeapBitmap.fromRuns(1000, [{ startBlock: 16, pages: 800, lossy: false, tuples: 61 }]);
    const cut = bitmapWithout(bitmap, 256, 512);
    expect([...cut.runs()]).toEqual([{ startBlock: 16, pages: 288, lossy: false, tuples: 61 }]);
  });

  it("rejects a stretch outside the table", () => {
    expect(() => bitmapWithout(HeapBitmap.fromPages(10, [1]), 5, 6)).toThrow(RangeError);
    // A table keeps at least one block: the whole table is not a stretch to cut.
    expect(() => bitmapWithout(HeapBitmap.fromPages(10, [1]), 0, 10)).toThrow(RangeError);
  });

  it("equals filtering and shifting the page list (property)", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 199 }), { maxLength: 80 }),
        fc.integer({ min: 0, max: 200 }),
        fc.integer({ min: 0, max: 200 }),
        (raw, a, n) => {
          const at = Math.min(a, 200);
          const blocks = Math.min(n, 200 - at, 199);
          const pages = [...raw].sort((x, y) => x - y);
          const expected = pages
            .filter((p) => p < at || p >= at + blocks)
            .map((p) => (p >= at + blocks ? p - blocks : p));
          expect([...bitmapWithout(HeapBitmap.fromPages(200, pages), at, blocks).toPages()]).toEqual(
            expected,
          );
        },
      ),
    );
  });
});

describe("an iterator moved onto a renumbered bitmap", () => {
  it("continues from the page its next block maps to, keeping the count returned", () => {
    const bitmap = HeapBitmap.fromPages(100, [3, 4, 5, 40, 41, 60]);
    const it = bitmap.iterate();
    expect([it.next(), it.next()]).toEqual([3, 4]);
    const cut = bitmapWithout(bitmap, 30, 15); // 40, 41 go; 60 becomes 45
    it[REBASE](cut, 5);
    expect(it.bitmap).toBe(cut);
    const rest: number[] = [];
    for (let b = it.next(); b !== INVALID_BLOCK_NUMBER; b = it.next()) rest.push(b);
    expect(rest).toEqual([5, 45]);
    expect(it.pagesReturned).toBe(4);
  });

  it("a next block inside a run starts mid-run; one past every page ends the walk", () => {
    const bitmap = HeapBitmap.fromRuns(1000, [{ startBlock: 100, pages: 50, lossy: false, tuples: 1 }]);
    const it = bitmap.iterate();
    it[REBASE](bitmap, 120);
    expect(it.next()).toBe(120);
    expect(it.peekRunRemaining()).toBe(29);
    it[REBASE](bitmap, INVALID_BLOCK_NUMBER);
    expect(it.exhausted).toBe(true);
    expect(it.next()).toBe(INVALID_BLOCK_NUMBER);
  });
});

describe("renumberBitmap", () => {
  it("a cut and the restore of the same stretch give the pages outside it back, with the stretch empty", () => {
    const bitmap = HeapBitmap.fromPages(200, [3, 50, 51, 120, 199]);
    const cut = renumberBitmap(bitmap, cutStretch(0, 200, 40, 60)); // 50 and 51 go
    expect([...cut.toPages()]).toEqual([3, 60, 139]);
    const back = renumberBitmap(cut, restoreStretch(0, 140, 40, 60));
    expect(back.tableBlocks).toBe(200);
    expect([...back.toPages()]).toEqual([3, 120, 199]);
    expect(() => renumberBitmap(bitmap, cutStretch(0, 300, 40, 60))).toThrow(/300-block table/);
  });
});
