/**
 * Throughput of the models, printed side by side in one run (the machine is
 * shared and noisy, so compare ratios within a run, not absolute numbers
 * across runs).
 *
 * - bitmap iteration: HeapBitmapIterator.next() against a plain loop over a
 *   Uint32Array of the same pages (the cheapest possible representation);
 * - bitmap heap scan policies: PG13-17 prefetcher and the adaptive policy,
 *   pages per second through nextPage().
 *
 * Run: npx turbo run bench --filter=@scanlab/bitmap-prefetch (builds dist first),
 * or npm run build && npm run bench inside packages/bitmap-prefetch.
 */

import { sfc32 } from "@scanlab/core";
import { RateTable, time } from "@scanlab/test-config/bench";
import type { HeapBitmap as Bitmap } from "../src/index.js";

// Measure the built bundle (what consumers import; turbo builds it before `bench`). Running the TypeScript
// sources through tsx measured the hot loops 2-6x slower than the same code bundled by tsup.
const distEntry: string = "../dist/index.js";
const lib = (await import(distEntry)) as typeof import("../src/index.js");
const {
  AdaptiveBitmapPrefetcher,
  BitmapHeapScanPrefetcher,
  HeapBitmap,
  HeapBitmapBuilder,
  INVALID_BLOCK_NUMBER,
} = lib;

const table = new RateTable();
const row = table.row.bind(table);

// Data (shapes of the 2022 data sets in @scanlab/workloads, built here so the bench needs only this
// package): a 1 M-block table with half and a tenth of its pages taken at random (many short runs),
// and the pgbench sixth (one long run of 61-tuple pages).
const TABLE_BLOCKS = 1 << 20;
function randomPages(fraction: number, seed: number): Bitmap {
  const rng = sfc32(seed);
  const pages: number[] = [];
  for (let b = 0; b < TABLE_BLOCKS; b++) if (rng.nextFloat() < fraction) pages.push(b);
  return HeapBitmap.fromPages(TABLE_BLOCKS, pages, { tuples: 27 });
}
const t0 = performance.now();
const random50 = randomPages(0.5, 1);
const random10 = randomPages(0.1, 2);
const genMs = performance.now() - t0;
const pgbench = new HeapBitmapBuilder(4_918_033).addRun(16, 819_657, { tuples: 61 }).build();

function iterate(bitmap: Bitmap): number {
  const it = bitmap.iterate();
  let n = 0;
  let sum = 0;
  for (let b = it.next(); b !== INVALID_BLOCK_NUMBER; b = it.next()) {
    sum += b;
    n++;
  }
  if (sum < 0) throw new Error("unreachable");
  return n;
}
function plainLoop(pages: Uint32Array): number {
  let sum = 0;
  for (let i = 0; i < pages.length; i++) sum += pages[i] as number;
  if (sum < 0) throw new Error("unreachable");
  return pages.length;
}

const plain50 = random50.toPages();
const itRandom = time(() => iterate(random50));
const plainRandom = time(() => plainLoop(plain50));
row(
  `bitmap iterate, random 50 % (${random50.runCount} runs)`,
  itRandom.opsPerSec,
  `${(itRandom.opsPerSec / plainRandom.opsPerSec).toFixed(2)} x plain Uint32Array loop`,
);
row("plain Uint32Array loop, same pages", plainRandom.opsPerSec, "baseline");
const itPg = time(() => iterate(pgbench));
row(
  "bitmap iterate, pgbench sixth (3 runs)",
  itPg.opsPerSec,
  `${(itPg.opsPerSec / plainRandom.opsPerSec).toFixed(2)} x plain loop`,
);
row(
  "bitmap skip() run-level, pgbench sixth",
  time(() => {
    const it = pgbench.iterate();
    let n = 0;
    while (!it.exhausted) n += it.skip(1 << 30);
    return n;
  }).opsPerSec,
  "pages per second",
);

const env = { isBuffered: () => false };
function scanPages(make: () => { nextPage: (e: typeof env) => unknown }): number {
  const scan = make();
  let n = 0;
  while (scan.nextPage(env) !== null) n++;
  return n;
}
const pg13 = time(() =>
  scanPages(() => new BitmapHeapScanPrefetcher(random10, { effectiveIoConcurrency: 16 })),
);
row("PG13-17 prefetcher nextPage, random 10 %, eic 16", pg13.opsPerSec, "27 tuples/page: 28 iterations each");
const adaptive = time(() => scanPages(() => new AdaptiveBitmapPrefetcher(random10)));
row(
  "adaptive nextPage, random 10 %",
  adaptive.opsPerSec,
  `${(adaptive.opsPerSec / pg13.opsPerSec).toFixed(2)} x PG13`,
);
const adaptiveSeq = time(() => scanPages(() => new AdaptiveBitmapPrefetcher(pgbench)), 500);
row("adaptive nextPage, pgbench sixth", adaptiveSeq.opsPerSec);

console.log(
  `@scanlab/bitmap-prefetch bench (1 M-block table, two random bitmaps generated in ${genMs.toFixed(0)} ms)`,
);
table.print();
