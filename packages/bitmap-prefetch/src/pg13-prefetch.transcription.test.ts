/**
 * The PG13-17 prefetcher against a literal transcription of the main loop of
 * apps/docs/src/reference/bitmap-heap-scan-prefetch.md#pg13-to-17-prefetch (serial) and 3.3 (parallel), written from the
 * reference text independently of pg13-prefetch.ts. Random bitmaps, settings,
 * buffer contents and (for parallel scans) random interleavings of the
 * participants' steps must give the same pages, the same advice in the same
 * step, and the same shared prefetch_target / prefetch_pages after every step.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PrefetchEnv } from "./bitmap-scan-policy.js";
import { HeapBitmapBuilder } from "./heap-bitmap.js";
import { BitmapHeapScanPrefetcher, ParallelBitmapHeapScan, type Pg13ScanBase } from "./pg13-prefetch.js";

interface Page {
  block: number;
  tuples: number;
}

/** Shared part of the transcription: the two iterators (as positions) and the two counters. */
class RefShared {
  mainPos = 0;
  prefetchPos = 0;
  prefetchPages = 0;
  prefetchTarget = -1;
  constructor(
    readonly pages: readonly Page[],
    readonly max: number,
  ) {}
  /** tbm_iterate on the prefetch iterator: the next page or null. */
  prefetchNext(): Page | null {
    const p = this.pages[this.prefetchPos];
    if (p === undefined) return null;
    this.prefetchPos++;
    return p;
  }
}

/** One participant of the transcription (a serial scan is a single participant with `parallel` false). */
class RefParticipant {
  current: Page | null = null;
  remaining = 0;
  /** This participant's prefetch iterator handle (freed when it returns the end); null if max = 0. */
  hasPrefetchIterator: boolean;
  constructor(
    readonly s: RefShared,
    readonly parallel: boolean,
  ) {
    this.hasPrefetchIterator = s.max > 0;
  }
  /** Step 1 up to the read: take the next page, 1a adjust the prefetch iterator. */
  begin(): Page | null {
    const s = this.s;
    const page = s.pages[s.mainPos];
    if (page === undefined) return null;
    s.mainPos++;
    // 1a. Parallel mode only does this when prefetch_maximum > 0; serial mode has no prefetch iterator then.
    if (s.max > 0) {
      if (s.prefetchPages > 0) s.prefetchPages--;
      else if (this.hasPrefetchIterator) {
        const p = s.prefetchNext();
        if (!this.parallel && p?.block !== page.block) throw new Error("out of sync");
      }
    }
    this.current = page;
    this.remaining = page.tuples;
    return page;
  }
  /** Step 1d (ramp) after the read, then step 3. */
  afterRead(env: PrefetchEnv): number[] {
    const s = this.s;
    const t = s.prefetchTarget;
    if (t >= s.max) {
      // unchanged
    } else if (t >= Math.floor(s.max / 2)) s.prefetchTarget = s.max;
    else if (t > 0) s.prefetchTarget = t * 2;
    else s.prefetchTarget = t + 1;
    return this.prefetch(env);
  }
  /** Step 2 then step 3, for one further iteration on the page. */
  tuple(env: PrefetchEnv): number[] {
    const s = this.s;
    if (s.prefetchTarget < s.max) s.prefetchTarget++;
    const advice = this.prefetch(env);
    if (this.remaining > 0) this.remaining--;
    return advice;
  }
  private prefetch(env: PrefetchEnv): number[] {
    const s = this.s;
    const out: number[] = [];
    if (!this.hasPrefetchIterator) return out;
    if (!this.parallel) {
      while (s.prefetchPages < s.prefetchTarget) {
        const p = s.prefetchNext();
        if (p === null) {
          this.hasPrefetchIterator = false;
          break;
        }
        s.prefetchPages++;
        if (!env.isBuffered(p.block)) out.push(p.block);
      }
    } else {
      for (;;) {
        // Reserve a slot under the mutex, then iterate.
        if (!(s.prefetchPages < s.prefetchTarget)) break;
        s.prefetchPages++;
        const p = s.prefetchNext();
        if (p === null) {
          this.hasPrefetchIterator = false;
          break;
        }
        if (!env.isBuffered(p.block)) out.push(p.block);
      }
    }
    return out;
  }
}

