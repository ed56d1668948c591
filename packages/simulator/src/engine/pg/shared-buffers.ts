/**
 * Shared buffers: PostgreSQL's own cache, in front of the OS page cache.
 *
 * The model is PostgreSQL's buffer manager reduced to what a read-only scan
 * can observe (apps/docs/src/reference/buffer-ring.md#ring-size-by-version; src/backend/storage/buffer/freelist.c):
 *
 * - NBuffers = shared_buffers / BLCKSZ descriptors, each holding one
 *   (relation, block) and a usage count capped at BM_MAX_USAGE_COUNT = 5.
 * - Replacement is the clock sweep: the hand walks the descriptors,
 *   decrementing usage counts, and takes the first one at zero.
 * - A normal access (a bitmap heap scan, a scan of a table at most NBuffers/4
 *   blocks) raises the usage count by one.
 * - A sequential scan of a table larger than NBuffers/4 reads through a
 *   BAS_BULKREAD ring: each miss advances the ring cursor; an empty slot takes
 *   a clock-sweep victim; a slot whose buffer has usage count <= 1 is reused;
 *   otherwise the slot is replaced by a new victim. A hit through a strategy
 *   raises the usage count only from 0 to 1, so ring scans never push the rest
 *   of the pool out. Ring size: 256 kB = 32 buffers up to PG17; PG18 grows it
 *   with io_combine_limit x effective_io_concurrency (15f0cb26b5). Every
 *   version caps it at NBuffers / 8.
 * - A buffer being read in is not valid until its reader's read completes
 *   (BM_IO_IN_PROGRESS): another backend that finds it waits for that I/O
 *   (WaitIO) before using it. Each buffer records when it becomes valid.
 * - Pins are not modelled (a read-only scan pins a handful of buffers at a
 *   time); dirty buffers do not occur.
 *
 * Run-level operation. A scan asks "is any block of [start, start+n) resident?"
 * (a word-wise scan of a per-table bitset) and, for a run of misses through a
 * ring, installs only what the ring still holds at the end of the run: the
 * last `ringSize` blocks. Blocks that passed through the ring in between were
 * evicted by later blocks of the same run; nobody could have hit them except
 * a scan running within one ring of this one, which then finds the same pages
 * in the OS page cache instead (a small cost difference, documented here as
 * the approximation it is).
 */

import { pgModel } from "../../scenario/pg-model.js";
import type { PgVersion } from "../../scenario/types.js";
import type { Renumbering } from "../seam/ports.js";
import { BULKREAD_RING_BASE_BUFFERS, bulkReadRingBuffers } from "../seam/shared-leaf.js";
import { BufferMap, TAG_TABLE_STRIDE } from "./buffer-map.js";

/** BM_MAX_USAGE_COUNT (src/include/storage/buf_internals.h). */
export const BM_MAX_USAGE_COUNT = 5;
/** BAS_BULKREAD ring size up to PG17: 256 kB / 8 kB (apps/docs/src/reference/buffer-ring.md#ring-size-by-version). */
export const BULKREAD_RING_BUFFERS_PRE18: number = BULKREAD_RING_BASE_BUFFERS;

/**
 * Auxiliary and background process slots added to max_connections when
 * PostgreSQL 18 sizes the per-backend pin limit with default settings:
 * 16 autovacuum slots, 8 worker processes, 10 WAL senders, 2 special workers
 * and 38 auxiliary slots (apps/docs/src/reference/buffer-ring.md#ring-size-with-pg18-defaults: 100 connections -> 174 in all).
 */
export const PG18_EXTRA_PROCS = 74;

/**
 * Ring size in buffers for a BAS_BULKREAD scan (apps/docs/src/reference/buffer-ring.md#ring-size-by-version): the formula
 * of `@scanlab/core`, with PG18's GetPinLimit() sized from max_connections
 * plus {@link PG18_EXTRA_PROCS}. shared_buffers is at least 16 buffers, so the
 * NBuffers / 8 cap is never below 1.
 */
export function bulkreadRingBuffers(options: {
  pg: string;
  nbuffers: number;
  maxConnections: number;
  ioCombineLimit: number;
  effectiveIoConcurrency: number;
}): number {
  if (pgModel(options.pg as PgVersion).ring === "pg96")
    return bulkReadRingBuffers({ nBuffers: options.nbuffers });
  return bulkReadRingBuffers({
    nBuffers: options.nbuffers,
    pinLimit: Math.floor(options.nbuffers / (options.maxConnections + PG18_EXTRA_PROCS)),
    ioCombineLimit: options.ioCombineLimit,
    effectiveIoConcurrency: options.effectiveIoConcurrency,
  });
}

/** A BAS_BULKREAD ring owned by one scan. */
export class BufferRing {
  readonly slots: Int32Array;
  cursor = -1;
  constructor(readonly size: number) {
    this.slots = new Int32Array(size).fill(-1);
  }
}

const NO_BUFFER = -1;

