/**
 * How many scan workers this machine runs: a limit that names its cores and
 * its memory.
 *
 * The problem. Each scan worker is a Node worker thread, and a worker thread
 * is a V8 isolate of its own: about 9 MiB of resident memory before it reads
 * a byte, whatever the file (measured with `scanlab scan --workers N` on a
 * 64 MB file, Node 20: resident memory grows 8.8 MB per worker from 1 to 64
 * workers). PostgreSQL's own bound, 1024 (MAX_PARALLEL_WORKER_LIMIT), would
 * ask for 9 GB of threads, and a thousand threads on a few cores measure
 * the scheduler, not the device.
 *
 * The insight. A worker's buffer is already one block (worker.ts), so the
 * cost is the thread itself: the count is what must be bounded, by the cores
 * that run the threads and by the memory their isolates take.
 *
 * Choices (scanlab's, not PostgreSQL figures):
 * - {@link WORKERS_PER_CORE} = 16: a scan waiting on reads gains from more
 *   reads in flight than cores (that is what parallel workers on a slow
 *   device do), but past 16 per core the threads only queue for the CPU.
 * - {@link SCAN_WORKERS_MEMORY_BYTES} = 768 MiB for the threads, so a scan
 *   stays under 1 GB with its own buffers and cover counters.
 * - A count over the limit is refused with a sentence naming both bounds,
 *   rather than silently lowered: the worker count is the experiment.
 */
import { availableParallelism } from "node:os";
import { FileScanError } from "./errors.js";

/** Scan workers per core at most (see the header). */
export const WORKERS_PER_CORE = 16;
/** Resident memory of one worker thread, measured (see the header): 9 MiB. */
export const WORKER_THREAD_BYTES = 9 * 1024 * 1024;
/** Memory the scan's worker threads may take together: 768 MiB (see the header). */
export const SCAN_WORKERS_MEMORY_BYTES = 768 * 1024 * 1024;

/** The most scan workers a machine with `cores` cores runs (default: this process's available parallelism). */
export function maxScanWorkers(cores: number = availableParallelism()): number {
  return Math.max(
    1,
    Math.min(WORKERS_PER_CORE * cores, Math.floor(SCAN_WORKERS_MEMORY_BYTES / WORKER_THREAD_BYTES)),
  );
}

/** Refuses a worker count over {@link maxScanWorkers} with one sentence naming the limit. */
export function checkWorkerCount(workers: number, cores: number = availableParallelism()): void {
  const limit = maxScanWorkers(cores);
  if (workers <= limit) return;
  throw new FileScanError(
    "FILESCAN_TOO_MANY_WORKERS",
    `${workers} workers is over this machine's limit of ${limit} scan workers (${WORKERS_PER_CORE} per core on ${cores} core${cores === 1 ? "" : "s"}, and ${Math.floor(SCAN_WORKERS_MEMORY_BYTES / 1024 ** 2)} MiB for threads of about ${WORKER_THREAD_BYTES / 1024 ** 2} MiB each): use at most ${limit}.`,
  );
}
