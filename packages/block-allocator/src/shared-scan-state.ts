/**
 * The shared backing: the parallel scan's shared state (apps/docs/src/reference/parallel-block-allocation.md#shared-scan-state) in a
 * SharedArrayBuffer, so that worker_threads (or browser workers) run the very
 * same policy code as the simulator against one allocator, as PostgreSQL's
 * workers do against dynamic shared memory.
 *
 * Layout (little 128-byte block, counter on its own 64-byte line):
 *
 *     int32[0]  phs_mutex lock word (atomics-lock.ts)
 *     int32[1]  epoch, bumped by rescan
 *     uint32[2] phs_startblock (INVALID_BLOCK until set)
 *     uint32[3] phs_cblock (pg96)
 *     uint32[4] phs_nblocks
 *     uint32[5] flags: bit 0 = phs_syncscan
 *     uint32[6] start block requested by the caller, or INVALID_BLOCK
 *     uint32[7] policy kind, uint32[8..10] its options
 *     uint32[11] magic "SCAN" + layout version
 *     int64 at byte 64: phs_nallocated, advanced with Atomics.add on a
 *       BigInt64Array (a 64-bit counter, as in PG11+: finished participants
 *       keep adding past nblocks)
 *
 * The policy travels in the buffer, so a worker needs only the buffer to
 * attach. Plain reads of fields that are only written under the lock are done
 * with Atomics.load/store anyway: it costs little and keeps the memory model
 * argument trivial.
 */
import { lockWord, unlockWord } from "./atomics-lock.js";
import { AllocatorError } from "./errors.js";
import { INVALID_BLOCK, type ResolvedPolicy } from "./policy.js";
import type { ScanState } from "./scan-state.js";

const I_LOCK = 0;
const I_EPOCH = 1;
const I_START = 2;
const I_CBLOCK = 3;
const I_NBLOCKS = 4;
const I_FLAGS = 5;
const I_REQ_START = 6;
const I_KIND = 7;
const I_P1 = 8;
const I_P2 = 9;
const I_P3 = 10;
const I_MAGIC = 11;
/** phs_nallocated on its own 64-byte cache line (the x86-64 / arm64 line size), away from the lock word. */
const COUNTER_BYTE_OFFSET = 64;
/** Bytes of a shared allocator buffer. */
export const SHARED_SCAN_BYTES = 128;
/** "SCAN" in ASCII plus layout version 1 in the low byte. */
const MAGIC = 0x5343_4101;

const KINDS = ["pg96", "pg11", "batch", "munro2020", "pg14"] as const;

/** @internal The shared backing over a SharedArrayBuffer of {@link SHARED_SCAN_BYTES} bytes. */
export class SharedScanState implements ScanState {
  readonly nblocks: number;
  readonly syncscan: boolean;
  readonly requestedStartBlock: number;
  private readonly i32: Int32Array;
  private readonly u32: Uint32Array;
  private readonly big: BigInt64Array;

  constructor(readonly buffer: SharedArrayBuffer) {
    this.i32 = new Int32Array(buffer, 0, 16);
    this.u32 = new Uint32Array(buffer, 0, 16);
    this.big = new BigInt64Array(buffer, COUNTER_BYTE_OFFSET, 1);
    this.nblocks = Atomics.load(this.u32, I_NBLOCKS);
    this.syncscan = (Atomics.load(this.u32, I_FLAGS) & 1) === 1;
    this.requestedStartBlock = Atomics.load(this.u32, I_REQ_START);
  }

  /** Writes a fresh shared state into `buffer` (before any participant attaches). */
  static initialise(
    buffer: SharedArrayBuffer,
    policy: ResolvedPolicy,
    nblocks: number,
    syncscan: boolean,
    requestedStartBlock: number,
  ): void {
    const u32 = new Uint32Array(buffer, 0, 16);
    u32.fill(0);
    u32[I_START] = INVALID_BLOCK;
    u32[I_CBLOCK] = INVALID_BLOCK;
    u32[I_NBLOCKS] = nblocks;
    u32[I_FLAGS] = syncscan ? 1 : 0;
    u32[I_REQ_START] = requestedStartBlock;
    u32[I_KIND] = KINDS.indexOf(policy.kind);
    switch (policy.kind) {
      case "batch":
        u32[I_P1] = policy.blocksPerClaim;
        break;
      case "munro2020":
        u32[I_P1] = policy.maxChunkBlocks;
        break;
      case "pg14":
        u32[I_P1] = policy.nchunks;
        u32[I_P2] = policy.rampdownChunks;
        u32[I_P3] = policy.maxChunkBlocks ?? 0;
        break;
      default:
        break;
    }
    new BigInt64Array(buffer, COUNTER_BYTE_OFFSET, 1)[0] = 0n;
    Atomics.store(u32, I_MAGIC, MAGIC);
  }

  /** Reads the policy stored in a shared buffer, checking that it is one. */
  static readPolicy(buffer: unknown): ResolvedPolicy {
    const isShared = typeof SharedArrayBuffer !== "undefined" && buffer instanceof SharedArrayBuffer;
    if (!isShared || (buffer as SharedArrayBuffer).byteLength < SHARED_SCAN_BYTES) {
      throw new AllocatorError(
        "ALLOCATOR_BAD_SHARED_BUFFER",
        `a shared allocator must be a SharedArrayBuffer of at least ${SHARED_SCAN_BYTES} bytes made by createSharedParallelScan.`,
      );
    }
    const u32 = new Uint32Array(buffer as SharedArrayBuffer, 0, 16);
    const kind = KINDS[Atomics.load(u32, I_KIND)];
    if (Atomics.load(u32, I_MAGIC) !== MAGIC || kind === undefined) {
      throw new AllocatorError(
        "ALLOCATOR_BAD_SHARED_BUFFER",
        "this SharedArrayBuffer does not hold a shared allocator made by createSharedParallelScan.",
      );
    }
    switch (kind) {
      case "batch":
        return { kind, blocksPerClaim: u32[I_P1]! };
      case "munro2020":
        return { kind, maxChunkBlocks: u32[I_P1]! };
      case "pg14":
        return { kind, nchunks: u32[I_P1]!, rampdownChunks: u32[I_P2]!, maxChunkBlocks: u32[I_P3]! || null };
      default:
        return { kind };
    }
  }

  epoch(): number {
    return Atomics.load(this.i32, I_EPOCH);
  }
  lock(): void {
    lockWord(this.i32, I_LOCK);
  }
  unlock(): void {
    unlockWord(this.i32, I_LOCK);
  }
  startBlock(): number {
    return Atomics.load(this.u32, I_START);
  }
  setStartBlock(block: number): void {
    Atomics.store(this.u32, I_START, block);
  }
  cblock(): number {
    return Atomics.load(this.u32, I_CBLOCK);
  }
  setCblock(block: number): void {
    Atomics.store(this.u32, I_CBLOCK, block);
  }
  counter(): number {
    return Number(Atomics.load(this.big, 0));
  }
  setCounter(value: number): void {
    Atomics.store(this.big, 0, BigInt(value));
  }
  fetchAdd(blocks: number): number {
    return Number(Atomics.add(this.big, 0, BigInt(blocks)));
  }
  rescan(): void {
    this.lock();
    Atomics.store(this.big, 0, 0n);
    Atomics.store(this.u32, I_CBLOCK, Atomics.load(this.u32, I_START));
    Atomics.add(this.i32, I_EPOCH, 1);
    this.unlock();
  }
}
