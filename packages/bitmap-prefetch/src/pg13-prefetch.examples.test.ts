/**
 * Worked examples for the PG13-17 prefetcher, expected values derived by hand
 * from apps/docs/src/reference/bitmap-heap-scan-prefetch.md (not from the code's output).
 */
import { describe, expect, it } from "vitest";
import type { PrefetchEnv } from "./bitmap-scan-policy.js";
import { HeapBitmap, HeapBitmapBuilder } from "./heap-bitmap.js";
import { BitmapHeapScanPrefetcher, ParallelBitmapHeapScan } from "./pg13-prefetch.js";

const nothingBuffered: PrefetchEnv = { isBuffered: () => false };
const blocks = (advice: ReadonlyArray<{ firstBlock: number }>): number[] => advice.map((a) => a.firstBlock);

describe("the end of the bitmap (reference 3.2 step 3: prefetch iterator exhausted)", () => {
  // Bitmap pages 0..4, one tuple each, max 16.
  // page 0: 1a prefetch iterator catches up (returns 0); ramp -1 -> 0; tuple iteration 0 -> 1: advise 1 (pages 1).
  // page 1: 1a pages 1 -> 0; ramp 1 -> 2: advise 2, 3 (pages 2); tuple: 3 -> advise 4 (pages 3).
  // page 2: 1a pages 3 -> 2; ramp 3 -> 6: the prefetch iterator is exhausted at once: freed, no advice,
  //         and prefetch_pages is *not* incremented (serial loop increments only after a block came back).
  // pages 3, 4: 1a only closes the gap: 2 -> 1 -> 0. Nothing more is advised.
  it("serial: advice 1 | 2-4 | - | - | -, prefetch_pages 1, 3, 2, 1, 0", () => {
    const scan = new BitmapHeapScanPrefetcher(HeapBitmap.fromPages(100, [0, 1, 2, 3, 4]), {
      effectiveIoConcurrency: 16,
    });
    const advice: number[][] = [];
    const gaps: number[] = [];
    for (let s = scan.nextPage(nothingBuffered); s !== null; s = scan.nextPage(nothingBuffered)) {
      advice.push(blocks(s.advice));
      gaps.push(scan.prefetchPages);
    }
    expect(advice).toEqual([[1], [2, 3, 4], [], [], []]);
    expect(gaps).toEqual([1, 3, 2, 1, 0]);
    expect(scan.prefetchTarget).toBe(16);
  });

  // Parallel (reference 3.3): the slot is reserved (prefetch_pages++) under the lock *before* the shared
  // prefetch iterator is advanced, so the slot that discovers the end stays counted. Page 2: 1a 3 -> 2, then
  // one slot reserved (2 -> 3) whose iterate finds the end; pages 3 and 4 close the gap: 3 -> 2 -> 1.
  // prefetch_pages after each page: 1, 3, 3, 2, 1 (serial: 1, 3, 2, 1, 0).
  it("parallel, one participant: same advice, but the failed slot stays counted in prefetch_pages", () => {
    const scan = new ParallelBitmapHeapScan(HeapBitmap.fromPages(100, [0, 1, 2, 3, 4]), {
      effectiveIoConcurrency: 16,
    });
    const p = scan.participant();
    const advice: number[][] = [];
    const gaps: number[] = [];
    for (let s = p.nextPage(nothingBuffered); s !== null; s = p.nextPage(nothingBuffered)) {
      advice.push(blocks(s.advice));
      gaps.push(scan.prefetchPages);
    }
    expect(advice).toEqual([[1], [2, 3, 4], [], [], []]);
    expect(gaps).toEqual([1, 3, 3, 2, 1]);
  });
});

