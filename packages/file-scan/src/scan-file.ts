/**
 * scanFile: a real parallel sequential scan of a real file, measured.
 *
 * The story of one scan, in the order things happen. Before it starts, every
 * option is checked and its default filled in (scan-options.ts); then each
 * step is one call in {@link scanFile} and one file:
 *
 * 1. **Target** (scan-target.ts). The path is resolved to one file or a
 *    relation's segment files (target.ts); its size is sampled once, into
 *    the allocator's shared state (createSharedParallelScan from
 *    @scanlab/block-allocator, with the chosen policy), as PostgreSQL's
 *    leader samples phs_nblocks into the parallel scan's record
 *    (apps/docs/src/reference/parallel-block-allocation.md#shared-scan-state).
 *    What depends on the target (cover method, syncscan key, the policy's
 *    options against the size) is settled here, before anything is touched.
 * 2. **Cache** (cache-report.ts). If asked, the files are evicted from the
 *    page cache (and, where a hypervisor takes freed memory back, the scan
 *    waits for it); then `fincore` measures what is resident. That measurement,
 *    not the option, decides whether the scan is called cold, warm or mixed
 *    (or, where the kernel hides residency from this caller, the bytes the
 *    device read for the scan do: residency-visibility.ts).
 * 3. **Shared memory** (shared-memory.ts). A control block
 *    (worker-protocol.ts) and one cover counter per block are created.
 * 4. **Workers** (scan-workers.ts). N worker_threads start (worker.ts), each
 *    opens its own read-only descriptors, loads the per-block work, attaches
 *    to the allocator and the syncscan tracker, and says "ready". Set-up is
 *    not timed: a PostgreSQL worker's fork and relation open are not part of
 *    what `iostat` showed either.
 * 5. **Timed window** (timed-window.ts). The device counters are sampled
 *    (@scanlab/host block-device.ts), the start flag is raised, and every
 *    worker reads its blocks; progress is sampled from shared memory, never
 *    sent per block. The window closes when the last worker has read its
 *    last block (each worker timestamps its own first and last read with the
 *    process-wide monotonic clock); the device counters are sampled again as
 *    soon as the main thread hears the last worker is done.
 * 6. **Verdict** (verdict.ts). Residency after, the cover counters (every
 *    block read exactly once? cover-check.ts), each worker's runs of
 *    consecutive blocks as it actually read them, the device's read count
 *    and average request size, and whether the file changed size underneath.
 *
 * An AbortSignal raises the abort flag: workers stop before their next read
 * and the promise resolves with what was read so far, `aborted: true`.
 *
 * All participants are workers; the calling thread only coordinates (in
 * PostgreSQL the leader also scans unless parallel_leader_participation is
 * off: count it as one of the workers).
 */
import { prepareCache } from "./cache-report.js";
import { checkScanOptions, type ScanOptions } from "./scan-options.js";
import { settleTarget } from "./scan-target.js";
import { startWorkers } from "./scan-workers.js";
import { createSharedMemory } from "./shared-memory.js";
import { runTimedWindow } from "./timed-window.js";
import { type ScanResult, verdict } from "./verdict.js";

/**
 * Scans a file (or a PostgreSQL relation's segment files) with `workers`
 * worker threads that take blocks from a shared PostgreSQL-style allocator
 * and read each one with a synchronous positioned read, and reports what
 * they read, how fast, what the page cache held and what the device did.
 *
 * @param target path of the file, or of a relation's first segment.
 * @param options workers, policy, block size, work, eviction, syncscan, abort, progress.
 * @throws {@link FileScanError} for a missing, unreadable, empty or
 *   non-regular target, a bad option, a work module that does not load or
 *   throws, or a read error; `AllocatorError` (from
 *   `@scanlab/block-allocator`) for a bad policy option. Both carry
 *   `userError = true`.
 * @example
 * ```ts
 * import { scanFile } from "@scanlab/file-scan";
 *
 * const r = await scanFile("/var/lib/postgresql/15/main/base/5/16384", {
 *   workers: 2,
 *   policy: { kind: "pg14" },
 *   evict: true,
 * });
 * console.log(r.cache.state, r.mibPerS.toFixed(0), "MiB/s", r.cover.exact);
 * if (r.device.available) console.log(r.device.reads, "reads of", r.device.avgRequestBytes, "bytes");
 * ```
 */
export async function scanFile(target: string, options: ScanOptions = {}): Promise<ScanResult> {
  const request = checkScanOptions(target, options);
  const settled = settleTarget(request);
  const cache = await prepareCache(settled.target, request);
  const shared = createSharedMemory(request.workers, settled.cover, settled.target.nblocks);
  const workers = startWorkers(request, settled, shared);
  const window = await runTimedWindow(workers, shared, settled.target, request);
  return verdict(request, settled, cache, shared, window);
}
