import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { INVALID_BLOCK_NUMBER } from "./constants.js";
import { BitmapPrefetchError } from "./errors.js";
import { HeapBitmap, HeapBitmapBuilder } from "./heap-bitmap.js";

function collect(bitmap: HeapBitmap): Array<[number, boolean, number]> {
  const it = bitmap.iterate();
  const out: Array<[number, boolean, number]> = [];
  for (let b = it.next(); b !== INVALID_BLOCK_NUMBER; b = it.next()) out.push([b, it.lossy, it.tuples]);
  return out;
}

describe("HeapBitmap: what tbm_iterate hands a bitmap heap scan", () => {
  it("yields exact and lossy pages merged in ascending block order with their tuple counts", () => {
    const bitmap = new HeapBitmapBuilder(100)
      .addRun(3, 2, { tuples: 5 })
      .addPage(5, { lossy: true, tuples: 27 })
      .addPage(40)
      .build();
    expect(collect(bitmap)).toEqual([
      [3, false, 5],
      [4, false, 5],
      [5, true, 27],
      [40, false, 1],
    ]);
    expect(bitmap.pageCount).toBe(4);
    expect(bitmap.fraction).toBe(0.04);
    expect(bitmap.pageInfo(5)).toEqual({ lossy: true, tuples: 27 });
    expect(bitmap.pageInfo(6)).toBeNull();
  });

  it("stores one run for consecutive pages with the same flags, however they were added", () => {
    const b = new HeapBitmapBuilder(1 << 20);
    for (let p = 1000; p < 500_000; p++) b.addPage(p, { tuples: 27 });
    const bitmap = b.build();
    expect(bitmap.runCount).toBe(1);
    expect(bitmap.run(0)).toEqual({ startBlock: 1000, pages: 499_000, lossy: false, tuples: 27 });
  });

  it("handles block numbers up to 2^32 - 2", () => {
    const bitmap = HeapBitmap.fromPages(0xffffffff, [0, 0xfffffffd, 0xfffffffe]);
    expect(collect(bitmap).map((x) => x[0])).toEqual([0, 0xfffffffd, 0xfffffffe]);
  });

  it("lets several consumers share one iterator, each page going to exactly one of them", () => {
    const bitmap = HeapBitmap.fromPages(50, [1, 2, 3, 10, 11, 20]);
    const shared = bitmap.iterate();
    const a: number[] = [];
    const b: number[] = [];
    for (let turn = 0; !shared.exhausted; turn++) (turn % 2 === 0 ? a : b).push(shared.next());
    expect(a).toEqual([1, 3, 11]);
    expect(b).toEqual([2, 10, 20]);
    expect(shared.next()).toBe(INVALID_BLOCK_NUMBER);
    expect(shared.nextOrNull()).toBeNull();
  });

  it("steps whole runs with peek / peekRunRemaining / skip", () => {
    const bitmap = HeapBitmap.fromPages(100, [5, 6, 7, 8, 30]);
    const it = bitmap.iterate();
    expect(it.next()).toBe(5);
    expect(it.peek()).toBe(6);
    expect(it.peekRunRemaining()).toBe(3);
    expect(it.skip(2)).toBe(2);
    expect(it.next()).toBe(8);
    expect(it.skip(10)).toBe(1);
    expect(it.peek()).toBe(INVALID_BLOCK_NUMBER);
    expect(it.pagesReturned).toBe(5);
  });

  it("rejects pages out of order, repeated, or past the table with a one-sentence user error", () => {
    const attempts: Array<() => unknown> = [
      () => new HeapBitmapBuilder(100).addPage(5).addPage(5),
      () => new HeapBitmapBuilder(100).addPage(9).addPage(4),
      () => new HeapBitmapBuilder(100).addRun(98, 3),
      () => new HeapBitmapBuilder(100).addRun(1, 0),
      () => new HeapBitmapBuilder(0),
      () => HeapBitmap.fromPages(10, [3, 2]),
      () => new HeapBitmapBuilder(10).addPage(1, { tuples: -1 }),
    ];
    for (const attempt of attempts) {
      let caught: unknown = null;
      try {
        attempt();
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(BitmapPrefetchError);
      expect((caught as BitmapPrefetchError).code).toBe("BITMAP_PREFETCH_BAD_BITMAP");
      expect((caught as Error).message).toMatch(/^[^\n]+\.$/);
    }
  });

  it("property: any ascending page set round-trips through runs, iteration, has() and toPages()", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 5000 }), { maxLength: 400 }), (raw) => {
        const pages = [...raw].sort((a, b) => a - b);
        const bitmap = HeapBitmap.fromPages(5001, pages, { tuples: 3 });
        expect([...bitmap.toPages()]).toEqual(pages);
        expect(collect(bitmap).map((x) => x[0])).toEqual(pages);
        expect(bitmap.pageCount).toBe(pages.length);
        const set = new Set(pages);
        for (let b = 0; b <= 5000; b += 7) expect(bitmap.has(b)).toBe(set.has(b));
        // Runs are maximal: no two stored runs touch (all pages share the same flags here).
        const runs = [...bitmap.runs()];
        for (let i = 1; i < runs.length; i++) {
          const prev = runs[i - 1] as { startBlock: number; pages: number };
          expect((runs[i] as { startBlock: number }).startBlock).toBeGreaterThan(
            prev.startBlock + prev.pages,
          );
        }
      }),
    );
  });
});
