/**
 * The bitmap heap scan ports bound to @scanlab/bitmap-prefetch: the query's
 * bitmap (built from its data-set description), the prefetch policies that
 * walk it, and the renumbering the warp asks of a serial PG13-17 scan.
 *
 * The problem: a bitmap heap scan's process (pg/bitmap-participant.ts) needs
 * three things from the model package: the next page, the advice to issue,
 * and (for the warp, speedups/warp.ts) a way to take a stretch of blocks out
 * of the bitmap and its iterators and put it back. The last one holds model
 * state the process should not see: the bitmap itself, copies of it without
 * the cut stretches, and the iterators' rebase.
 *
 * The insight: the warp's renumbering is a property of the policy, not of the
 * process, so the adapter that builds a serial PG13-17 prefetcher also keeps
 * what renumbering it takes ({@link RenumberableBitmapScan}); every other
 * policy is handed over as it is and is never warped.
 *
 * Design choices:
 * - Bitmaps are cached by their description: generation is deterministic, and
 *   a sweep builds each a few dozen times at most (64 kept: a memory bound of
 *   ours, not a model figure).
 * - The pgbench data set is pgbench_accounts at scale 3000 (resolveScenario
 *   checks the table is that one); the others are the 2022 benchmark's
 *   layouts at the table's size.
 */
import {
  AdaptiveBitmapPrefetcher,
  BitmapHeapScanPrefetcher,
  type HeapBitmap,
  INVALID_BLOCK_NUMBER,
  ParallelBitmapHeapScan,
} from "@scanlab/bitmap-prefetch";
import { renumberBitmap, renumberPrefetch } from "@scanlab/bitmap-prefetch/sim";
import {
  bitmap2022Query,
  bitmap2022Table,
  pgbenchAccountsBitmap,
  pgbenchAccountsTableBlocks,
} from "@scanlab/workloads";
import type { QuerySpec } from "../../scenario/schema.js";
import type {
  AdaptivePlanInputs,
  Advice,
  BitmapPrefetchSettings,
  BitmapScanModels,
  BitmapScanPort,
  BitmapScanWarp,
  BufferLookup,
  Renumbering,
} from "./ports.js";

/** Heap blocks of pgbench_accounts at `scale` right after `pgbench -i` (the pgbench data set's table). */
export function pgbenchAccountsBlocks(scale: number): number {
  return pgbenchAccountsTableBlocks(scale);
}

const bitmapCache = new Map<string, HeapBitmap>();

/** The bitmap a query scans, built from its data-set description (cached: generation is deterministic). */
export function bitmapFor(spec: QuerySpec, nblocks: number): HeapBitmap {
  const b = spec.bitmap!;
  const key = JSON.stringify({ b, nblocks });
  let bitmap = bitmapCache.get(key);
  if (bitmap === undefined) {
    if ("pgbench" in b) {
      // resolveScenario has checked that the table is pgbench_accounts at scale 3000.
      bitmap = pgbenchAccountsBitmap({}).bitmap;
    } else {
      const table = bitmap2022Table({ layout: b.dataset, seed: b.seed ?? 4, tableBlocks: nblocks });
      bitmap = bitmap2022Query(table, { selectivity: b.selectivity, seed: (b.seed ?? 4) + 1 }).bitmap;
    }
    // A memory bound of ours (a sweep rarely uses more than a few dozen bitmaps), not a model figure.
    if (bitmapCache.size > 64) bitmapCache.clear();
    bitmapCache.set(key, bitmap);
  }
  return bitmap;
}

/**
 * A serial PG13-17 (or 8.4-12) prefetcher the warp can renumber: its bitmap
 * is copied without the cut stretches (or rebuilt from the original once a
 * cut comes back) and both iterators move onto the copy; everything else it
 * holds (prefetch_pages, prefetch_target) lies before the cut.
 */
class RenumberableBitmapScan implements BitmapScanPort, BitmapScanWarp {
  readonly warp: BitmapScanWarp = this;
  private readonly policy: BitmapHeapScanPrefetcher;
  /** The bitmap as the table is numbered now (the scan's own, less the warp's outstanding cuts). */
  private bitmap: HeapBitmap;
  /** The warp's outstanding cuts of the table, oldest first. */
  private readonly cuts: Renumbering[] = [];

  constructor(
    /** The scan's bitmap (the warp renumbers a copy of it). */
    private readonly original: HeapBitmap,
    settings: BitmapPrefetchSettings,
  ) {
    this.bitmap = original;
    this.policy = new BitmapHeapScanPrefetcher(original, settings);
  }

  beginPage(): { page: number; tuples: number } | null {
    return this.policy.beginPage();
  }

  pageRead(env: BufferLookup): readonly Advice[] {
    return this.policy.pageRead(env);
  }

  restOfPage(env: BufferLookup): readonly Advice[] {
    return this.policy.restOfPage(env);
  }

  frontier(): number {
    const b = this.policy.frontierBlock;
    return b === INVALID_BLOCK_NUMBER ? this.pathEnd() : b;
  }

  pathEnd(): number {
    const runs = this.bitmap.runCount;
    if (runs === 0) return 0;
    const last = this.bitmap.run(runs - 1);
    return last.startBlock + last.pages;
  }

  pagesIn(at: number, blocks: number): number {
    const end = at + blocks;
    let n = 0;
    for (const r of this.bitmap.runs()) {
      if (r.startBlock >= end) break;
      const stop = r.startBlock + r.pages;
      if (stop > at) n += Math.min(stop, end) - Math.max(r.startBlock, at);
    }
    return n;
  }

  renumber(change: Renumbering): void {
    if (change.kind === "cut") this.cuts.push(change);
    else this.cuts.pop();
    // The pages of the stretches still cut out stay out; a stretch put back comes back with its own.
    let bitmap = this.original;
    for (const c of this.cuts) bitmap = renumberBitmap(bitmap, c);
    this.bitmap = bitmap;
    renumberPrefetch(this.policy, change, bitmap);
  }
}

/** The bitmap heap scan models, bound. */
export const bitmapScans: BitmapScanModels = {
  pageSource(spec, nblocks) {
    const it = bitmapFor(spec, nblocks).iterate();
    return () => it.nextOrNull();
  },
  matchedShare(spec, nblocks, tuplesPerPage) {
    const bitmap = bitmapFor(spec, nblocks);
    let tuples = 0;
    for (let i = 0; i < bitmap.runCount; i++) {
      const run = bitmap.run(i);
      tuples += run.pages * run.tuples;
    }
    return Math.min(1, tuples / (nblocks * tuplesPerPage));
  },
  prefetch(spec, nblocks, settings, processes) {
    const bitmap = bitmapFor(spec, nblocks);
    if (processes === 1) return [new RenumberableBitmapScan(bitmap, settings)];
    const shared = new ParallelBitmapHeapScan(bitmap, settings);
    return Array.from({ length: processes }, () => shared.participant());
  },
  adaptive(spec, nblocks, inputs: AdaptivePlanInputs) {
    return new AdaptiveBitmapPrefetcher(bitmapFor(spec, nblocks), inputs);
  },
};
