/**
 * What a scanning process spends on the CPU, per block and per tuple.
 *
 * A heap page costs (per 8 kB block):
 *
 *   from the OS page cache:  readSyscallUs + BLCKSZ / copyBytesPerUs   (the pread)
 *   from shared buffers:     sharedBufferHitUs                          (a buffer-mapping lookup and pin)
 *   then, either way:        perPageUs + tuplesPerPage x perTupleUs     (page visibility + tuples)
 *
 * Defaults and where they come from:
 *
 * - readSyscallUs 0.35 and copyBytesPerUs 12000 (12 GB/s): apps/docs/src/reference/storage-device-models.md#copying-8-kb-from-the-page-cache,
 *   "t(8 KiB pread) = 0.3-0.4 us (syscall + page-cache lookup) + 8192 B /
 *   B_copy, B_copy about 10-14 GB/s from DRAM", which gives the measured
 *   1.05 us per cached 8 kB pread [M]. Older machines are slower; scenarios
 *   for them say so in their own `cpu` block.
 * - sharedBufferHitUs 0.1: a hash lookup in the buffer mapping table plus a
 *   pin, roughly a tenth of a pread [I] (no published figure; it only matters
 *   for scans that hit shared buffers, where it is small beside per-tuple work).
 * - perPageUs 1.0 and perTupleUs 0.05: page-level visibility work and a
 *   simple qual or count per tuple [I]. These are the unknowns a scenario may
 *   calibrate (apps/docs/src/reference/experiments.md#how-targets-are-used: at most one, from the baseline row).
 * - fadviseUs 2.0: one posix_fadvise(WILLNEED) system call on an uncached
 *   8 kB block, which allocates the page and submits a bio in the caller's
 *   context [I]; the regression of the 2022 eic benchmark (eic=1 slower than 0) is mostly not
 *   this cost but the loss of kernel readahead, which the OS model produces.
 * - fillUsPerPage 0: the kernel's CPU per 4 KiB page a read brings into the
 *   page cache, spent in the context of the process whose read() triggered
 *   it: page_cache_ra_unbounded() allocates the folios and inserts them
 *   (filemap_add_folio), read_pages() builds and submits the bios, all in the
 *   caller (mm/readahead.c); the completion (folio_end_read from the bio's
 *   end_io) lands on whatever runs on that CPU. No published figure holds
 *   for any machine, so the built-in profiles leave it at 0 and a cold scan
 *   costs the same CPU as a warm one; `scanlab calibrate` measures it (the
 *   system time of cold minus cached sequential buffered reads, per page),
 *   and a profile that carries it charges it. posix_fadvise(WILLNEED) keeps
 *   its own per-call cost (fadviseUs) instead.
 * - jitter 0.3: per-block CPU time varies by +-30% (cpu-jitter.ts).
 * - workerForkUs 300 and workerInitUs 1500: launching a parallel worker
 *   (postmaster.ts) [I].
 * - spinlockHoldUs 0.25 and atomicOpUs 0.1: moving one contended cache line
 *   between cores (a spinlock needs the line twice: acquire and release; an
 *   atomic fetch-add once) [I]. Cross-socket transfers on a 4-socket machine
 *   are slower; apps/docs/src/reference/experiments.md#t4-allocator-lock-contention-at-72-processes is where these matter.
 */

import { DEFAULT_CPU_JITTER } from "./cpu-jitter.js";

/** Per-operation CPU costs of the modelled machine, in microseconds. */
export interface CpuCosts {
  /** Page-level work per heap page (visibility map, page header), us. */
  perPageUs: number;
  /** Work per tuple (visibility, qual, aggregate), us. */
  perTupleUs: number;
  /** Fixed cost of a pread system call that hits the page cache, us. */
  readSyscallUs: number;
  /** Copy rate from the page cache to the process, bytes per us. */
  copyBytesPerUs: number;
  /** One posix_fadvise(WILLNEED) call, us. */
  fadviseUs: number;
  /** Kernel CPU per 4 KiB page a read() brings into the page cache, charged to the reading process, us. */
  fillUsPerPage: number;
  /** Time a spinlock allocation holds the shared cache line, us. */
  spinlockHoldUs: number;
  /** Time an atomic fetch-add holds the shared cache line, us. */
  atomicOpUs: number;
  /** A shared-buffer hit (mapping lookup and pin), us. */
  sharedBufferHitUs: number;
  /** Relative spread of per-block CPU time (cpu-jitter.ts); 0 makes CPU time exact. */
  jitter: number;
  /** Postmaster time to fork one parallel worker (postmaster.ts). */
  workerForkUs: number;
  /** A parallel worker's start-up before its first block request (postmaster.ts). */
  workerInitUs: number;
}

/** The documented defaults above. */
export const DEFAULT_CPU_COSTS: Readonly<CpuCosts> = Object.freeze({
  perPageUs: 1.0,
  perTupleUs: 0.05,
  readSyscallUs: 0.35,
  copyBytesPerUs: 12000,
  fadviseUs: 2.0,
  fillUsPerPage: 0,
  spinlockHoldUs: 0.25,
  atomicOpUs: 0.1,
  sharedBufferHitUs: 0.1,
  jitter: DEFAULT_CPU_JITTER,
  workerForkUs: 300,
  workerInitUs: 1500,
});

/** Merges a scenario's `cpu` block over the defaults. */
export function resolveCpuCosts(overrides: Partial<CpuCosts> | undefined): CpuCosts {
  const out: CpuCosts = { ...DEFAULT_CPU_COSTS };
  // A field given as undefined (a scenario's `"jitter": undefined` built in code) keeps its default.
  for (const [k, v] of Object.entries(overrides ?? {}))
    if (v !== undefined) (out as unknown as Record<string, unknown>)[k] = v;
  return out;
}

/** CPU time to process one heap page with `tuplesPerPage` tuples, excluding how it was fetched. */
export function pageWorkUs(cpu: CpuCosts, tuplesPerPage: number): number {
  return cpu.perPageUs + tuplesPerPage * cpu.perTupleUs;
}

/** CPU time of one pread of `bytes` that finds its pages in the OS page cache. */
export function preadUs(cpu: CpuCosts, bytes: number): number {
  return cpu.readSyscallUs + bytes / cpu.copyBytesPerUs;
}

/** Kernel CPU to bring `pages` 4 KiB pages into the page cache for a read (fillUsPerPage each). */
export function fillUs(cpu: CpuCosts, pages: number): number {
  return pages * cpu.fillUsPerPage;
}
