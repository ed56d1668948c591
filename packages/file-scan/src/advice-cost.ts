/**
 * DOC: what one posix_fadvise(WILLNEED) costs the process that makes it.
 *
 * Problem. A bitmap heap scan with effective_io_concurrency, and a PG18 read
 * stream at io_method sync, advise each block they will read soon. The call
 * returns once the kernel has started the read: for each absent page it
 * allocates a folio, inserts it in the page cache, and builds and submits the
 * bio (force_page_cache_ra and page_cache_ra_unbounded in mm/readahead.c),
 * all in the caller. On a virtual disk the submission also notifies the
 * host. No published figure holds for a given machine, so the simulator's
 * default is an assumption; this measures it.
 *
 * Method. The first GiB of the file (or all of it) is evicted from the page
 * cache, then WILLNEED is given for 8 kB blocks at distinct random offsets,
 * one call each, timed with the monotonic clock around the call alone. The
 * median is kept (a call that waits for a request slot or is interrupted is
 * the tail, not the typical cost), less the median of the clock reads
 * themselves. The figure includes the FFI crossing from Node to libc, a few
 * tenths of a microsecond that PostgreSQL's direct call does not pay.
 *
 * The file is opened read-only; advice changes no data. The blocks advised
 * stay cached afterwards, as after any read.
 *
 * Interface: {@link measureAdviceCall}.
 */
import { closeSync, openSync, statSync } from "node:fs";
import { mulberry32 } from "@scanlab/core";
import { evictFromPageCache } from "@scanlab/host";
import { loadFadvise } from "./fadvise.js";

/** Calls timed by {@link measureAdviceCall} (our choice: enough for a stable median, a fraction of a second). */
export const ADVICE_CALLS = 2000;

/** What {@link measureAdviceCall} found. */
export type AdviceCost =
  | {
      /** The call was timed. */
      readonly ok: true;
      /** Median time of one WILLNEED call on an absent 8 kB block, less the clock's own, microseconds. */
      readonly fadviseUs: number;
      /** How it was measured, in one sentence. */
      readonly measuredWith: string;
    }
  | {
      /** It could not be timed here. */
      readonly ok: false;
      /** Why, in one sentence. */
      readonly reason: string;
    };

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
};

/**
 * Measures one posix_fadvise(WILLNEED) call on an 8 kB block absent from the
 * page cache (see the file header).
 *
 * @example
 * ```ts
 * import { measureAdviceCall } from "@scanlab/file-scan";
 * const cost = measureAdviceCall("/data/big.file");
 * console.log(cost.ok ? `${cost.fadviseUs.toFixed(1)} us a call` : cost.reason);
 * ```
 */
export function measureAdviceCall(path: string, calls = ADVICE_CALLS, seed = 1): AdviceCost {
  const fadvise = loadFadvise();
  if (!fadvise.ok) return { ok: false, reason: fadvise.reason };
  const blocks = Math.floor(Math.min(statSync(path).size, 1 << 30) / 8192);
  if (blocks < 2 * calls)
    return { ok: false, reason: `${path} has fewer than ${2 * calls} blocks of 8 kB to advise.` };
  const eviction = evictFromPageCache([path]);
  if (!eviction.ok)
    return {
      ok: false,
      reason: `${path} could not be evicted from the page cache first (${eviction.reason}).`,
    };
  // Distinct blocks: a partial Fisher-Yates shuffle of the first `blocks`.
  const random = mulberry32(seed);
  const order = new Int32Array(blocks);
  for (let i = 0; i < blocks; i++) order[i] = i;
  for (let i = 0; i < calls; i++) {
    const j = i + Math.floor(random.nextFloat() * (blocks - i));
    const t = order[i]!;
    order[i] = order[j]!;
    order[j] = t;
  }
  const clock: number[] = [];
  const times: number[] = [];
  const fd = openSync(path, "r");
  try {
    for (let i = 0; i < calls; i++) {
      const a = process.hrtime.bigint();
      clock.push(Number(process.hrtime.bigint() - a));
    }
    for (let i = 0; i < calls; i++) {
      const a = process.hrtime.bigint();
      fadvise.willNeed(fd, order[i]! * 8192, 8192);
      times.push(Number(process.hrtime.bigint() - a));
    }
  } finally {
    closeSync(fd);
  }
  const fadviseUs = Math.max(0, (median(times) - median(clock)) / 1000);
  return {
    ok: true,
    fadviseUs,
    measuredWith:
      `fadviseUs: median of ${calls} posix_fadvise(WILLNEED) calls on distinct random 8 kB blocks of ` +
      `${path}, evicted first, less the clock's own median (through koffi from Node ${process.version})`,
  };
}
