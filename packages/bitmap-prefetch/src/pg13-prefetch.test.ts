import { cutStretch, restoreStretch } from "@scanlab/core/sim";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PrefetchEnv } from "./bitmap-scan-policy.js";
import { BitmapPrefetchError } from "./errors.js";
import { HeapBitmap } from "./heap-bitmap.js";
import { adjustPrefetchTarget, BitmapHeapScanPrefetcher, ParallelBitmapHeapScan } from "./pg13-prefetch.js";
import { renumberPrefetch } from "./sim.js";

const nothingBuffered: PrefetchEnv = { isBuffered: () => false };

function pages(n: number, tuples: number, tableBlocks = 10_000): HeapBitmap {
  return HeapBitmap.fromPages(
    tableBlocks,
    Array.from({ length: n }, (_, i) => i),
    { tuples },
  );
}

function advisedPerPage(scan: BitmapHeapScanPrefetcher, n: number, env = nothingBuffered): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < n; i++) {
    const step = scan.nextPage(env);
    if (step === null) break;
    out.push(step.advice.map((a) => a.firstBlock));
  }
  return out;
}

const range = (from: number, to: number): number[] =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("PG13-17 bitmap heap scan prefetch: the worked example of apps/docs/src/reference/bitmap-heap-scan-prefetch.md#worked-example", () => {
  it("max 16, one tuple per page: prefetch 1; 2-4; 5-9; 10-18; 19-20; then one per page", () => {
    const scan = new BitmapHeapScanPrefetcher(pages(100, 1), { effectiveIoConcurrency: 16 });
    const advice = advisedPerPage(scan, 9);
    expect(advice).toEqual([[1], range(2, 4), range(5, 9), range(10, 18), [19, 20], [21], [22], [23], [24]]);
    // "keeping 16 pages ahead": on page 8 the last advised page is 24 = 8 + 16.
    expect(scan.prefetchPages).toBe(16);
  });

  it("max 16, one tuple per page: the target goes 0 then 1, 2 then 3, 6 then 7, 14 then 15, 16", () => {
    const scan = new BitmapHeapScanPrefetcher(pages(10, 1), { effectiveIoConcurrency: 16 });
    const seen: Array<[number, number]> = [];
    for (let p = 0; p < 5; p++) {
      scan.beginPage();
      scan.pageRead(nothingBuffered);
      const afterRamp = scan.prefetchTarget;
      scan.nextTuple(nothingBuffered);
      seen.push([afterRamp, scan.prefetchTarget]);
    }
    expect(seen).toEqual([
      [0, 1],
      [2, 3],
      [6, 7],
      [14, 15],
      [16, 16],
    ]);
  });

  it("with 3 tuples per page the targets after each page advance are 0, 6, 16", () => {
    const scan = new BitmapHeapScanPrefetcher(pages(10, 3), { effectiveIoConcurrency: 16 });
    const afterRamp: number[] = [];
    for (let p = 0; p < 3; p++) {
      scan.beginPage();
      scan.pageRead(nothingBuffered);
      afterRamp.push(scan.prefetchTarget);
      for (let k = 0; k < 3; k++) scan.nextTuple(nothingBuffered);
    }
    expect(afterRamp).toEqual([0, 6, 16]);
  });

  it("tags each advice call with the tuples already returned from the page (the increments happen per tuple)", () => {
    const scan = new BitmapHeapScanPrefetcher(pages(10, 3), { effectiveIoConcurrency: 16 });
    const first = scan.nextPage(nothingBuffered);
    // Page 0: ramp to 0 (nothing), then iterations 2, 3, 4 raise the target to 1, 2, 3: one page each time.
    expect(first?.advice).toEqual([
      { firstBlock: 1, blocks: 1, afterTuples: 1 },
      { firstBlock: 2, blocks: 1, afterTuples: 2 },
      { firstBlock: 3, blocks: 1, afterTuples: 3 },
    ]);
  });
});

