/**
 * Shared buffers: PostgreSQL's own cache of relation pages, in front of the
 * OS page cache, as a read-only scan sees it.
 *
 * The problem. How fast a scan runs depends on which of its blocks are
 * already in shared buffers: blocks an earlier run or a concurrent scan left
 * there are hits, the rest are reads from the OS. Which blocks those are
 * follows from replacement: which buffer each miss takes, what a hit
 * protects, and whether a large scan pushes everything else out or only
 * recycles a ring. A simulator asks this for every block of scans that reach
 * PostgreSQL's 2^32 - 1 blocks, so the answer must be cheap per block and
 * cheaper still for a run of blocks.
 *
 * The insight. A read-only scan observes four parts of the buffer manager
 * (src/backend/storage/buffer/: bufmgr.c, freelist.c, buf_table.c, and
 * src/include/storage/buf_internals.h), and only these change its timing:
 * the mapping from a buffer tag to a buffer (BufTableLookup); the clock sweep
 * over usage counts capped at BM_MAX_USAGE_COUNT (StrategyGetBuffer, and
 * PinBuffer, which raises the count); the BAS_BULKREAD ring a large scan
 * recycles (GetAccessStrategy, GetBufferFromRing; apps/docs/src/reference/buffer-ring.md#ring-replacement);
 * and when a buffer being read in becomes valid (BM_IO_IN_PROGRESS: a
 * backend that finds it waits in WaitIO). So those four, over typed arrays,
 * are the whole model.
 *
 * Design choices, with reasons:
 * - NBuffers descriptors, each with a tag, a usage count and a valid-at time.
 *   A tag is one number, relation x 2^32 + block: BlockNumber is 32 bits, so
 *   tags of different relations never meet, and a number needs no allocation.
 * - The mapping table (buffer-map.ts) is an open-addressing hash over typed
 *   arrays, not a partitioned dynahash: the partition locks cost nothing in a
 *   single-threaded model, and every miss of a long scan goes through it.
 * - Beside the map, a bitset per relation of the blocks in the pool, so that
 *   "is any block of [start, end) resident?" is a word-wise scan
 *   ({@link SharedBuffers.firstResident}): a caller moves over a long run of
 *   misses with one question, not one per block.
 * - The free list is the clock hand's first lap. Buffers are filled in order
 *   and never given back (nothing drops a relation), so the next empty buffer
 *   at the hand is the one StrategyGetBuffer's free list would hand out, and
 *   the hand stands where PostgreSQL's stands once the list is empty.
 * - A hit raises the usage count by one, up to BM_MAX_USAGE_COUNT; a hit
 *   through a strategy (ring) only from 0 to 1 (PinBuffer), so ring scans
 *   never push the rest of the pool out.
 * - A ring ({@link BufferRing}) belongs to one scan: each miss moves its
 *   cursor; an empty slot takes a clock-sweep victim, a slot whose buffer has
 *   usage count <= 1 is reused, any other slot gets a new victim
 *   (GetBufferFromRing; pins are not modelled, so "not pinned" always holds).
 *   Its size comes from {@link bulkReadRingSize}: apps/docs/src/reference/buffer-ring.md#ring-size-by-version.
 * - Valid-at times, not flags: the model has no clock. The caller installs a
 *   run with the time its read completes, and a hit returns the buffer's
 *   time, so a scan that finds a buffer still being read waits for that read
 *   (WaitIO) and one that finds it valid does not.
 * - Run-level install ({@link SharedBuffers.installRun}): a run of misses
 *   through a ring installs only what the ring still holds at the end of the
 *   run, its last `ring.size` blocks. The blocks before them were evicted by
 *   later blocks of the same run; only a scan running within one ring of this
 *   one could have hit them, and it finds the same pages in the OS page cache
 *   instead. That small cost difference is the one approximation here.
 * - Hits, misses and evictions are public counters: a caller that skips work
 *   it has measured (a simulator's fast path) adds what the skipped work
 *   would have counted.
 *
 * Scope: a read-only scan's view. Not modelled: pins and the backend's
 * private refcounts (a scan pins a handful of buffers at a time; see
 * `@scanlab/read-stream`'s `PrivateRefCount`), dirty buffers, writes and the
 * background writer, StrategyRejectBuffer (it acts on dirty buffers only),
 * the BULKWRITE and VACUUM rings, local buffers, and locks. Which scans get a
 * ring (a relation larger than NBuffers / 4: apps/docs/src/reference/synchronized-scans.md#serial-scans)
 * and which version sizes the ring how are the caller's decisions: the
 * package takes the answers as plain inputs.
 *
 * Interface routines:
 * - `new SharedBuffers({ nBuffers, relationBlocks })`: the pool, empty.
 * - {@link SharedBuffers.isResident}: BufTableLookup (what PrefetchBuffer asks,
 *   apps/docs/src/reference/bitmap-heap-scan-prefetch.md#prefetchbuffer).
 * - {@link SharedBuffers.firstResident}: the first resident block of a range.
 * - {@link SharedBuffers.hit}: a lookup that found the block (PinBuffer's
 *   usage count, WaitIO's wait).
 * - {@link SharedBuffers.installRun}: misses of consecutive blocks, each taking
 *   a buffer from the clock sweep or a ring (BufferAlloc).
 * - {@link SharedBuffers.residentCount}: what pg_buffercache counts for a
 *   relation.
 * - `renumberBuffers` (`@scanlab/buffer-manager/sim`): a relation renumbered
 *   under the pool.
 */

