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
 * Design choices. Buffers are named as PostgreSQL names them, by small
 * integers (buffer ids below a capacity given at construction; the read
 * stream uses its queue positions, which are distinct for every buffer it or
 * its consumer holds). That keeps every operation a few typed-array accesses:
 * the stream calls it for every block. A buffer pinned twice by one backend
 * has one entry with a count, as in bufmgr.c. The reserved entry
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
/** `where` of a buffer that is not pinned; of one whose entry is in the hash. */
const NOT_PINNED = -1;
const IN_HASH = REFCOUNT_ARRAY_ENTRIES;

/** bufmgr.c's PrivateRefCountArray, overflow hash, clock hand and reserved entry for one backend. */
export class PrivateRefCount {
  private readonly entryBuffer = new Int32Array(REFCOUNT_ARRAY_ENTRIES).fill(FREE);
  private readonly entryCount = new Int32Array(REFCOUNT_ARRAY_ENTRIES);
  /** Per buffer: its array entry, IN_HASH, or NOT_PINNED. */
  private readonly where: Int8Array;
  /** Per buffer whose entry is in the hash: its pin count. */
  private readonly hashCount: Int32Array;
  private hashed = 0;
  /** Array entries holding no buffer (the reserved one included). */
  private free = REFCOUNT_ARRAY_ENTRIES;
  private clock = 0;
  private reserved = -1;

  /** @param buffers buffer ids are integers from 0 to `buffers` - 1. */
  constructor(buffers: number) {
    if (!Number.isInteger(buffers) || buffers < 1) {
      throw new RangeError(`buffers must be a positive integer, got ${String(buffers)}`);
    }
    this.where = new Int8Array(buffers).fill(NOT_PINNED);
    this.hashCount = new Int32Array(buffers);
  }

  /** PrivateRefCountOverflowed + REFCOUNT_ARRAY_ENTRIES: the pins GetAdditionalPinLimit assumes held. */
  get estimatedPinsHeld(): number {
    return this.hashed + REFCOUNT_ARRAY_ENTRIES;
  }

  /** Entries in the overflow hash (PrivateRefCountOverflowed). */
  get overflowed(): number {
    return this.hashed;
  }

  /** Pins this backend holds on `buffer` (GetPrivateRefCount). */
  pinsOn(buffer: number): number {
    const w = this.where[buffer] ?? NOT_PINNED;
    if (w === NOT_PINNED) return 0;
    return w === IN_HASH ? (this.hashCount[buffer] as number) : (this.entryCount[w] as number);
  }

  /**
   * PinBuffer or IncrBufferRefCount: one more pin of `buffer`. A held buffer's
   * entry found in the hash moves back into the array; a buffer not held takes
   * the reserved entry.
   */
  pin(buffer: number): void {
    const w = this.where[buffer];
    if (w === undefined) throw new RangeError(`buffer ${buffer} is not below ${this.where.length}`);
    if (w !== NOT_PINNED && w !== IN_HASH) {
      this.entryCount[w] = (this.entryCount[w] as number) + 1;
      return;
    }
    let count = 1;
    if (w === IN_HASH) {
      count = (this.hashCount[buffer] as number) + 1;
      this.hashed--;
    }
    this.reserve();
    const e = this.reserved;
    this.free--;
    this.entryBuffer[e] = buffer;
    this.entryCount[e] = count;
    this.where[buffer] = e;
    this.reserved = -1;
  }

  /** ReleaseBuffer: one pin of `buffer` goes; with its last, the entry goes and a freed array entry becomes the reserved one. */
  unpin(buffer: number): void {
    const w = this.where[buffer] ?? NOT_PINNED;
    if (w === NOT_PINNED) throw new Error(`buffer ${buffer} is not pinned`);
    if (w === IN_HASH) {
      const left = (this.hashCount[buffer] as number) - 1;
      this.hashCount[buffer] = left;
      if (left === 0) {
        this.where[buffer] = NOT_PINNED;
        this.hashed--;
      }
      return;
    }
    const left = (this.entryCount[w] as number) - 1;
    this.entryCount[w] = left;
    if (left === 0) {
      this.entryBuffer[w] = FREE;
      this.where[buffer] = NOT_PINNED;
      this.reserved = w;
      this.free++;
    }
  }

  /** ReservePrivateRefCountEntry: a free array entry, else the one at the clock hand, moved to the hash. */
  private reserve(): void {
    if (this.reserved >= 0) return;
    const entries = this.entryBuffer;
    if (this.free > 0) {
      for (let i = 0; i < REFCOUNT_ARRAY_ENTRIES; i++) {
        if (entries[i] === FREE) {
          this.reserved = i;
          return;
        }
      }
    }
    const victim = this.clock++ % REFCOUNT_ARRAY_ENTRIES;
    const moved = entries[victim] as number;
    this.where[moved] = IN_HASH;
    this.hashCount[moved] = this.entryCount[victim] as number;
    this.hashed++;
    entries[victim] = FREE;
    this.entryCount[victim] = 0;
    this.reserved = victim;
    this.free++;
  }
}