describe("the ramp rule BitmapAdjustPrefetchTarget (reference 3.2 sequences)", () => {
  const cases: Array<[number, number[]]> = [
    [1, [0, 1]],
    [2, [0, 1, 2]],
    [10, [0, 1, 2, 4, 8, 10]],
    [16, [0, 1, 2, 4, 8, 16]],
    [32, [0, 1, 2, 4, 8, 16, 32]],
    [50, [0, 1, 2, 4, 8, 16, 32, 50]],
    [100, [0, 1, 2, 4, 8, 16, 32, 64, 100]],
  ];
  for (const [max, expected] of cases) {
    it(`max ${max}: ${expected.join(", ")}, then stays`, () => {
      // Pages with zero tuples take a single fetch iteration: one ramp step per page and no per-tuple increments.
      const scan = new BitmapHeapScanPrefetcher(pages(expected.length + 3, 0), {
        effectiveIoConcurrency: max,
      });
      const targets: number[] = [];
      for (let s = scan.beginPage(); s !== null; s = scan.beginPage()) {
        scan.pageRead(nothingBuffered);
        targets.push(scan.prefetchTarget);
      }
      expect(targets).toEqual([...expected, max, max, max]);
      let t = -1;
      const pure: number[] = [];
      for (let i = 0; i < expected.length; i++) {
        t = adjustPrefetchTarget(t, max);
        pure.push(t);
      }
      expect(pure).toEqual(expected);
    });
  }
});