const bitmapArb = fc
  .array(fc.record({ gap: fc.integer({ min: 0, max: 5 }), tuples: fc.integer({ min: 0, max: 4 }) }), {
    minLength: 1,
    maxLength: 80,
  })
  .map((spec) => {
    const pages: Page[] = [];
    let block = 0;
    for (const { gap, tuples } of spec) {
      block += gap;
      pages.push({ block, tuples });
      block++;
    }
    return pages;
  });

function build(pages: readonly Page[]) {
  const b = new HeapBitmapBuilder(1000);
  for (const p of pages) b.addPage(p.block, { tuples: p.tuples });
  return b.build();
}

describe("PG13-17 prefetch = transcription of reference 3.2 / 3.3", () => {
  it("serial: same advice at every step, same prefetch_target and prefetch_pages", () => {
    fc.assert(
      fc.property(
        bitmapArb,
        fc.integer({ min: 0, max: 20 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 500 }), { maxLength: 40 }),
        (pages, eic, bufferedList) => {
          const buffered = new Set(bufferedList);
          const env: PrefetchEnv = { isBuffered: (b) => buffered.has(b) };
          const model = new BitmapHeapScanPrefetcher(build(pages), { effectiveIoConcurrency: eic });
          const ref = new RefParticipant(new RefShared(pages, eic), false);
          for (;;) {
            const want = ref.begin();
            const got = model.beginPage();
            expect(got?.page ?? null).toBe(want?.block ?? null);
            if (want === null) break;
            expect(model.pageRead(env).map((a) => a.firstBlock)).toEqual(ref.afterRead(env));
            expect([model.prefetchTarget, model.prefetchPages]).toEqual([
              ref.s.prefetchTarget,
              ref.s.prefetchPages,
            ]);
            for (let k = 0; k < want.tuples; k++) {
              expect(model.nextTuple(env).map((a) => a.firstBlock)).toEqual(ref.tuple(env));
              expect([model.prefetchTarget, model.prefetchPages]).toEqual([
                ref.s.prefetchTarget,
                ref.s.prefetchPages,
              ]);
            }
          }
        },
      ),
      { numRuns: 300, seed: 20261130 },
    );
  });

  it("parallel: any interleaving of 2-4 participants' steps gives the same advice and shared state", () => {
    fc.assert(
      fc.property(
        bitmapArb,
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 2, max: 4 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 100 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 500 }), { maxLength: 40 }),
        (pages, eic, n, schedule, bufferedList) => {
          const buffered = new Set(bufferedList);
          const env: PrefetchEnv = { isBuffered: (b) => buffered.has(b) };
          const scan = new ParallelBitmapHeapScan(build(pages), { effectiveIoConcurrency: eic });
          const shared = new RefShared(pages, eic);
          const models: Pg13ScanBase[] = [];
          const refs: RefParticipant[] = [];
          // Next step of each participant: "begin", "read" (after beginPage) or "tuple" (k further left).
          const phase: Array<{ kind: "begin" | "read" | "tuple" | "done"; left: number }> = [];
          for (let i = 0; i < n; i++) {
            models.push(scan.participant());
            refs.push(new RefParticipant(shared, true));
            phase.push({ kind: "begin", left: 0 });
          }
          let turn = 0;
          while (phase.some((p) => p.kind !== "done")) {
            // The scheduled participant, or the next one still running.
            let i = (schedule[turn++ % schedule.length] as number) % n;
            while ((phase[i] as (typeof phase)[number]).kind === "done") i = (i + 1) % n;
            const ph = phase[i] as (typeof phase)[number];
            const m = models[i] as Pg13ScanBase;
            const r = refs[i] as RefParticipant;
            if (ph.kind === "begin") {
              const want = r.begin();
              expect(m.beginPage()?.page ?? null).toBe(want?.block ?? null);
              if (want === null) ph.kind = "done";
              else ph.kind = "read";
              ph.left = want?.tuples ?? 0;
            } else if (ph.kind === "read") {
              expect(m.pageRead(env).map((a) => a.firstBlock)).toEqual(r.afterRead(env));
              ph.kind = ph.left > 0 ? "tuple" : "begin";
            } else {
              expect(m.nextTuple(env).map((a) => a.firstBlock)).toEqual(r.tuple(env));
              ph.left--;
              if (ph.left === 0) ph.kind = "begin";
            }
            expect([scan.prefetchTarget, scan.prefetchPages]).toEqual([
              shared.prefetchTarget,
              shared.prefetchPages,
            ]);
          }
        },
      ),
      { numRuns: 300, seed: 20261130 },
    );
  });
});
