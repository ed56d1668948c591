/**
 * The shared part of a parallel scan (apps/docs/src/reference/parallel-block-allocation.md#shared-scan-state, ParallelBlockTableScanDescData),
 * behind one small interface so that the allocator's policy code exists once
 * and runs over two backings:
 *
 * - {@link LocalScanState}: plain fields, for the single-threaded simulator.
 *   The "lock" is only a re-entrance check and the "atomic" add is a plain
 *   add: in one thread nothing can come between.
 * - `SharedScanState` (shared-scan-state.ts): the same fields in a
 *   SharedArrayBuffer, with a real spinlock and a real 64-bit atomic counter,
 *   for worker_threads.
 *
 * Fields, as in PostgreSQL: phs_nblocks, phs_syncscan, phs_startblock (invalid
 * until the first participant's start-up sets it), phs_cblock (9.6-10 cursor),
 * phs_nallocated (11+ counter, 64-bit because finished participants keep
 * adding past nblocks). Two additions of ours: the start block a caller asked
 * for (PG19's startblock argument of table_block_parallelscan_startblock_init,
 * 0ca3b16973, which takes precedence over syncscan) and an epoch that rescan
 * bumps so participants know to re-run their start-up.
 */
import { INVALID_BLOCK } from "./policy.js";

/** @internal What the policy code needs from the shared state. Call `lock`/`unlock` around the phs_mutex sections only. */
export interface ScanState {
  readonly nblocks: number;
  readonly syncscan: boolean;
  /** Start block requested by the caller, or INVALID_BLOCK. */
  readonly requestedStartBlock: number;
  epoch(): number;
  lock(): void;
  unlock(): void;
  /** phs_startblock; read under the lock until set, then stable. */
  startBlock(): number;
  setStartBlock(block: number): void;
  /** phs_cblock (pg96). Under the lock. */
  cblock(): number;
  setCblock(block: number): void;
  /** phs_nallocated read / write under the lock (batch policy). */
  counter(): number;
  setCounter(value: number): void;
  /** Atomic fetch-and-add on phs_nallocated; returns the old value. */
  fetchAdd(blocks: number): number;
  /** table_block_parallelscan_reinitialize: counter 0, cursor back to the start block, start block kept, epoch + 1. */
  rescan(): void;
}

/**
 * "Invalid" as stored in {@link LocalScanState}'s fields. Storing 0xFFFFFFFF
 * itself would give those fields V8's double representation, so every block
 * number read from them would be a boxed number, and the run objects built
 * from them would change shape and slow every later allocation down (measured:
 * 95 -> 1.4 M runs/s for pg11 after a pg96 scan in the same process).
 */
const UNSET = -1;

/** @internal In-process backing: plain fields, single thread. */
export class LocalScanState implements ScanState {
  private startBlockValue = UNSET;
  private cblockValue = UNSET;
  private counterValue = 0;
  private epochValue = 0;
  private locked = false;

  constructor(
    public nblocks: number,
    readonly syncscan: boolean,
    readonly requestedStartBlock: number,
  ) {}

  /** renumberScan (sim.ts): a new size, start block, cursor and counter, all at once. */
  reshape(nblocks: number, startBlock: number, cblock: number, counter: number): void {
    this.lock();
    this.nblocks = nblocks;
    this.setStartBlock(startBlock);
    this.setCblock(cblock);
    this.counterValue = counter;
    this.unlock();
  }

  epoch(): number {
    return this.epochValue;
  }
  lock(): void {
    if (this.locked)
      throw new Error("block-allocator: the in-process scan lock was taken twice (re-entrant call).");
    this.locked = true;
  }
  unlock(): void {
    this.locked = false;
  }
  startBlock(): number {
    return this.startBlockValue === UNSET ? INVALID_BLOCK : this.startBlockValue;
  }
  setStartBlock(block: number): void {
    this.startBlockValue = block === INVALID_BLOCK ? UNSET : block;
  }
  cblock(): number {
    return this.cblockValue === UNSET ? INVALID_BLOCK : this.cblockValue;
  }
  setCblock(block: number): void {
    this.cblockValue = block === INVALID_BLOCK ? UNSET : block;
  }
  counter(): number {
    return this.counterValue;
  }
  setCounter(value: number): void {
    this.counterValue = value;
  }
  fetchAdd(blocks: number): number {
    const old = this.counterValue;
    this.counterValue = old + blocks;
    return old;
  }
  rescan(): void {
    this.lock();
    this.counterValue = 0;
    this.cblockValue = this.startBlockValue;
    this.epochValue++;
    this.unlock();
  }
}
