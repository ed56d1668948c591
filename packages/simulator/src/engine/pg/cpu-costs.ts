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
 * - bitmapTupleUs 0: what a bitmap scan spends per matched tuple beyond a
 *   sequential scan's perTupleUs. Each TID passes through the index scan that
 *   builds the bitmap (btgetbitmap and tbm_add_tuples, nbtree.c and
 *   tidbitmap.c) and is then fetched on its own by heap_hot_search_buffer
 *   (heapam_handler.c: heapam_scan_bitmap_next_block up to PG17, the same
 *   loop under the read stream in PG18), which checks the tuple's visibility
 *   one at a time; a sequential scan's page-at-a-time loop (heapgetpage,
 *   heap_prepare_pagescan from PG17) skips that check on an all-visible
 *   page. Both scale with the matched tuples, so one figure carries both. No
 *   published figure holds for any machine: the default charges nothing
 *   extra, and `scanlab lab` fits it per PostgreSQL version from a warm
 *   bitmap scan on the user's machine.
 * - bufferFirstUseUs 0: the first use of a shared buffer after the server
 *   started. PostgreSQL maps shared memory anonymous and shared
 *   (sysv_shmem.c, CreateAnonymousSegment), so a buffer's memory is backed
 *   only when first written: the read into it faults its pages in, and the
 *   kernel allocates and zeroes each one (shmem_fault in mm/shmem.c; two
 *   4 KiB pages per 8 kB buffer without huge pages, one 2 MiB page per 256
 *   buffers with them). A scan through the BAS_BULKREAD ring pays it for the
 *   ring only; a bitmap heap scan, which uses no ring, pays it for every
 *   buffer up to shared_buffers. A scenario starts with empty shared buffers,
 *   as after a restart. The cost depends on the kernel, huge pages and
 *   virtualisation, so the default is 0, and `scanlab lab` fits it per
 *   PostgreSQL version from warm bitmap scans on the user's machine.
 * - wakeUpUs 0: waking a sleeping process on an idle CPU (try_to_wake_up()
 *   in kernel/sched/core.c: the IPI, the CPU's exit from idle, on a VM the
 *   host running the vCPU again). With io_method worker a read queued for an
 *   idle I/O worker starts this much later, and a backend that sleeps waiting
 *   for a worker's read resumes this much after it completes
 *   (read-stream-participant.ts). A read that finds its pages already being
 *   read (advised, in the kernel's asynchronous readahead, or another
 *   process's) sleeps on them and resumes this much after they arrive
 *   (scan-run.ts, readyAfterWait). A synchronous read's own wake-up is part
 *   of the device latency the device model gives. It ranges from a few
 *   microseconds on a busy server to hundreds on an idle VM, so the default
 *   is 0 and `scanlab calibrate` measures it (`measureWakeUp`).
 * - fadviseUs 2.0: one posix_fadvise(WILLNEED) system call on an uncached
 *   8 kB block, which allocates the page and submits a bio in the caller's
 *   context [I]; a call that finds every page of its range present (cached
 *   or already being read) only looks them up and costs readSyscallUs
 *   (scan-run.ts, adviseBlocks). A calibrated profile carries the figure
 *   measured on its machine (`cpu.fadviseUs`, `measureAdviceCall` of
 *   @scanlab/file-scan: the system time an advised absent block costs a
 *   reader beyond a cached one, which includes the read's completion; 11-18 us
 *   on scanlab's 2-core virtual machine when the block is read into memory
 *   freed a moment before, 20 us into memory the hypervisor has taken back,
 *   where the call alone takes 6-8 us). The regression of the
 *   2022 eic benchmark (eic=1 slower than 0) is mostly not this cost but the
 *   loss of kernel readahead, which the OS model produces.
 * - fillUsPerPage 0: the kernel's CPU per 4 KiB page a read brings into the
 *   page cache, spent in the context of the process whose read() triggered
 *   it: page_cache_ra_unbounded() allocates the folios and inserts them
 *   (filemap_add_folio), read_pages() builds and submits the bios, all in the
 *   caller (mm/readahead.c); the completion (folio_end_read from the bio's
 *   end_io) lands on whatever runs on that CPU. No published figure holds
 *   for any machine, so the built-in profiles leave it at 0 and a cold scan
 *   costs the same CPU as a warm one; `scanlab calibrate` measures it (the
 *   system time of cold minus cached sequential buffered reads, per page),
 *   and a profile that carries it charges it. On a virtual machine whose
 *   balloon reports free pages, it includes the hypervisor's fault on each
 *   page's first touch: 1.7 us a page on scanlab's 2-core VM read at once
 *   after an eviction, 5.5-6.9 us once the freed memory was reported, which
 *   is how calibrate measures it there. posix_fadvise(WILLNEED) keeps
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
  /** Extra work per tuple a bitmap scan matches: the index entry into the bitmap and the fetch by TID, us. */
  bitmapTupleUs: number;
  /** Fixed cost of a pread system call that hits the page cache, us. */
  readSyscallUs: number;
  /** Copy rate from the page cache to the process, bytes per us. */
  copyBytesPerUs: number;
  /** Faulting in a shared buffer's memory on its first use after the server started, us. */
  bufferFirstUseUs: number;
  /** Waking a sleeping process on an idle CPU (an I/O worker, or a backend waiting for one), us. */
  wakeUpUs: number;
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
  bitmapTupleUs: 0,
  readSyscallUs: 0.35,
  copyBytesPerUs: 12000,
  bufferFirstUseUs: 0,
  wakeUpUs: 0,
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

/** CPU time to process one heap page of a bitmap scan with `tuples` matched tuples, excluding how it was fetched. */
export function bitmapPageWorkUs(cpu: CpuCosts, tuples: number): number {
  return pageWorkUs(cpu, tuples) + tuples * cpu.bitmapTupleUs;
}

/** CPU time of one pread of `bytes` that finds its pages in the OS page cache. */
export function preadUs(cpu: CpuCosts, bytes: number): number {
  return cpu.readSyscallUs + bytes / cpu.copyBytesPerUs;
}

/** Kernel CPU to bring `pages` 4 KiB pages into the page cache for a read (fillUsPerPage each). */
export function fillUs(cpu: CpuCosts, pages: number): number {
  return pages * cpu.fillUsPerPage;
}