describe("parallel bitmap heap scan: shared target and prefetch_pages under the mutex (reference 3.3)", () => {
  // Two participants A and B over pages 0..19, one tuple each, max 4, interleaved step by step:
  //   A.begin: main -> 0; prefetch_pages 0 so the shared prefetch iterator advances too (-> 0).
  //   B.begin: main -> 1; prefetch_pages 0 again: prefetch iterator -> 1 (no block check in parallel mode).
  //   A.pageRead: ramp -1 -> 0; 0 < 0 is false: nothing.
  //   B.pageRead: ramp 0 -> 1; reserve slot (pages 1), iterate -> 2: B advises 2.
  //   A.nextTuple: target 1 -> 2; reserve (pages 2), iterate -> 3: A advises 3.
  //   B.nextTuple: target 2 -> 3; reserve (pages 3) -> 4: B advises 4.
  //   A.begin: main -> 2; pages 3 -> 2.  A.pageRead: ramp 3 >= 4/2 -> 4; reserve 3 -> 5, reserve 4 -> 6.
  //   A.nextTuple: target already 4 = max; pages 4: nothing.
  //   B.begin: main -> 3; pages 4 -> 3. B.pageRead: ramp at max; reserve (pages 4) -> 7.
  it("interleaved steps: advice 2 (B), 3 (A), 4 (B), 5 6 (A), 7 (B); pages 1 and 0 never advised", () => {
    const scan = new ParallelBitmapHeapScan(
      HeapBitmap.fromPages(
        100,
        Array.from({ length: 20 }, (_, i) => i),
      ),
      { effectiveIoConcurrency: 4 },
    );
    const a = scan.participant();
    const b = scan.participant();
    const env = nothingBuffered;
    expect(a.beginPage()?.page).toBe(0);
    expect(b.beginPage()?.page).toBe(1);
    expect(blocks(a.pageRead(env))).toEqual([]);
    expect(scan.prefetchTarget).toBe(0);
    expect(blocks(b.pageRead(env))).toEqual([2]);
    expect(scan.prefetchTarget).toBe(1);
    expect(blocks(a.nextTuple(env))).toEqual([3]);
    expect(blocks(b.nextTuple(env))).toEqual([4]);
    expect([scan.prefetchTarget, scan.prefetchPages]).toEqual([3, 3]);
    expect(a.beginPage()?.page).toBe(2);
    expect(scan.prefetchPages).toBe(2);
    expect(blocks(a.pageRead(env))).toEqual([5, 6]);
    expect([scan.prefetchTarget, scan.prefetchPages]).toEqual([4, 4]);
    expect(blocks(a.nextTuple(env))).toEqual([]);
    expect(b.beginPage()?.page).toBe(3);
    expect(blocks(b.pageRead(env))).toEqual([7]);
    expect(scan.prefetchPages).toBe(4);
    // Each participant's maxPrefetchTarget is the shared target it saw.
    expect(a.stats.maxPrefetchTarget).toBe(4);
    expect(b.stats.maxPrefetchTarget).toBe(4);
  });
});

