/**
 * The CPU a buffered reader pays for the page cache to be filled.
 *
 * Problem. A scan that finds its table in the page cache and one that reads it
 * from the device do not cost the same CPU, even when the device keeps up.
 * When a read() misses, or reaches a readahead mark, the kernel allocates the
 * folios, inserts them into the file's mapping and builds and submits the
 * bios, in the context of the reading process (page_cache_ra_unbounded(),
 * filemap_add_folio() and read_pages() in mm/readahead.c); the completion
 * (folio_end_read() from the bio's end_io) runs on whatever that CPU was
 * doing. A model that charges only the copy makes every cold scan as cheap
 * as a warm one.
 *
 * Insight. The difference is system time, and the process can measure its
 * own: read the same region sequentially, once after evicting it and once
 * cached, with the same 8 KiB reads, and subtract. What is left is the fill,
 * per 4 KiB page brought in.
 *
 * Choices.
 * - 8 KiB sequential reads, PostgreSQL's block, so the readahead the kernel
 *   does is the one a sequential scan gets, with {@link BUSY_US_PER_BLOCK}
 *   of CPU after each: a reader that is on its CPU when a completion arrives
 *   pays for handling it, one that sleeps in read() does not, and a scanning
 *   backend is the former.
 * - The region is the file's first {@link FILL_REGION_BYTES} (less on a
 *   smaller file): the kernel splits user and system time at its tick (4 ms
 *   at HZ=250), so the cold read must last many ticks.
 * - {@link FILL_ROUNDS} rounds, the median kept; a negative difference (the
 *   noise of a busy machine) is kept as 0.
 * - Eviction is `evictAndVerify` (POSIX_FADV_DONTNEED, checked with fincore);
 *   a file that cannot be evicted gives no figure, with the reason.
 * - After the eviction, `settleFreedMemory` (@scanlab/host) waits where the
 *   kernel hands freed memory back to a hypervisor: a table that is cold in
 *   production is read into such memory, whose first touch costs a fault on
 *   the host, and a read right after the eviction would reuse the pages it
 *   has just freed and measure a cheaper fill than a real cold scan pays.
 *
 * Interface: `measureFillCost(path, size)`.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { freePageReporting, REPORTING_SETTLE_MS, settleFreedMemory } from "@scanlab/host";
import { evictAndVerify } from "./page-cache-eviction.js";
import { KiB, MiB } from "./units.js";

/** The region the fill is measured on: 256 MiB, a quarter second or more of device reads (our choice). */
export const FILL_REGION_BYTES = 256 * MiB;

/**
 * CPU the reader spends on each 8 KiB block between reads, microseconds: a
 * sequential scan's backend spends a few to 20 (the lab's warm fits), so it
 * is on its CPU when the device's completions arrive, and the kernel charges
 * their handling to it. A reader that only reads sleeps through them (our
 * choice of 10).
 */
export const BUSY_US_PER_BLOCK = 10;

/** Rounds of cold and cached reads; the median is kept (our choice). */
export const FILL_ROUNDS = 5;

/** One round of {@link measureFillCost}. */
export interface FillRound {
  /** System time of the read of the evicted region, microseconds. */
  readonly coldSystemUs: number;
  /** System time of the same read, cached, microseconds. */
  readonly cachedSystemUs: number;
  /** 4 KiB pages read. */
  readonly pages: number;
}

/** What {@link measureFillCost} found. */
export type FillCost =
  | {
      /** Kernel CPU per 4 KiB page brought into the page cache, microseconds (the median round). */
      readonly fillUsPerPage: number;
      /** Every round's system times. */
      readonly rounds: readonly FillRound[];
      /** How it was measured (tool, region, rounds). */
      readonly measuredWith: string;
    }
  | {
      /** No figure: the file could not be measured. */
      readonly fillUsPerPage: null;
      /** Why, in one sentence's words. */
      readonly reason: string;
    };

function systemUsOfRead(fd: number, bytes: number, buffer: Buffer): number {
  const before = process.cpuUsage();
  for (let o = 0; o < bytes; o += buffer.length) {
    readSync(fd, buffer, 0, Math.min(buffer.length, bytes - o), o);
    // Work on the block, as a scanning backend does: the reader stays on its CPU between reads.
    const until = performance.now() + BUSY_US_PER_BLOCK / 1000;
    while (performance.now() < until);
  }
  return process.cpuUsage(before).system;
}

/**
 * Measures the kernel's CPU per 4 KiB page of a buffered sequential read
 * that misses the page cache, as the reading process's system time (see the
 * header).
 *
 * @example
 * ```ts
 * import { measureFillCost } from "@scanlab/device-profiles/node";
 * const fill = await measureFillCost("/data/big.file", 4 * 2 ** 30);
 * console.log(fill.fillUsPerPage === null ? fill.reason : `${fill.fillUsPerPage.toFixed(2)} us a page`);
 * ```
 */
export async function measureFillCost(
  path: string,
  size: number,
  options: { signal?: AbortSignal } = {},
): Promise<FillCost> {
  const region = Math.min(FILL_REGION_BYTES, Math.floor(size / (8 * KiB)) * 8 * KiB);
  if (region < 8 * MiB) return { fillUsPerPage: null, reason: "the file is smaller than 8 MiB" };
  const buffer = Buffer.allocUnsafe(8 * KiB);
  const rounds: FillRound[] = [];
  const reporting = freePageReporting();
  for (let r = 0; r < FILL_ROUNDS; r++) {
    const evicted = evictAndVerify(path);
    if (evicted.evicted === false) return { fillUsPerPage: null, reason: evicted.reason ?? "not evicted" };
    await settleFreedMemory(options.signal, reporting);
    const fd = openSync(path, "r");
    try {
      const coldSystemUs = systemUsOfRead(fd, region, buffer);
      const cachedSystemUs = systemUsOfRead(fd, region, buffer);
      rounds.push({ coldSystemUs, cachedSystemUs, pages: region / (4 * KiB) });
    } finally {
      closeSync(fd);
    }
  }
  const perPage = rounds
    .map((x) => Math.max(0, (x.coldSystemUs - x.cachedSystemUs) / x.pages))
    .sort((a, b) => a - b);
  return {
    fillUsPerPage: perPage[Math.floor(perPage.length / 2)]!,
    rounds,
    measuredWith: `node ${process.version} process.cpuUsage() system time of 8 KiB sequential readSync with ${BUSY_US_PER_BLOCK} us of CPU after each, over the first ${Math.round(region / MiB)} MiB of ${path}, evicted (POSIX_FADV_DONTNEED) then cached, ${reporting.active ? `${REPORTING_SETTLE_MS / 1000} s between eviction and the cold read (${reporting.why}), ` : ""}${FILL_ROUNDS} rounds, median of (cold - cached) / 4 KiB pages`,
  };
}