import type { Renumbering } from "@scanlab/core/sim";
import { BufferMap, TAG_TABLE_STRIDE } from "./buffer-map.js";
import { BufferManagerError } from "./errors.js";
import type { BufferRing } from "./ring.js";

/** BM_MAX_USAGE_COUNT (src/include/storage/buf_internals.h): the most a buffer's usage count reaches. */
export const BM_MAX_USAGE_COUNT = 5;

/** The fewest buffers shared_buffers accepts (16, guc_tables.c). */
const MIN_NBUFFERS = 16;
/** The most: INT_MAX / 2 (guc_tables.c). */
const MAX_NBUFFERS = 1073741823;
/** MaxBlockNumber + 1 (src/include/storage/block.h): the most blocks a relation has. */
const MAX_RELATION_BLOCKS = 0xffffffff;

/** The key of the pool's renumbering hook, reached only through `@scanlab/buffer-manager/sim`. */
export const RENUMBER: unique symbol = Symbol("@scanlab/buffer-manager renumber");

const NO_BUFFER = -1;

/** Options of {@link SharedBuffers}. */
export interface SharedBuffersOptions {
  /** NBuffers: shared_buffers in 8 kB buffers, a whole number from 16 to INT_MAX / 2 (guc_tables.c). */
  readonly nBuffers: number;
  /**
   * The size in blocks of each relation the pool will hold: relation `i` of
   * every call is the one of `relationBlocks[i]`. Whole numbers from 0 to
   * 2^32 - 1 (MaxBlockNumber + 1).
   */
  readonly relationBlocks: readonly number[];
}

function bitsetFor(blocks: number): Uint32Array {
  return new Uint32Array(Math.ceil(blocks / 32) + 1);
}

/**
 * The shared buffer pool of one PostgreSQL instance (see the header of
 * shared-buffers.ts for what is modelled and what is not). Times are in the
 * caller's unit (the simulator's microseconds).
 *
 * @example
 * ```ts
 * import { BufferRing, SharedBuffers } from "@scanlab/buffer-manager";
 * const pool = new SharedBuffers({ nBuffers: 64, relationBlocks: [1000] });
 * pool.installRun(0, 0, 1000, new BufferRing(8), 250); // a large scan's misses through an 8-buffer ring
 * [pool.residentCount(0), pool.firstResident(0, 0, 1000)]; // [8, 992]: only the ring's last blocks stay
 * pool.hit(0, 995, true); // 250: valid once the read completes
 * ```
 */