describe("lossy pages and tuple counts (reference 3.2 steps 1b and 2)", () => {
  // Page 0 exact, 2 tuples; page 1 lossy, 27 tuples (every tuple on the page is iterated and rechecked);
  // then exact pages with 2 tuples. Max 32.
  // page 0: ramp -1 -> 0; two further iterations: 1, 2 -> advise bitmap pages 1, 2 (pages 2).
  // page 1: 1a pages 2 -> 1; ramp 2 -> 4 -> advise 3, 4, 5 (pages 4); 27 further iterations raise the
  //         target 5, 6, ..., 31: one page each, bitmap pages 6 .. 32 (pages 31).
  // page 2: 1a pages 31 -> 30; ramp 31 >= 16 -> 32: advise 33, 34 (pages 32); then at max: nothing.
  it("a lossy page ramps like an exact one and its 27 rechecked tuples each raise the target", () => {
    const builder = new HeapBitmapBuilder(1000);
    builder.addPage(0, { tuples: 2 });
    builder.addPage(1, { lossy: true, tuples: 27 });
    builder.addRun(2, 100, { tuples: 2 });
    const scan = new BitmapHeapScanPrefetcher(builder.build(), { effectiveIoConcurrency: 32 });
    const p0 = scan.nextPage(nothingBuffered);
    expect(blocks(p0?.advice ?? [])).toEqual([1, 2]);
    const p1 = scan.nextPage(nothingBuffered);
    expect(p1?.lossy).toBe(true);
    expect(p1?.tuples).toBe(27);
    const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
    expect(blocks(p1?.advice ?? [])).toEqual(range(3, 32));
    // The ramp's three pages come right after the read, then one per rechecked tuple.
    expect(p1?.advice.slice(0, 4).map((x) => x.afterTuples)).toEqual([0, 0, 0, 1]);
    expect(p1?.advice.at(-1)?.afterTuples).toBe(27);
    expect(scan.prefetchTarget).toBe(31);
    const p2 = scan.nextPage(nothingBuffered);
    expect(blocks(p2?.advice ?? [])).toEqual([33, 34]);
    expect(scan.prefetchTarget).toBe(32);
    expect(scan.stats).toMatchObject({ pages: 3, exactPages: 2, lossyPages: 1, maxPrefetchTarget: 32 });
  });
});

describe("the 8.4-12 spindle formula drives the ramp (reference 3.1, 3.2)", () => {
  // effective_io_concurrency 4 under the pg84 formula: rint(4 + 2 + 4/3 + 1) = rint(8.33) = 8 pages.
  // Zero-tuple pages take one iteration each, so the targets are the pure ramp: 0, 1, 2, 4, 8, 8.
  it("eic 4 (pg84) ramps 0, 1, 2, 4, 8 like eic 8 (pg13)", () => {
    const bitmap = HeapBitmap.fromPages(100, [0, 1, 2, 3, 4, 5], { tuples: 0 });
    for (const options of [
      { effectiveIoConcurrency: 4, eicFormula: "pg84" as const },
      { effectiveIoConcurrency: 8 },
    ]) {
      const scan = new BitmapHeapScanPrefetcher(bitmap, options);
      const targets: number[] = [];
      for (let s = scan.beginPage(); s !== null; s = scan.beginPage()) {
        scan.pageRead(nothingBuffered);
        targets.push(scan.prefetchTarget);
      }
      expect(targets).toEqual([0, 1, 2, 4, 8, 8]);
    }
  });
});

describe("the ramp's 'target >= max / 2 (integer)' step on odd maxima (reference 3.2 ramp rule)", () => {
  // max 3 (eic 2 under the pg84 formula, rint(2 + 1) = 3): -1 -> 0 -> 1; 1 >= 3/2 = 1 -> 3.
  // max 5 (eic 5, PG13+): 0, 1, then 1 >= 2? no, double to 2; 2 >= 2 -> 5.
  // max 6 (eic 3 under pg84, rint(5.5) = 6): 0, 1, 2; 2 >= 3? no, 4; 4 >= 3 -> 6.
  for (const [options, expected] of [
    [{ effectiveIoConcurrency: 2, eicFormula: "pg84" as const }, [0, 1, 3, 3]],
    [{ effectiveIoConcurrency: 5 }, [0, 1, 2, 5, 5]],
    [{ effectiveIoConcurrency: 3, eicFormula: "pg84" as const }, [0, 1, 2, 4, 6, 6]],
  ] as const) {
    it(`${JSON.stringify(options)}: ${expected.join(", ")}`, () => {
      const bitmap = HeapBitmap.fromPages(
        100,
        expected.map((_, i) => i),
        { tuples: 0 },
      );
      const scan = new BitmapHeapScanPrefetcher(bitmap, options);
      const targets: number[] = [];
      for (let s = scan.beginPage(); s !== null; s = scan.beginPage()) {
        scan.pageRead(nothingBuffered);
        targets.push(scan.prefetchTarget);
      }
      expect(targets).toEqual([...expected]);
    });
  }
});