describe("PrefetchBuffer and the prefetch iterator", () => {
  it("skips blocks already in shared buffers but still counts them as prefetched", () => {
    const scan = new BitmapHeapScanPrefetcher(pages(30, 1), { effectiveIoConcurrency: 16 });
    const env: PrefetchEnv = { isBuffered: (b) => b === 3 || b === 7 };
    const advice = advisedPerPage(scan, 4, env);
    expect(advice).toEqual([[1], [2, 4], [5, 6, 8, 9], range(10, 18)]);
    expect(scan.stats.adviceSkippedBuffered).toBe(2);
  });

  it("with effective_io_concurrency 0 never advises", () => {
    const scan = new BitmapHeapScanPrefetcher(pages(50, 5), { effectiveIoConcurrency: 0 });
    const advice = advisedPerPage(scan, 50);
    expect(advice.flat()).toEqual([]);
    expect(scan.stats.pages).toBe(50);
  });

  it("stops advising for good once the prefetch iterator reaches the end of the bitmap", () => {
    const bitmap = HeapBitmap.fromPages(1000, [5, 50, 500, 900], { tuples: 2 });
    const scan = new BitmapHeapScanPrefetcher(bitmap, { effectiveIoConcurrency: 100 });
    const advice = advisedPerPage(scan, 10);
    expect(advice.length).toBe(4);
    expect(advice.flat()).toEqual([50, 500, 900]);
  });

  it("pg84 formula: effective_io_concurrency 2 means 3 pages ahead", () => {
    const scan = new BitmapHeapScanPrefetcher(pages(40, 1), {
      effectiveIoConcurrency: 2,
      eicFormula: "pg84",
    });
    expect(scan.prefetchMaximum).toBe(3);
    advisedPerPage(scan, 10);
    expect(scan.prefetchPages).toBe(3);
  });

  it("property: advice is ascending, each bitmap page ahead of the current one at most once, never more than max ahead", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 1999 }), { minLength: 1, maxLength: 300 }),
        fc.integer({ min: 0, max: 64 }),
        fc.integer({ min: 0, max: 5 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 1999 }), { maxLength: 50 }),
        (raw, eic, tuples, bufferedList) => {
          const sorted = [...raw].sort((a, b) => a - b);
          const bitmap = HeapBitmap.fromPages(2000, sorted, { tuples });
          const buffered = new Set(bufferedList);
          const env: PrefetchEnv = { isBuffered: (b) => buffered.has(b) };
          const scan = new BitmapHeapScanPrefetcher(bitmap, { effectiveIoConcurrency: eic });
          const advised: number[] = [];
          let index = 0;
          for (let s = scan.nextPage(env); s !== null; s = scan.nextPage(env)) {
            expect(s.page).toBe(sorted[index]);
            for (const a of s.advice) {
              expect(a.blocks).toBe(1);
              expect(a.firstBlock).toBeGreaterThan(s.page);
              expect(buffered.has(a.firstBlock)).toBe(false);
              // At most `max` bitmap pages ahead of the current one.
              expect(sorted.indexOf(a.firstBlock) - index).toBeLessThanOrEqual(eic);
              advised.push(a.firstBlock);
            }
            expect(scan.prefetchPages).toBeLessThanOrEqual(eic);
            index++;
          }
          expect(index).toBe(sorted.length);
          for (let i = 1; i < advised.length; i++)
            expect(advised[i]).toBeGreaterThan(advised[i - 1] as number);
          const candidates = sorted.slice(1).filter((b) => !buffered.has(b));
          for (const b of advised) expect(candidates).toContain(b);
          if (eic === 0) expect(advised).toEqual([]);
          // With at least one tuple per page the target is >= 1 from the first page on, so the prefetch
          // iterator stays ahead and every later page is advised. (With zero-tuple pages the ramp alone
          // leaves the target at 0 on page 0 and the iterator catches up in lock-step: pages can be missed.)
          if (eic > 0 && tuples > 0) expect(advised).toEqual(candidates);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("enforces the calling protocol (programming errors throw plain Errors)", () => {
    const scan = new BitmapHeapScanPrefetcher(pages(3, 1), { effectiveIoConcurrency: 4 });
    expect(() => scan.pageRead(nothingBuffered)).toThrow(Error);
    scan.beginPage();
    expect(() => scan.nextTuple(nothingBuffered)).toThrow(/nextTuple/);
    scan.pageRead(nothingBuffered);
    expect(() => scan.beginPage()).toThrow(/beginPage/);
    scan.nextTuple(nothingBuffered);
    expect(() => scan.nextTuple(nothingBuffered)).toThrow(/more than/);
  });

  it("rejects effective_io_concurrency outside 0..1000 with a one-sentence user error", () => {
    for (const bad of [-1, 1001, 2.5, Number.NaN]) {
      const err = (() => {
        try {
          new BitmapHeapScanPrefetcher(pages(1, 1), { effectiveIoConcurrency: bad });
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(err).toBeInstanceOf(BitmapPrefetchError);
      const e = err as BitmapPrefetchError;
      expect(e.code).toBe("BITMAP_PREFETCH_BAD_EIC");
      expect(e.userError).toBe(true);
      expect(e.name).toBe("BitmapPrefetchError");
      expect(e.message).toMatch(/^effective_io_concurrency must be an integer from 0 to 1000, got .*\.$/);
    }
  });
});

describe("parallel bitmap heap scan (reference 3.3)", () => {
  it("one participant advises exactly like the serial scan", () => {
    const bitmap = HeapBitmap.fromPages(
      5000,
      range(0, 300).map((i) => i * 7),
      { tuples: 2 },
    );
    const serial = new BitmapHeapScanPrefetcher(bitmap, { effectiveIoConcurrency: 24 });
    const one = new ParallelBitmapHeapScan(bitmap, { effectiveIoConcurrency: 24 }).participant();
    for (;;) {
      const a = serial.nextPage(nothingBuffered);
      const b = one.nextPage(nothingBuffered);
      expect(b).toEqual(a);
      if (a === null) break;
    }
  });

  it("participants share the pages, the target and the prefetch iterator: each page read once, advised at most once", () => {
    const bitmap = pages(400, 1);
    const scan = new ParallelBitmapHeapScan(bitmap, { effectiveIoConcurrency: 16 });
    const workers = [scan.participant(), scan.participant(), scan.participant()];
    const read: number[] = [];
    const advised: number[] = [];
    let turn = 0;
    let live = workers.length;
    const done = new Set<number>();
    while (live > 0) {
      const w = turn % workers.length;
      turn++;
      if (done.has(w)) continue;
      const step = (workers[w] as (typeof workers)[number]).nextPage(nothingBuffered);
      if (step === null) {
        done.add(w);
        live--;
        continue;
      }
      read.push(step.page);
      for (const a of step.advice) advised.push(a.firstBlock);
    }
    expect([...read].sort((a, b) => a - b)).toEqual(range(0, 399));
    expect(new Set(advised).size).toBe(advised.length);
    // The shared target ramped to the maximum once, shared by all.
    expect(scan.prefetchTarget).toBe(16);
    // Round-robin page taking: the shared target ramp is the serial one (0, 1, 2, 4, 8, 16 plus per-tuple +1s).
    expect(workers.every((w) => w.prefetchTarget === 16)).toBe(true);
  });
});

describe("restOfPage", () => {
  it("gives the same advice, in the same order, as calling nextTuple for each remaining tuple", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 500 }), { minLength: 1, maxLength: 80 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: 3 }),
        (pages, eic, tuplesSeed) => {
          const sorted = [...pages].sort((a, b) => a - b);
          const bitmap = HeapBitmap.fromPages(501, sorted, { tuples: tuplesSeed });
          const a = new BitmapHeapScanPrefetcher(bitmap, { effectiveIoConcurrency: eic });
          const b = new BitmapHeapScanPrefetcher(bitmap, { effectiveIoConcurrency: eic });
          const env = { isBuffered: (x: number) => x % 7 === 3 };
          for (;;) {
            const pa = a.beginPage();
            const pb = b.beginPage();
            expect(pb).toEqual(pa);
            if (pa === null) break;
            const adviceA = [...a.pageRead(env)];
            for (let i = 0; i < pa.tuples; i++) adviceA.push(...a.nextTuple(env));
            const adviceB = [...b.pageRead(env), ...b.restOfPage(env)];
            expect(adviceB).toEqual(adviceA);
            expect(b.prefetchTarget).toBe(a.prefetchTarget);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("renumberPrefetch: a stretch cut out ahead of both iterators", () => {
  it("reads and advises, from then on, the renumbered pages in the same order, keeping its target", () => {
    const original = HeapBitmap.fromPages(
      5000,
      Array.from({ length: 1500 }, (_, i) => 100 + 3 * i),
    );
    const run = (cutAfterPages: number | null) => {
      const scan = new BitmapHeapScanPrefetcher(original, { effectiveIoConcurrency: 32 });
      const read: number[] = [];
      const advised: number[] = [];
      let target = 0;
      for (let step = scan.nextPage(nothingBuffered); step; step = scan.nextPage(nothingBuffered)) {
        read.push(step.page);
        advised.push(...step.advice.map((a) => a.firstBlock));
        if (read.length === cutAfterPages) {
          // The 200th page is block 697; 32 pages (96 blocks) are prefetched past it, so the
          // prefetch iterator's next page is 697 + 96 + 3.
          expect(scan.frontierBlock).toBe(796);
          target = scan.prefetchTarget;
          const pagesAhead = scan.prefetchPages;
          // Blocks 2000..2999 leave; every later block is 1000 lower.
          renumberPrefetch(scan, cutStretch(0, 5000, 2000, 1000));
          expect(scan.prefetchTarget).toBe(target);
          expect(scan.prefetchPages).toBe(pagesAhead);
        }
      }
      return { read, advised, target };
    };
    const cut = run(200);
    const exact = run(null);
    const renumber = (blocks: number[]) =>
      blocks.filter((b) => b < 2000 || b >= 3000).map((b) => (b >= 3000 ? b - 1000 : b));
    expect(cut.target).toBe(32);
    expect(cut.read).toEqual(renumber(exact.read));
    expect(cut.advised).toEqual(renumber(exact.advised));
  });

  it("the stretch put back once both iterators are past it: the rest reads as before, in the old numbering", () => {
    const original = HeapBitmap.fromPages(
      5000,
      Array.from({ length: 1500 }, (_, i) => 100 + 3 * i),
    );
    const scan = new BitmapHeapScanPrefetcher(original, { effectiveIoConcurrency: 8 });
    const read: number[] = [];
    let step = scan.nextPage(nothingBuffered);
    for (; step; step = scan.nextPage(nothingBuffered)) {
      read.push(step.page);
      if (read.length === 100) renumberPrefetch(scan, cutStretch(0, 5000, 2000, 1000));
      // Both iterators are past block 2000 (renumbered: the first page after the stretch).
      if (read.length === 700) renumberPrefetch(scan, restoreStretch(0, 4000, 2000, 1000), original);
    }
    const skipped = Array.from({ length: 1500 }, (_, i) => 100 + 3 * i).filter((b) => b < 2000 || b >= 3000);
    const between = read.slice(100, 700);
    // Between the cut and the restore the scan saw the renumbered pages; after it, the original ones.
    expect([
      ...read.slice(0, 100),
      ...between.map((b) => (b >= 2000 ? b + 1000 : b)),
      ...read.slice(700),
    ]).toEqual(skipped);
  });
});