export class SharedBuffers {
  /** NBuffers. */
  readonly nbuffers: number;
  private readonly tag: Float64Array; // relation * 2^32 + block, or -1
  private readonly usage: Uint8Array;
  private readonly validAt: Float64Array;
  private readonly map: BufferMap;
  private readonly residentBits: Uint32Array[] = [];
  private hand = 0;
  /** Lookups that found their block ({@link hit}). A caller may add hits it accounted for itself. */
  hits = 0;
  /** Blocks installed after a miss ({@link installRun}). A caller may add misses it accounted for itself. */
  misses = 0;
  /** Installs that pushed another block out. A caller may add evictions it accounted for itself. */
  evictions = 0;
  /**
   * Installs into a buffer never used since the pool was created (the free
   * list's first lap). Its memory is touched for the first time: with
   * PostgreSQL's anonymous shared mapping (sysv_shmem.c,
   * CreateAnonymousSegment) that is where the kernel faults its pages in.
   */
  firstUses = 0;

  /** @throws `BufferManagerError` `BUFFER_MANAGER_BAD_NBUFFERS` or `BUFFER_MANAGER_BAD_RELATION_BLOCKS`. */
  constructor(options: SharedBuffersOptions) {
    const { nBuffers, relationBlocks } = options;
    if (!Number.isInteger(nBuffers) || nBuffers < MIN_NBUFFERS || nBuffers > MAX_NBUFFERS)
      throw new BufferManagerError(
        "BUFFER_MANAGER_BAD_NBUFFERS",
        `nBuffers must be a whole number from ${MIN_NBUFFERS} to ${MAX_NBUFFERS} (shared_buffers in guc_tables.c), got ${String(nBuffers)}.`,
      );
    relationBlocks.forEach((blocks, i) => {
      if (!Number.isInteger(blocks) || blocks < 0 || blocks > MAX_RELATION_BLOCKS)
        throw new BufferManagerError(
          "BUFFER_MANAGER_BAD_RELATION_BLOCKS",
          `relationBlocks[${i}] must be a whole number from 0 to ${MAX_RELATION_BLOCKS} (MaxBlockNumber + 1), got ${String(blocks)}.`,
        );
    });
    this.nbuffers = nBuffers;
    this.tag = new Float64Array(nBuffers).fill(-1);
    this.usage = new Uint8Array(nBuffers);
    this.validAt = new Float64Array(nBuffers);
    this.map = new BufferMap(nBuffers);
    for (const blocks of relationBlocks) this.residentBits.push(bitsetFor(blocks));
  }

  /** First resident block of `relation` in [start, end), or -1. Word-wise, so cheap for long runs of misses. */
  firstResident(relation: number, start: number, end: number): number {
    const bits = this.residentBits[relation]!;
    let b = start;
    while (b < end) {
      const w = b >>> 5;
      const word = bits[w]! >>> (b & 31);
      if (word !== 0) {
        const found = b + (31 - Math.clz32(word & -word));
        return found < end ? found : -1;
      }
      // Block numbers reach 2^32 - 2: `(w + 1) << 5` would wrap to a negative int32 past 2^31.
      b = (w + 1) * 32;
    }
    return -1;
  }

  /** Whether `block` of `relation` is in shared buffers (BufTableLookup, as PrefetchBuffer asks). */
  isResident(relation: number, block: number): boolean {
    const bits = this.residentBits[relation]!;
    return (bits[block >>> 5]! & (1 << (block & 31))) !== 0;
  }

  /**
   * Records a hit on a resident block and returns when its buffer is valid:
   * a hit on a buffer still being read waits for that read (WaitIO). The
   * usage count goes up by one to {@link BM_MAX_USAGE_COUNT}, or, through a
   * ring (`viaRing`), only from 0 to 1 (PinBuffer). A block that is not
   * resident counts nothing and returns -Infinity.
   */
  hit(relation: number, block: number, viaRing: boolean): number {
    const id = this.map.get(relation, block);
    if (id < 0) return Number.NEGATIVE_INFINITY;
    this.hits++;
    const u = this.usage[id]!;
    if (viaRing) {
      if (u === 0) this.usage[id] = 1;
    } else if (u < BM_MAX_USAGE_COUNT) this.usage[id] = u + 1;
    return this.validAt[id]!;
  }

