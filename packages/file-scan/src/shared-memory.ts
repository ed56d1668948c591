/**
 * The memory a scan's main thread shares with its workers, besides the
 * allocator's state: the control block and the cover counters.
 *
 * Problem. The main thread has to start every worker at one moment, stop
 * them all on abort, and follow their progress while they read; afterwards
 * it has to know how often each block was read. A message per block would
 * cost more than the read itself on a warm cache (worker-protocol.ts).
 *
 * Design choices.
 * - SharedArrayBuffers, laid out as worker-protocol.ts says: a control block
 *   with the start flag, the abort flag and one progress word per worker;
 *   and, for the "counter" cover method only, one byte per block
 *   (cover-check.ts), which is the larger of the two by far.
 * - The allocator's shared state is the third piece; it is created with the
 *   target's size (scan-target.ts). A syncscan tracker, when there is one,
 *   belongs to the caller and outlives the scan.
 * - The views the main thread reads and writes (flags, progress words) are
 *   made here once, next to the buffer they view.
 *
 * Interface: {@link createSharedMemory}.
 */
import type { CoverMethod } from "./cover-check.js";
import { CONTROL_PROGRESS_BYTE_OFFSET, controlBytes } from "./worker-protocol.js";

/** The control block and cover counters of one scan, with the main thread's views of the control block. */
export interface SharedMemory {
  /** The control block, for the workers. */
  readonly control: SharedArrayBuffer;
  /** The start and abort flags (indices CONTROL_START and CONTROL_ABORT). */
  readonly flags: Int32Array;
  /** Blocks read so far, one word per worker. */
  readonly progress: Uint32Array;
  /** One cover counter per block (cover method "counter"), or null. */
  readonly cover: SharedArrayBuffer | null;
}

/** The control block for `workers` workers, and one cover counter per block when the cover method is "counter". */
export function createSharedMemory(workers: number, cover: CoverMethod, nblocks: number): SharedMemory {
  const control = new SharedArrayBuffer(controlBytes(workers));
  return {
    control,
    flags: new Int32Array(control, 0, 2),
    progress: new Uint32Array(control, CONTROL_PROGRESS_BYTE_OFFSET, workers),
    cover: cover === "counter" ? new SharedArrayBuffer(nblocks) : null,
  };
}
