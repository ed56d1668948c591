/**
 * DOC: what advising an absent block costs the process that advises it.
 *
 * Problem. A bitmap heap scan with effective_io_concurrency, and a PG18 read
 * stream at io_method sync, advise each block they will read soon with
 * posix_fadvise(WILLNEED). For an absent block the kernel allocates the
 * folios, inserts them in the page cache, and builds and submits the bio in
 * the caller (force_page_cache_ra and page_cache_ra_unbounded in
 * mm/readahead.c); on a virtual disk the submission also notifies the host.
 * When the read completes, its interrupt and the bio's end_io run on
 * whatever CPU takes them, often the reader's. None of this happens when the
 * block is already cached, and no published figure holds for a given
 * machine, so the simulator's default is an assumption; this measures it.
 *
 * Method, as a scanning backend reads. About a tenth of the 8 kB blocks of
 * the file's first 256 MiB are chosen (seeded), in ascending order, as a
 * bitmap gives them. One thread advises each block 16 blocks ahead of the
 * one it reads, reads it with pread, and spends 10 µs of CPU on it. Each
 * round runs this once on the evicted file (cold) and once again with those
 * blocks cached (warm), and takes the difference in the process's system
 * time per block: the CPU an absent block costs the reader beyond a cached
 * one, advice included, waiting not. The median of the rounds is kept. The
 * median time of the WILLNEED call alone, from the cold passes, is reported
 * beside it: the rest of the difference is what the read's completion costs
 * the reader. Where the kernel hands freed memory back to a hypervisor, each
 * cold pass waits for the eviction's memory to be reported first
 * (`settleFreedMemory` of @scanlab/host), as a table cold in production has
 * been: the host's fault on each new page is then part of the figure.
 *
 * The file is opened read-only; advice changes no data.
 *
 * Interface: {@link measureAdviceCall}.
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { mulberry32 } from "@scanlab/core";
import { evictFromPageCache, freePageReporting, REPORTING_SETTLE_MS, settleFreedMemory } from "@scanlab/host";
import { loadFadvise, type WillNeedFn } from "./fadvise.js";

/** Rounds of {@link measureAdviceCall}, each a cold and a warm pass (our choice, as calibrate's fill cost). */
export const ADVICE_ROUNDS = 5;
/** Blocks advised ahead of the one read: PostgreSQL 18's default effective_io_concurrency. */
export const ADVICE_DISTANCE = 16;
/** The region read and the share of its blocks chosen (our choice: a 10 % bitmap of 256 MiB). */
const REGION_BYTES = 256 << 20;
const CHOSEN_SHARE = 0.1;
/** CPU spent on each block after its read, as a scanning backend spends on a page (calibrate's fill cost does the same). */
const WORK_US = 10;
/** Fewest blocks a pass may have (our choice: a median of per-block times over fewer is mostly noise). */
const MIN_BLOCKS = 400;

/** What {@link measureAdviceCall} found. */
export type AdviceCost =
  | {
      /** It was measured. */
      readonly ok: true;
      /** System time an advised absent 8 kB block costs the reader beyond a cached one, median of the rounds, microseconds. */
      readonly fadviseUs: number;
      /** Median time of one WILLNEED call on an absent block, microseconds. */
      readonly callUs: number;
      /** How it was measured, in one sentence. */
      readonly measuredWith: string;
    }
  | {
      /** It could not be measured here. */
      readonly ok: false;
      /** Why, in one sentence. */
      readonly reason: string;
    };

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
};

const spin = (us: number): void => {
  const end = process.hrtime.bigint() + BigInt(Math.round(us * 1000));
  while (process.hrtime.bigint() < end);
};