  /**
   * Installs `blocks` consecutive missed blocks of `relation` from `start`
   * (none of them resident), through `ring` if given, else from the clock
   * sweep; they become valid at `validAt` (when their reader has them). Through
   * a ring only the run's last `ring.size` blocks stay (see the header).
   * Returns how many of them went into a buffer never used before
   * ({@link firstUses}).
   */
  installRun(
    relation: number,
    start: number,
    blocks: number,
    ring: BufferRing | null,
    validAt: number,
  ): number {
    this.misses += blocks;
    const firstUses = this.firstUses;
    if (ring === null) {
      for (let i = 0; i < blocks; i++) this.install(relation, start + i, this.clockVictim(), validAt);
      return this.firstUses - firstUses;
    }
    // Only the last `ring.size` blocks of the run are still in the ring when the run ends.
    const keep = Math.min(blocks, ring.size);
    for (let i = blocks - keep; i < blocks; i++) {
      ring.cursor = (ring.cursor + 1) % ring.size;
      const slot = ring.slots[ring.cursor]!;
      let id: number;
      if (slot !== NO_BUFFER && this.usage[slot]! <= 1) id = slot;
      else id = this.clockVictim();
      ring.slots[ring.cursor] = id;
      this.install(relation, start + i, id, validAt);
    }
    return this.firstUses - firstUses;
  }

  /** Number of buffers holding a block of `relation` (what pg_buffercache counts). */
  residentCount(relation: number): number {
    let n = 0;
    for (const key of this.tag) if (key >= 0 && Math.floor(key / TAG_TABLE_STRIDE) === relation) n++;
    return n;
  }

  /**
   * Renumbers the blocks of a relation held in the pool (`renumberBuffers` of
   * `@scanlab/buffer-manager/sim`): each buffer keeps its place, usage count
   * and valid-at time under its block's new number. A cut block must not be
   * held.
   */
  [RENUMBER](change: Renumbering): void {
    const relation = change.relation;
    if (!Number.isInteger(relation) || relation < 0 || relation >= this.residentBits.length)
      throw new BufferManagerError(
        "BUFFER_MANAGER_BAD_RENUMBERING",
        `relation ${String(relation)} is not one of the pool's ${this.residentBits.length} relations.`,
      );
    const cutEnd = change.kind === "cut" ? change.at + change.blocks : change.at;
    const moved: number[] = [];
    for (let id = 0; id < this.nbuffers; id++) {
      const key = this.tag[id]!;
      if (key < 0 || Math.floor(key / TAG_TABLE_STRIDE) !== relation) continue;
      const block = key - relation * TAG_TABLE_STRIDE;
      if (block >= change.at && block < cutEnd)
        throw new BufferManagerError(
          "BUFFER_MANAGER_BAD_RENUMBERING",
          `block ${block} of relation ${relation} is in shared buffers but cut out.`,
        );
      this.map.delete(relation, block);
      moved.push(id, change.map(block));
    }
    const bits = bitsetFor(change.nblocks);
    this.residentBits[relation] = bits;
    for (let i = 0; i < moved.length; i += 2) {
      const id = moved[i]!;
      const block = moved[i + 1]!;
      this.tag[id] = relation * TAG_TABLE_STRIDE + block;
      this.map.set(relation, block, id);
      bits[block >>> 5]! |= 1 << (block & 31);
    }
  }

  private install(relation: number, block: number, id: number, validAt: number): void {
    const old = this.tag[id]!;
    if (old >= 0) {
      const t = Math.floor(old / TAG_TABLE_STRIDE);
      const b = old - t * TAG_TABLE_STRIDE;
      this.map.delete(t, b);
      this.residentBits[t]![b >>> 5]! &= ~(1 << (b & 31));
      this.evictions++;
    } else this.firstUses++;
    const key = relation * TAG_TABLE_STRIDE + block;
    this.tag[id] = key;
    this.usage[id] = 1;
    this.validAt[id] = validAt;
    this.map.set(relation, block, id);
    this.residentBits[relation]![block >>> 5]! |= 1 << (block & 31);
  }

  /** The clock sweep (StrategyGetBuffer without a strategy); an empty buffer first (the free list's lap). */
  private clockVictim(): number {
    for (;;) {
      const id = this.hand;
      this.hand = (this.hand + 1) % this.nbuffers;
      if (this.tag[id]! < 0) return id;
      const u = this.usage[id]!;
      if (u === 0) return id;
      this.usage[id] = u - 1;
    }
  }
}