/** The shared buffer pool of one PostgreSQL instance. */
export class SharedBuffers {
  readonly nbuffers: number;
  private readonly tag: Float64Array; // key = table * 2^32 + block, or -1
  private readonly usage: Uint8Array;
  private readonly validAt: Float64Array;
  private readonly map: BufferMap;
  private readonly residentBits: Uint32Array[] = [];
  private hand = 0;
  /** Counters for results. */
  hits = 0;
  misses = 0;
  evictions = 0;

  constructor(nbuffers: number, tableBlocks: readonly number[]) {
    this.nbuffers = Math.max(16, Math.floor(nbuffers));
    this.tag = new Float64Array(this.nbuffers).fill(-1);
    this.usage = new Uint8Array(this.nbuffers);
    this.validAt = new Float64Array(this.nbuffers);
    this.map = new BufferMap(this.nbuffers);
    for (const blocks of tableBlocks) this.residentBits.push(new Uint32Array(Math.ceil(blocks / 32) + 1));
  }

  /** First resident block of `table` in [start, end), or -1. Word-wise, so cheap for long runs of misses. */
  firstResident(table: number, start: number, end: number): number {
    const bits = this.residentBits[table]!;
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

  /** Whether `block` of `table` is in shared buffers (PrefetchBuffer's test). */
  isResident(table: number, block: number): boolean {
    const bits = this.residentBits[table]!;
    return (bits[block >>> 5]! & (1 << (block & 31))) !== 0;
  }

  /**
   * Records a hit on a resident block (a strategy hit raises the usage count
   * only from 0 to 1) and returns when the buffer is valid: a hit on a buffer
   * still being read waits for that read.
   */
  hit(table: number, block: number, viaRing: boolean): number {
    const id = this.map.get(table, block);
    if (id < 0) return Number.NEGATIVE_INFINITY;
    this.hits++;
    const u = this.usage[id]!;
    if (viaRing) {
      if (u === 0) this.usage[id] = 1;
    } else if (u < BM_MAX_USAGE_COUNT) this.usage[id] = u + 1;
    return this.validAt[id]!;
  }

  /**
   * Installs `blocks` consecutive missed blocks from `start`, through `ring`
   * if given; they become valid at `validAtUs` (when their reader has them).
   */
  installRun(table: number, start: number, blocks: number, ring: BufferRing | null, validAtUs: number): void {
    this.misses += blocks;
    if (ring === null) {
      for (let i = 0; i < blocks; i++) this.install(table, start + i, this.clockVictim(), validAtUs);
      return;
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
      this.install(table, start + i, id, validAtUs);
    }
  }

  /**
   * Renumbers the blocks of a table held in the pool (the warp's cut or
   * restore, speedups/warp.ts): each buffer keeps its place, usage count and
   * readiness, under its block's new number. A cut block must not be held.
   */
  renumberTable(change: Renumbering): void {
    const table = change.relation;
    const cutEnd = change.kind === "cut" ? change.at + change.blocks : change.at;
    const moved: number[] = [];
    for (let id = 0; id < this.nbuffers; id++) {
      const key = this.tag[id]!;
      if (key < 0 || Math.floor(key / TAG_TABLE_STRIDE) !== table) continue;
      const block = key - table * TAG_TABLE_STRIDE;
      if (block >= change.at && block < cutEnd)
        throw new Error(`warp: block ${block} of table ${table} is in shared buffers but cut out`);
      this.map.delete(table, block);
      moved.push(id, change.map(block));
    }
    const bits = new Uint32Array(Math.ceil(change.nblocks / 32) + 1);
    this.residentBits[table] = bits;
    for (let i = 0; i < moved.length; i += 2) {
      const id = moved[i]!;
      const block = moved[i + 1]!;
      this.tag[id] = table * TAG_TABLE_STRIDE + block;
      this.map.set(table, block, id);
      bits[block >>> 5]! |= 1 << (block & 31);
    }
  }

  /** Number of buffers currently holding a block of `table`. */
  residentCount(table: number): number {
    let n = 0;
    for (const key of this.tag) if (key >= 0 && Math.floor(key / TAG_TABLE_STRIDE) === table) n++;
    return n;
  }

  private install(table: number, block: number, id: number, validAtUs: number): void {
    const old = this.tag[id]!;
    if (old >= 0) {
      const t = Math.floor(old / TAG_TABLE_STRIDE);
      const b = old - t * TAG_TABLE_STRIDE;
      this.map.delete(t, b);
      this.residentBits[t]![b >>> 5]! &= ~(1 << (b & 31));
      this.evictions++;
    }
    const key = table * TAG_TABLE_STRIDE + block;
    this.tag[id] = key;
    this.usage[id] = 1;
    this.validAt[id] = validAtUs;
    this.map.set(table, block, id);
    this.residentBits[table]![block >>> 5]! |= 1 << (block & 31);
  }

  /** The clock sweep (StrategyGetBuffer without a strategy). */
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
