/**
 * The tracker in a SharedArrayBuffer, for scans running in worker threads.
 *
 * PostgreSQL keeps the syncscan list in shared memory under one LWLock,
 * SyncScanLock (apps/docs/src/reference/synchronized-scans.md#syncscan-constants): a backend looking up where to start takes it
 * exclusively and waits if it must; a backend reporting its position uses a
 * conditional acquire and, if the lock is busy, simply skips the report.
 * Here the list (lru.ts, the same code the in-process tracker runs) lives in
 * an Int32Array over a SharedArrayBuffer, and word 0 is the lock, a
 * three-state futex word (0 free, 1 held, 2 held with possible waiters; the
 * classic scheme of Drepper's "Futexes Are Tricky"):
 *
 * - try-acquire (reporters): compareExchange 0 -> 1, nothing else;
 * - acquire (readers): compareExchange 0 -> 1; if that fails, mark the word 2
 *   and sleep in Atomics.wait until woken, then exchange in 2 and retry;
 * - release: exchange in 0; if the old value was 2, Atomics.notify one sleeper.
 *
 * All other words are read and written only by the lock holder; the
 * sequentially consistent Atomics operations on the lock word order them.
 * Where Atomics.wait is not allowed (a browser's main thread) the reader
 * spins instead. A thread that dies holding the lock leaves it held, as a
 * crashed backend holding an LWLock would take the server down.
 *
 * The configuration (slot count, report interval) lives in the header, so a
 * worker only needs the buffer: `SharedSyncScanTracker.attach(buffer)`.
 */
import { SYNC_SCAN_NELEM } from "./constants.js";
import { SyncScanError } from "./errors.js";
import {
  DROPPED_WORD,
  LOCK_WORD,
  lruWords,
  MAGIC_WORD,
  NELEM_WORD,
  REPORT_INTERVAL_WORD,
  TRACKER_MAGIC,
} from "./lru.js";
import { newTrackerWords, SyncScanTrackerBase, type SyncScanTrackerOptions } from "./tracker.js";
import { checkNelem } from "./validate.js";

/** Lock word values. */
const FREE = 0;
const HELD = 1;
const HELD_WAITERS = 2;

/**
 * Bytes of SharedArrayBuffer a tracker with `nelem` slots needs
 * (4 bytes x (8 header words + 5 words per slot)).
 *
 * @example
 * ```ts
 * import { sharedSyncScanBytes } from "@scanlab/syncscan";
 * sharedSyncScanBytes(20); // 432
 * ```
 */
export function sharedSyncScanBytes(nelem: number = SYNC_SCAN_NELEM): number {
  return lruWords(checkNelem(nelem)) * Int32Array.BYTES_PER_ELEMENT;
}

/**
 * A syncscan tracker in a SharedArrayBuffer: create it in one thread, pass
 * {@link SharedSyncScanTracker.buffer} to workers (postMessage or workerData),
 * and attach there. Every thread sees one list and one lock.
 *
 * @example
 * ```ts
 * import { SharedSyncScanTracker } from "@scanlab/syncscan";
 * const tracker = SharedSyncScanTracker.create();
 * // in a worker: const t = SharedSyncScanTracker.attach(workerData.buffer);
 * const again = SharedSyncScanTracker.attach(tracker.buffer);
 * tracker.reportLocation(7, 4096);
 * again.getLocation(7, 100_000); // 4096: same shared list
 * ```
 */
export class SharedSyncScanTracker extends SyncScanTrackerBase {
  /** The shared memory holding the lock, the configuration and the list. */
  readonly buffer: SharedArrayBuffer;
  /** False once Atomics.wait has thrown (a thread that may not block); readers then spin. */
  private canWait = true;

  private constructor(buffer: SharedArrayBuffer) {
    super(new Int32Array(buffer));
    this.buffer = buffer;
  }

  /** A new, empty tracker in a fresh SharedArrayBuffer. Throws {@link SyncScanError} on bad options. */
  static create(options: SyncScanTrackerOptions = {}): SharedSyncScanTracker {
    return new SharedSyncScanTracker(
      newTrackerWords(options, (bytes) => new SharedArrayBuffer(bytes)).buffer,
    );
  }

  /**
   * Attach to a tracker created by {@link SharedSyncScanTracker.create} (in
   * any thread). Throws {@link SyncScanError} if the buffer is not one.
   */
  static attach(buffer: SharedArrayBuffer): SharedSyncScanTracker {
    const ok =
      typeof SharedArrayBuffer !== "undefined" &&
      buffer instanceof SharedArrayBuffer &&
      buffer.byteLength >= lruWords(2) * 4 &&
      buffer.byteLength % 4 === 0;
    if (ok) {
      const words = new Int32Array(buffer);
      const nelem = words[NELEM_WORD]!;
      if (
        Atomics.load(words, MAGIC_WORD) === TRACKER_MAGIC &&
        nelem >= 2 &&
        buffer.byteLength === lruWords(nelem) * 4 &&
        words[REPORT_INTERVAL_WORD]! >= 1
      ) {
        return new SharedSyncScanTracker(buffer);
      }
    }
    throw new SyncScanError(
      "SYNCSCAN_BAD_BUFFER",
      "The buffer is not a syncscan tracker made by SharedSyncScanTracker.create().",
    );
  }

  protected lock(): void {
    const w = this.words;
    let c = Atomics.compareExchange(w, LOCK_WORD, FREE, HELD);
    if (c === FREE) return;
    if (c !== HELD_WAITERS) c = Atomics.exchange(w, LOCK_WORD, HELD_WAITERS);
    while (c !== FREE) {
      this.sleepWhileHeld();
      c = Atomics.exchange(w, LOCK_WORD, HELD_WAITERS);
    }
  }

  private sleepWhileHeld(): void {
    if (this.canWait) {
      try {
        Atomics.wait(this.words, LOCK_WORD, HELD_WAITERS);
        return;
      } catch {
        this.canWait = false; // e.g. a browser main thread: fall through to spinning
      }
    }
    while (Atomics.load(this.words, LOCK_WORD) === HELD_WAITERS) {
      // spin: nothing else to do on a thread that may not block
    }
  }

  protected tryLock(): boolean {
    return Atomics.compareExchange(this.words, LOCK_WORD, FREE, HELD) === FREE;
  }

  protected unlock(): void {
    if (Atomics.exchange(this.words, LOCK_WORD, FREE) === HELD_WAITERS) {
      Atomics.notify(this.words, LOCK_WORD, 1);
    }
  }

  protected countDropped(): void {
    Atomics.add(this.words, DROPPED_WORD, 1);
  }
}
