/**
 * A backend's private buffer pin bookkeeping (PrivateRefCountArray and
 * PrivateRefCountHash in src/backend/storage/buffer/bufmgr.c), as far as
 * PostgreSQL 18's per-read pin check can see it.
 *
 * The problem. From PG18 a read stream asks GetAdditionalPinLimit() before
 * every read how many more buffers this backend may pin. The answer is not
 * computed from the pins the backend really holds: bufmgr.c keeps its pins in
 * an array of REFCOUNT_ARRAY_ENTRIES (8) entries plus a hash table for the
 * overflow, and counting the array is deemed not worth it, so the estimate is
 * "the whole array is in use, plus every entry in the hash"
 * (PrivateRefCountOverflowed + REFCOUNT_ARRAY_ENTRIES).
 *
 * The insight. The estimate is larger than the truth whenever the array has
 * free entries while the hash is not empty, and how often that happens
 * depends on the order of pins and unpins, not only on their number. Entries
 * go to the hash when a pin finds the array full: the entry at the array's
 * clock hand (PrivateRefCountClock, advanced one slot per move) is moved out
 * to make room. They come back only when the buffer is unpinned (the entry is
 * dropped) or referenced again with IncrBufferRefCount or PinBuffer, which
 * move a hashed entry back into the array (GetPrivateRefCountEntry with
 * do_move), pushing out another entry if the array is full. A heap scan's
 * tuple slot references every page it returns tuples from
 * (ExecStoreBufferHeapTuple -> IncrBufferRefCount), so the page just handed
 * out is pulled back into the array and a younger pin of the stream's is
 * pushed out in its place: the hash stays as large as before, the array gets
 * a free entry, and the estimate drifts above the pins really held.
 *
 * Design choices. Buffers are named by any number unique while pinned (the
 * read stream uses block numbers). A buffer pinned twice by one
 * backend has one entry with a count, as in bufmgr.c. The reserved entry
 * (ReservedRefCountEntry) is kept, because it decides which slot the next pin
 * fills: a freed array entry becomes the reserved one.
 *
 * Interface: pin(buffer) (PinBuffer, IncrBufferRefCount), unpin(buffer)
 * (ReleaseBuffer; the entry goes with the last pin), pinsOn(buffer), and
 * estimatedPinsHeld, what GetAdditionalPinLimit subtracts from the backend's
 * proportional share.
 */
import { REFCOUNT_ARRAY_ENTRIES } from "./read-stream-limits.js";

const FREE = -1;

/** bufmgr.c's PrivateRefCountArray, overflow hash, clock hand and reserved entry for one backend. */
export class PrivateRefCount {
  private readonly buffers = new Float64Array(REFCOUNT_ARRAY_ENTRIES).fill(FREE);
  private readonly counts = new Int32Array(REFCOUNT_ARRAY_ENTRIES);
  private readonly overflow = new Map<number, number>();
  private clock = 0;
  private reserved = -1;

  /** PrivateRefCountOverflowed + REFCOUNT_ARRAY_ENTRIES: the pins GetAdditionalPinLimit assumes held. */
  get estimatedPinsHeld(): number {
    return this.overflow.size + REFCOUNT_ARRAY_ENTRIES;
  }

  /** Entries in the overflow hash (PrivateRefCountOverflowed). */
  get overflowed(): number {
    return this.overflow.size;
  }

  /** Pins this backend holds on `buffer` (GetPrivateRefCount). */
  pinsOn(buffer: number): number {
    const i = this.buffers.indexOf(buffer);
    return i >= 0 ? (this.counts[i] as number) : (this.overflow.get(buffer) ?? 0);
  }

  /**
   * PinBuffer or IncrBufferRefCount: one more pin of `buffer`. A held buffer's
   * entry found in the hash moves back into the array; a buffer not held takes
   * the reserved entry.
   */
  pin(buffer: number): void {
    const buffers = this.buffers;
    for (let i = 0; i < REFCOUNT_ARRAY_ENTRIES; i++) {
      if (buffers[i] === buffer) {
        this.counts[i] = (this.counts[i] as number) + 1;
        return;
      }
    }
    let count = 1;
    if (this.overflow.size > 0) {
      const hashed = this.overflow.get(buffer);
      if (hashed !== undefined) {
        count = hashed + 1;
        this.overflow.delete(buffer);
      }
    }
    this.reserve();
    buffers[this.reserved] = buffer;
    this.counts[this.reserved] = count;
    this.reserved = -1;
  }

  /** ReleaseBuffer: one pin of `buffer` goes; with its last, the entry goes and a freed array entry becomes the reserved one. */
  unpin(buffer: number): void {
    const buffers = this.buffers;
    for (let i = 0; i < REFCOUNT_ARRAY_ENTRIES; i++) {
      if (buffers[i] === buffer) {
        const left = (this.counts[i] as number) - 1;
        this.counts[i] = left;
        if (left === 0) {
          buffers[i] = FREE;
          this.reserved = i;
        }
        return;
      }
    }
    const hashed = this.overflow.get(buffer);
    if (hashed === undefined) throw new Error(`buffer ${buffer} is not pinned`);
    if (hashed > 1) this.overflow.set(buffer, hashed - 1);
    else this.overflow.delete(buffer);
  }

  /** ReservePrivateRefCountEntry: a free array entry, else the one at the clock hand, moved to the hash. */
  private reserve(): void {
    if (this.reserved >= 0) return;
    const buffers = this.buffers;
    for (let i = 0; i < REFCOUNT_ARRAY_ENTRIES; i++) {
      if (buffers[i] === FREE) {
        this.reserved = i;
        return;
      }
    }
    const victim = this.clock++ % REFCOUNT_ARRAY_ENTRIES;
    this.overflow.set(buffers[victim] as number, this.counts[victim] as number);
    buffers[victim] = FREE;
    this.counts[victim] = 0;
    this.reserved = victim;
  }
}