/** One pass: advise `distance` ahead, read, work. Returns the system time in microseconds and the call times in ns. */
function pass(
  path: string,
  blocks: readonly number[],
  willNeed: WillNeedFn,
  timeCalls: boolean,
): { systemUs: number; callNs: number[] } {
  const buffer = Buffer.alloc(8192);
  const callNs: number[] = [];
  const advise = (fd: number, block: number) => {
    if (!timeCalls) {
      willNeed(fd, block * 8192, 8192);
      return;
    }
    const a = process.hrtime.bigint();
    willNeed(fd, block * 8192, 8192);
    callNs.push(Number(process.hrtime.bigint() - a));
  };
  const fd = openSync(path, "r");
  try {
    const before = process.cpuUsage();
    for (let i = 0; i < Math.min(ADVICE_DISTANCE, blocks.length); i++) advise(fd, blocks[i]!);
    for (let i = 0; i < blocks.length; i++) {
      if (i + ADVICE_DISTANCE < blocks.length) advise(fd, blocks[i + ADVICE_DISTANCE]!);
      readSync(fd, buffer, 0, 8192, blocks[i]! * 8192);
      spin(WORK_US);
    }
    return { systemUs: process.cpuUsage(before).system, callNs };
  } finally {
    closeSync(fd);
  }
}

/**
 * Measures what advising an absent 8 kB block costs the reader (see the file
 * header).
 *
 * @example
 * ```ts
 * import { measureAdviceCall } from "@scanlab/file-scan";
 * const cost = await measureAdviceCall("/data/big.file");
 * console.log(cost.ok ? `${cost.fadviseUs.toFixed(1)} us a block` : cost.reason);
 * ```
 */
export async function measureAdviceCall(
  path: string,
  rounds = ADVICE_ROUNDS,
  seed = 1,
  signal?: AbortSignal,
): Promise<AdviceCost> {
  const fadvise = loadFadvise();
  if (!fadvise.ok) return { ok: false, reason: fadvise.reason };
  const region = Math.floor(Math.min(statSync(path).size, REGION_BYTES) / 8192);
  const random = mulberry32(seed);
  const blocks: number[] = [];
  for (let b = 0; b < region; b++) if (random.nextFloat() < CHOSEN_SHARE) blocks.push(b);
  if (blocks.length < MIN_BLOCKS)
    return {
      ok: false,
      reason: `${path} is too small to advise ${MIN_BLOCKS} blocks: it needs at least ${Math.ceil((MIN_BLOCKS / CHOSEN_SHARE) * 8192 * 1.2) >> 20} MiB.`,
    };
  const differences: number[] = [];
  const callNs: number[] = [];
  const reporting = freePageReporting();
  for (let r = 0; r < Math.max(1, rounds); r++) {
    const eviction = evictFromPageCache([path]);
    if (!eviction.ok)
      return { ok: false, reason: `${path} could not be evicted from the page cache (${eviction.reason}).` };
    await settleFreedMemory(signal, reporting);
    const cold = pass(path, blocks, fadvise.willNeed, true);
    const warm = pass(path, blocks, fadvise.willNeed, false);
    differences.push((cold.systemUs - warm.systemUs) / blocks.length);
    callNs.push(...cold.callNs);
  }
  return {
    ok: true,
    fadviseUs: Math.max(0, median(differences)),
    callUs: median(callNs) / 1000,
    measuredWith:
      `fadviseUs: node ${process.version} process.cpuUsage() system time of one thread reading ${blocks.length} ` +
      `ascending 8 kB blocks (a seeded tenth of the first ${(region * 8192) >> 20} MiB of ${path}) with ` +
      `posix_fadvise(WILLNEED) ${ADVICE_DISTANCE} blocks ahead and ${WORK_US} us of CPU after each, evicted then ` +
      `cached, ${reporting.active ? `${REPORTING_SETTLE_MS / 1000} s between eviction and the cold pass (${reporting.why}), ` : ""}${Math.max(1, rounds)} rounds, median of (cold - cached) per block; the WILLNEED call alone took ` +
      `${(median(callNs) / 1000).toFixed(1)} us (median)`,
  };
}
