/**
 * The parallel block allocator: who scans which block next.
 *
 * A parallel seq scan has one shared state (scan-state.ts) and one private
 * state per participant (the leader, unless parallel_leader_participation is
 * off, and each worker). This file is the participant side, written once for
 * every policy (policy.ts) and every backing (in-process or SharedArrayBuffer).
 *
 * **Start-up** (apps/docs/src/reference/parallel-block-allocation.md#spinlock-allocator step 2 and apps/docs/src/reference/parallel-block-allocation.md#start-up). A participant runs
 * it on its first request after the scan starts or is rescanned. It zeroes its
 * private record and picks its first chunk size; then, under the scan's lock,
 * if nobody has set the start block yet it sets it: to the block the caller
 * asked for (PG19, 0ca3b16973), else 0 when syncscan is off, else the syncscan
 * location. Fetching that location (ss_get_location, the `getStartBlock` hook)
 * is not done under the spinlock: the participant releases the lock, fetches
 * it, and retries, using the value only if nobody set the start block in the
 * meantime. In 9.6-10 this protocol sits inside every call; from 11 it is a
 * separate function, called once. An empty relation never reaches start-up
 * (heapgettup returns at once when nblocks is 0), so nothing is reported.
 *
 * **Claims.** pg96 takes the lock, hands out `phs_cblock` and advances it,
 * wrapping at nblocks and turning invalid when it comes back to the start
 * block. Every other policy claims a range of *counter values* [n, n + size):
 * pg11 / pg14 / munro2020 with one atomic fetch-and-add of `size` on the 64-bit
 * counter, batch with a read and write of the counter under the lock. Counter
 * value c is block (c + start) mod nblocks, so a claim never wraps in counter
 * space but can wrap in block space; a claim starting at or past nblocks means
 * "you are done" (and the counter keeps growing: other participants may still
 * be working). The size of a claim is the policy's: 1, n, the munro2020 ramp,
 * or PG14's per-participant chunk size, halved near the end of the table by
 * the participant's *own* position.
 *
 * **Runs.** `nextRun` hands out the rest of the current claim as one run of
 * consecutive blocks, split where the claim wraps from block nblocks - 1 to
 * block 0 (or at `maxBlocks`). `nextBlock` is the same thing one block at a
 * time, as PostgreSQL's callers see it. Both move the same private state, so
 * they can be mixed.
 *
 * **End of scan.** Exactly one participant reports the start block once, via
 * `onScanEnd` (ss_report_location(startblock)): in pg96 the one that takes the
 * last block (its call reports the start block instead of that block), in the
 * counter policies the one that sees counter value exactly nblocks, either as
 * the start of a claim or by stepping onto it inside a claim that straddles
 * the end. Reporting every handed-out block to syncscan is the caller's job.
 *
 * **Cost.** Each run says what its allocation cost in shared memory
 * (`op`): "lock" for pg96 and batch claims, "atomic" for a fetch-and-add,
 * "none" for blocks taken from a claim already held. `opsPerformed` counts
 * every lock acquisition (including start-up's, and the retry of the syncscan
 * protocol) and every atomic add (including the final one that finds the scan
 * exhausted), the per-allocation critical sections apps/docs/src/reference/experiments.md#t4-allocator-lock-contention-at-72-processes is about.
 */
import type { Renumbering } from "@scanlab/core/sim";
import { AllocatorError } from "./errors.js";
import { pg14InitialChunk, pg14RampDown } from "./pg14-chunks.js";
import {
  type AllocatorPolicy,
  checkNblocks,
  INVALID_BLOCK,
  munroClaimBlocks,
  type ResolvedPolicy,
  resolvePolicy,
} from "./policy.js";
import { LocalScanState, type ScanState } from "./scan-state.js";
import { SHARED_SCAN_BYTES, SharedScanState } from "./shared-scan-state.js";

/** Keys of the scan's simulator hooks, reached only through `@scanlab/block-allocator/sim`. */
export const RENUMBER: unique symbol = Symbol("@scanlab/block-allocator renumber");
/** @see RENUMBER */
export const FAST_FORWARD: unique symbol = Symbol("@scanlab/block-allocator fast-forward");

/** What one allocation cost in shared memory: a lock acquisition, an atomic read-modify-write, or nothing (inside a claim already held). */
export type SharedOp = "lock" | "atomic" | "none";

/**
 * A run of consecutive blocks handed to one participant.
 *
 * @example
 * ```ts
 * // 10 blocks starting at block 8 of a 12-block table: counters 0..3 are blocks 8..11,
 * // counters 4..9 wrap to blocks 0..5, so a 10-block claim comes out as two runs.
 * const first = { startBlock: 8, blocks: 4, firstCounter: 0, op: "lock" };
 * const second = { startBlock: 0, blocks: 6, firstCounter: 4, op: "none" };
 * ```
 */
export interface BlockRun {
  /** First block of the run; the run is blocks startBlock .. startBlock + blocks - 1 (never wraps). */
  startBlock: number;
  /** Number of blocks, at least 1. */
  blocks: number;
  /** Counter value of the first block (block = (counter + scan start block) mod nblocks). */
  firstCounter: number;
  /** What this run's allocation cost: the claim's lock or atomic for the first run of a claim, "none" after. */
  op: SharedOp;
}

/**
 * Callbacks into the synchronized-scan machinery (the `@scanlab/syncscan`
 * package, or your own). Both are optional.
 */
export interface ScanHooks {
  /**
   * ss_get_location: where the scan should start. Called only when the scan
   * has syncscan on and no start block was requested, by a participant whose
   * start-up finds the start block unset, with the scan's lock released
   * (apps/docs/src/reference/parallel-block-allocation.md#spinlock-allocator step 2). In-process that is at most once per scan (and
   * per rescan only if the start block was never set); on the shared backing
   * two workers starting together may both call it, as in PostgreSQL, and the
   * first value stored wins. Must return an integer block below `nblocks`.
   */
  getStartBlock?(nblocks: number): number;
  /**
   * Called exactly once per scan of a non-empty relation, by the participant
   * that takes the last block (pg96) or sees counter value nblocks (others):
   * ss_report_location(startBlock), so the next scan starts where this one did.
   */
  onScanEnd?(startBlock: number): void;
}

/** Shared-memory operations a participant performed so far in this scan. */
export interface OpsPerformed {
  /** Lock acquisitions (phs_mutex): pg96 and batch claims, start-up, syncscan retries. */
  locks: number;
  /** Atomic fetch-and-adds on the counter (pg11, munro2020, pg14), including the last one that finds nothing left. */
  atomics: number;
}

/** One process taking part in a parallel scan (the leader or a worker). */
export interface Participant {
  /**
   * The next block for this participant, or {@link INVALID_BLOCK} when it is
   * done (then every later call returns INVALID_BLOCK too, until a rescan).
   */
  nextBlock(): number;
  /**
   * The rest of the current claim as one run of consecutive blocks (at most
   * `maxBlocks`), claiming a new range first if the current one is used up;
   * the run is split where the claim wraps from the last block to block 0.
   * Returns null when this participant is done.
   *
   * @param maxBlocks largest run wanted (a positive integer); default: the whole claim.
   * @throws {@link AllocatorError} `ALLOCATOR_BAD_MAX_BLOCKS` if maxBlocks is not a positive integer.
   */
  nextRun(maxBlocks?: number): BlockRun | null;
  /** This participant's current chunk size (phsw_chunk_size; 1 for pg96 and pg11, n for batch). */
  readonly chunkBlocks: number;
  /** Shared-memory operations so far in this scan (reset by a rescan). */
  readonly opsPerformed: OpsPerformed;
  /** True once this participant has been told it is done. */
  readonly done: boolean;
  /**
   * True once this participant made the end-of-scan report (`onScanEnd`) in
   * this scan. In pg96 that happens in the call that returned the last block,
   * which PostgreSQL then does not report to syncscan itself: a caller that
   * mirrors it exactly skips its own report of that block.
   */
  readonly endedScan: boolean;
}

/** A parallel scan of one relation: the shared allocator state plus how to join it. */
export interface ParallelScan {
  /** The policy, with defaults filled in. */
  readonly policy: ResolvedPolicy;
  /**
   * phs_nblocks: the relation size in blocks. Fixed for the life of the scan,
   * as in PostgreSQL; only a simulator that renumbers the relation under the
   * scan changes it (`renumberScan` from `@scanlab/block-allocator/sim`).
   */
  readonly nblocks: number;
  /** phs_syncscan. */
  readonly syncscan: boolean;
  /** phs_startblock, or {@link INVALID_BLOCK} until the first participant's start-up sets it. */
  readonly startBlock: number;
  /** Blocks handed out so far, in counter space: phs_nallocated (may exceed nblocks), or for pg96 the cursor's distance from the start block. */
  readonly counter: number;
  /** A new participant; it runs its start-up on its first request. */
  join(): Participant;
  /**
   * table_block_parallelscan_reinitialize: the counter goes back to 0 (pg96:
   * the cursor back to the start block), the start block is kept, and every
   * participant re-runs its start-up at its next request. As in PostgreSQL,
   * only call it while no participant is inside a request.
   */
  rescan(): void;
}

/** A {@link ParallelScan} whose shared state lives in a SharedArrayBuffer. */
export interface SharedParallelScan extends ParallelScan {
  /** The shared state: post it to workers and attach there with {@link attachSharedParallelScan}. */
  readonly buffer: SharedArrayBuffer;
}

/** Options of {@link createParallelScan} and {@link createSharedParallelScan}. */
export interface ParallelScanOptions {
  /** Relation size in blocks (phs_nblocks), an integer from 0 to 2^32 - 1. */
  nblocks: number;
  /** phs_syncscan: fetch the start block from `hooks.getStartBlock` (default false: start at 0). */
  syncscan?: boolean;
  /** Start at this block (0 <= startBlock < nblocks), taking precedence over syncscan as PG19's caller-supplied start block does. */
  startBlock?: number;
  /** Syncscan callbacks for this thread. */
  hooks?: ScanHooks;
}

/** Options of {@link attachSharedParallelScan}. */
export interface AttachOptions {
  /** Syncscan callbacks for this thread (functions cannot cross threads). */
  hooks?: ScanHooks;
}

function checkMaxBlocks(maxBlocks: number): number {
  if (typeof maxBlocks !== "number" || !(maxBlocks >= 1) || !Number.isInteger(maxBlocks)) {
    throw new AllocatorError(
      "ALLOCATOR_BAD_MAX_BLOCKS",
      `maxBlocks must be a positive integer (got ${String(maxBlocks)}).`,
    );
  }
  return maxBlocks;
}

/**
 * What every participant has: the shared state, its hooks, its counters of
 * shared-memory operations, and the start-block protocol. The two subclasses
 * are the two mechanisms: a cursor under a lock (pg96) and claims of counter
 * values (every other policy). They are separate classes so that the JIT
 * optimises each hot path for one mechanism only.
 */
abstract class ParticipantBase {
  protected nblocks: number;
  /** Epoch of the scan when start-up ran; -1 before the first request. */
  protected scanEpoch = -1;
  /** phs_startblock as seen at start-up. */
  protected start = 0;
  protected finished = false;
  protected ended = false;
  protected locks = 0;
  protected atomics = 0;
  chunkBlocks = 1;

  constructor(
    protected readonly state: ScanState,
    protected readonly hooks: ScanHooks,
  ) {
    this.nblocks = state.nblocks;
  }

  get opsPerformed(): OpsPerformed {
    return { locks: this.locks, atomics: this.atomics };
  }
  get done(): boolean {
    return this.finished;
  }
  get endedScan(): boolean {
    return this.ended;
  }

  /** Zeroes the private record (first request after scan start or rescan). Returns false for an empty relation. */
  protected resetPrivate(chunkBlocks: number): boolean {
    this.scanEpoch = this.state.epoch();
    this.finished = false;
    this.ended = false;
    this.locks = 0;
    this.atomics = 0;
    this.chunkBlocks = chunkBlocks;
    if (this.nblocks === 0) {
      // heapgettup returns before any allocator call when the relation is empty
      this.finished = true;
      return false;
    }
    return true;
  }

  /**
   * The start-block protocol (apps/docs/src/reference/parallel-block-allocation.md#spinlock-allocator step 2, apps/docs/src/reference/parallel-block-allocation.md#start-up): takes the
   * lock and, if nobody has set phs_startblock yet, sets it (pg96: and points
   * the cursor at it), fetching the syncscan location with the lock released
   * and retrying when needed. Returns the start block with the lock still held.
   */
  protected lockWithStartBlock(setCursor: boolean): number {
    const state = this.state;
    let fetched = INVALID_BLOCK;
    for (;;) {
      state.lock();
      this.locks++;
      let start = state.startBlock();
      if (start !== INVALID_BLOCK) return start;
      const requested = state.requestedStartBlock;
      start = requested !== INVALID_BLOCK ? requested : state.syncscan ? fetched : 0;
      if (start !== INVALID_BLOCK) {
        state.setStartBlock(start);
        if (setCursor) state.setCblock(start);
        return start;
      }
      state.unlock();
      fetched = this.fetchLocation();
    }
  }

  /** ss_get_location, through the hook. Called with the lock released. */
  protected fetchLocation(): number {
    const hook = this.hooks.getStartBlock;
    // Without a syncscan tracker, ss_get_location of a table nobody scanned returns 0.
    const location = hook === undefined ? 0 : hook(this.nblocks);
    if (!Number.isInteger(location) || location < 0 || location >= this.nblocks) {
      throw new AllocatorError(
        "ALLOCATOR_BAD_START_BLOCK",
        `getStartBlock must return an integer block below nblocks ${this.nblocks} (got ${String(location)}).`,
      );
    }
    return location;
  }

  protected reportEnd(start: number): void {
    this.ended = true;
    this.hooks.onScanEnd?.(start);
  }

  /** `renumberScan` (sim.ts) on this participant's private state (a cursor has no counter values; CounterParticipant moves its own with the shift). */
  [RENUMBER](change: Renumbering, _shift: (value: number) => number): void {
    this.nblocks = change.nblocks;
    if (this.scanEpoch === this.state.epoch()) this.start = change.map(this.start);
  }
}

/** pg96: heap_parallelscan_nextpage of 9.6-10 (apps/docs/src/reference/parallel-block-allocation.md#spinlock-allocator), one block under the lock, phs_cblock semantics. */
class CursorParticipant extends ParticipantBase implements Participant {
  nextBlock(): number {
    if (this.scanEpoch !== this.state.epoch() && !this.resetPrivate(1)) return INVALID_BLOCK;
    if (this.finished) return INVALID_BLOCK;
    return this.claimBlock();
  }

  nextRun(maxBlocks?: number): BlockRun | null {
    if (maxBlocks !== undefined) checkMaxBlocks(maxBlocks);
    const page = this.nextBlock();
    if (page === INVALID_BLOCK) return null;
    const start = this.start;
    const counter = page >= start ? page - start : page + this.nblocks - start;
    return { startBlock: page, blocks: 1, firstCounter: counter, op: "lock" };
  }

  /** One heap_parallelscan_nextpage call: hands out phs_cblock and advances it, under the lock. */
  private claimBlock(): number {
    const state = this.state;
    const start = this.lockWithStartBlock(true);
    const page = state.cblock();
    let report = false;
    if (page !== INVALID_BLOCK) {
      let c = page + 1;
      if (c >= this.nblocks) c = 0;
      if (c === start) {
        c = INVALID_BLOCK;
        report = true;
      }
      state.setCblock(c);
    }
    state.unlock();
    this.start = start;
    if (report) this.reportEnd(start);
    if (page === INVALID_BLOCK) this.finished = true;
    return page;
  }
}

/**
 * pg11, batch, munro2020, pg14: claims of counter values (apps/docs/src/reference/parallel-block-allocation.md#atomic-counter, apps/docs/src/reference/parallel-block-allocation.md#chunked-allocation
 * ), by atomic fetch-and-add (batch: under the lock), sized by the policy.
 */
class CounterParticipant extends ParticipantBase implements Participant {
  /** phsw_nallocated: this participant's last counter value (0 before its first claim). */
  private position = 0;
  /** Claims made so far in this scan (the munro2020 ramp-up index). */
  private claims = 0;
  /** Next counter value of the current claim. */
  private next = 0;
  /** Counter values left in the current claim, including `next`. */
  private remaining = 0;
  private readonly locked: boolean;

  constructor(
    private readonly policy: Exclude<ResolvedPolicy, { kind: "pg96" }>,
    state: ScanState,
    hooks: ScanHooks,
  ) {
    super(state, hooks);
    this.locked = policy.kind === "batch";
  }

  nextBlock(): number {
    if (this.remaining > 0 && this.next < this.nblocks && this.scanEpoch === this.state.epoch()) {
      const n = this.next;
      this.next = n + 1;
      this.remaining--;
      this.position = n;
      const block = n + this.start;
      return block >= this.nblocks ? block - this.nblocks : block;
    }
    const run = this.nextRun(1);
    return run === null ? INVALID_BLOCK : run.startBlock;
  }

  nextRun(maxBlocks?: number): BlockRun | null {
    const max = maxBlocks === undefined ? Number.POSITIVE_INFINITY : checkMaxBlocks(maxBlocks);
    if (this.scanEpoch !== this.state.epoch()) this.startUp();
    if (this.finished) return null;
    if (this.remaining > 0) return this.runFrom(this.next, max, "none");
    const size = this.claimBlocks();
    const n = this.locked ? this.claimUnderLock(size) : this.claimAtomically(size);
    this.chunkBlocks = size;
    this.claims++;
    this.remaining = size;
    return this.runFrom(n, max, this.locked ? "lock" : "atomic");
  }

  /** batch: read and advance phs_nallocated under phs_mutex. */
  private claimUnderLock(size: number): number {
    this.state.lock();
    this.locks++;
    const n = this.state.counter();
    this.state.setCounter(n + size);
    this.state.unlock();
    return n;
  }

  /** pg11 / munro2020 / pg14: pg_atomic_fetch_add_u64(&phs_nallocated, size). */
  private claimAtomically(size: number): number {
    this.atomics++;
    return this.state.fetchAdd(size);
  }

  /** Hands out counter values from n on in the current claim (or finishes the participant). */
  private runFrom(n: number, max: number, op: SharedOp): BlockRun | null {
    const nblocks = this.nblocks;
    if (n >= nblocks) {
      this.finished = true;
      this.remaining = 0;
      this.position = n;
      if (n === nblocks) this.reportEnd(this.start);
      return null;
    }
    let k = this.remaining;
    if (nblocks - n < k) k = nblocks - n;
    if (max < k) k = max;
    let block = n + this.start;
    if (block >= nblocks) block -= nblocks;
    if (nblocks - block < k) k = nblocks - block;
    this.next = n + k;
    this.remaining -= k;
    this.position = n + k - 1;
    return { startBlock: block, blocks: k, firstCounter: n, op };
  }

  override [RENUMBER](change: Renumbering, shift: (value: number) => number): void {
    const current = this.scanEpoch === this.state.epoch();
    super[RENUMBER](change, shift);
    if (!current) return;
    this.position = shift(this.position);
    this.next = shift(this.next);
  }

  /** The size of the next claim (called only when the current one is used up). */
  private claimBlocks(): number {
    const p = this.policy;
    switch (p.kind) {
      case "pg14":
        return pg14RampDown(this.chunkBlocks, this.position, this.nblocks, p.rampdownChunks);
      case "munro2020":
        return munroClaimBlocks(this.claims, this.position, this.nblocks, p.maxChunkBlocks);
      case "batch":
        return p.blocksPerClaim;
      default:
        return 1;
    }
  }

  /** table_block_parallelscan_startblock_init (apps/docs/src/reference/parallel-block-allocation.md#start-up; apps/docs/src/reference/parallel-block-allocation.md#atomic-counter for pg11). */
  private startUp(): void {
    const p = this.policy;
    const initial =
      p.kind === "pg14"
        ? pg14InitialChunk(this.nblocks, p.nchunks, p.maxChunkBlocks)
        : p.kind === "batch"
          ? p.blocksPerClaim
          : 1;
    this.position = 0;
    this.claims = 0;
    this.next = 0;
    this.remaining = 0;
    if (!this.resetPrivate(initial)) return;
    this.start = this.lockWithStartBlock(false);
    this.state.unlock();
  }
}

/** The scan behind every {@link ParallelScan} this module returns (sim.ts reaches its hooks through it). */
export class ParallelScanImpl implements ParallelScan {
  nblocks: number;
  readonly syncscan: boolean;
  /** Every participant that joined (renumbering moves their private state too). */
  private readonly joined: ParticipantBase[] = [];

  constructor(
    readonly policy: ResolvedPolicy,
    protected readonly state: ScanState,
    private readonly hooks: ScanHooks,
  ) {
    this.nblocks = state.nblocks;
    this.syncscan = state.syncscan;
  }

  get startBlock(): number {
    return this.state.startBlock();
  }

  get counter(): number {
    if (this.policy.kind !== "pg96") return this.state.counter();
    const start = this.state.startBlock();
    if (start === INVALID_BLOCK) return 0;
    const c = this.state.cblock();
    if (c === INVALID_BLOCK) return this.nblocks;
    return c >= start ? c - start : c + this.nblocks - start;
  }

  join(): Participant {
    const p = this.policy;
    const participant =
      p.kind === "pg96"
        ? new CursorParticipant(this.state, this.hooks)
        : new CounterParticipant(p, this.state, this.hooks);
    if (this.state instanceof LocalScanState) this.joined.push(participant);
    return participant;
  }

  /** `renumberScan` (sim.ts). */
  [RENUMBER](change: Renumbering): void {
    const state = this.state;
    const bad = (why: string): AllocatorError =>
      new AllocatorError("ALLOCATOR_BAD_RENUMBERING", `cannot renumber the scan: ${why}.`);
    if (!(state instanceof LocalScanState)) throw bad("only the in-process backing can be renumbered");
    const start = state.startBlock();
    if (start === INVALID_BLOCK) throw bad("the scan has not started (no start block yet)");
    if (change.oldNblocks !== this.nblocks)
      throw bad(`the change is for ${change.oldNblocks} blocks, the scan has ${this.nblocks}`);
    const nblocks = checkNblocks(change.nblocks);
    const shift = counterShift(change, start, bad);
    const newStart = change.map(start);
    if (!Number.isInteger(newStart) || newStart < 0 || newStart >= nblocks)
      throw bad(`the start block ${start} maps to ${String(newStart)}, outside the new ${nblocks} blocks`);
    const counter = shift(state.counter());
    let cblock = state.cblock();
    if (cblock !== INVALID_BLOCK) cblock = change.map(cblock);
    state.reshape(nblocks, newStart, cblock, counter);
    this.nblocks = nblocks;
    for (const p of this.joined) p[RENUMBER](change, shift);
  }

  rescan(): void {
    this.state.rescan();
  }

  /** `fastForwardScan` (sim.ts). */
  [FAST_FORWARD](blocks: number): void {
    const kind = this.policy.kind;
    const bad = (why: string): AllocatorError =>
      new AllocatorError(
        "ALLOCATOR_BAD_FAST_FORWARD",
        `cannot fast-forward ${String(blocks)} blocks: ${why}.`,
      );
    if (!Number.isInteger(blocks) || blocks < 0) throw bad("give a non-negative integer number of blocks");
    if (kind !== "pg96" && kind !== "pg11" && kind !== "batch")
      throw bad(`the ${kind} policy sizes its claims per participant`);
    const start = this.state.startBlock();
    if (start === INVALID_BLOCK) throw bad("the scan has not started (no start block yet)");
    if (blocks === 0) return;
    const nblocks = this.nblocks;
    const counter = this.counter;
    if (counter + blocks >= nblocks) throw bad("that reaches the end of the scan");
    const block = (counter + start) % nblocks;
    if (block + blocks >= nblocks && block >= start) throw bad("that crosses the wrap to block 0");
    if (kind === "pg96") {
      this.state.lock();
      this.state.setCblock(block + blocks);
      this.state.unlock();
    } else {
      this.state.fetchAdd(blocks);
    }
  }
}

class SharedParallelScanImpl extends ParallelScanImpl implements SharedParallelScan {
  readonly buffer: SharedArrayBuffer;
  constructor(policy: ResolvedPolicy, state: SharedScanState, hooks: ScanHooks) {
    super(policy, state, hooks);
    this.buffer = state.buffer;
  }
}

/** The checks shared by both constructors: policy, options, and that a pg14 chunk size exists for this size. */
function checkScan(
  policy: AllocatorPolicy,
  options: ParallelScanOptions,
): { resolved: ResolvedPolicy; nblocks: number; syncscan: boolean; start: number } {
  const resolved = resolvePolicy(policy);
  const { nblocks, syncscan, start } = checkOptions(options);
  if (resolved.kind === "pg14") pg14InitialChunk(nblocks, resolved.nchunks, resolved.maxChunkBlocks);
  return { resolved, nblocks, syncscan, start };
}

function checkOptions(options: ParallelScanOptions): { nblocks: number; syncscan: boolean; start: number } {
  if (typeof options !== "object" || options === null) {
    throw new AllocatorError(
      "ALLOCATOR_BAD_NBLOCKS",
      "the scan options must be an object with an nblocks field.",
    );
  }
  const nblocks = checkNblocks(options.nblocks);
  let start = INVALID_BLOCK;
  if (options.startBlock !== undefined) {
    const s = options.startBlock;
    if (typeof s !== "number" || !Number.isInteger(s) || s < 0 || s >= nblocks) {
      throw new AllocatorError(
        "ALLOCATOR_BAD_START_BLOCK",
        `startBlock must be an integer block number below nblocks ${nblocks} (got ${String(s)}).`,
      );
    }
    start = s;
  }
  return { nblocks, syncscan: options.syncscan === true, start };
}

/**
 * A parallel scan whose shared state lives in this thread: for the simulator,
 * tests and planning. Participants are driven by the caller in any order.
 *
 * @param policy which allocator (see {@link AllocatorPolicy}).
 * @param options relation size, syncscan, start block, hooks.
 * @throws {@link AllocatorError} for a bad size, start block or policy option.
 * @example
 * ```ts
 * import { createParallelScan } from "@scanlab/block-allocator";
 *
 * const scan = createParallelScan({ kind: "pg14" }, { nblocks: 100_000 });
 * const leader = scan.join();
 * const worker = scan.join();
 * const a = leader.nextRun(); // { startBlock: 0, blocks: 64, firstCounter: 0, op: "atomic" }
 * const b = worker.nextRun(); // { startBlock: 64, blocks: 64, firstCounter: 64, op: "atomic" }
 * ```
 */
export function createParallelScan(policy: AllocatorPolicy, options: ParallelScanOptions): ParallelScan {
  const { resolved, nblocks, syncscan, start } = checkScan(policy, options);
  return new ParallelScanImpl(resolved, new LocalScanState(nblocks, syncscan, start), options.hooks ?? {});
}

/**
 * A parallel scan whose shared state lives in a new SharedArrayBuffer, for
 * worker_threads: post `scan.buffer` to each worker and call
 * {@link attachSharedParallelScan} there; this thread can take part too.
 *
 * @throws {@link AllocatorError} for a bad size, start block or policy option.
 * @example
 * ```ts
 * import { createSharedParallelScan } from "@scanlab/block-allocator";
 * const scan = createSharedParallelScan({ kind: "pg14" }, { nblocks: 10_000_000 });
 * // new Worker(url, { workerData: scan.buffer }) ... attachSharedParallelScan(workerData).join()
 * ```
 */
export function createSharedParallelScan(
  policy: AllocatorPolicy,
  options: ParallelScanOptions,
): SharedParallelScan {
  const { resolved, nblocks, syncscan, start } = checkScan(policy, options);
  const buffer = new SharedArrayBuffer(SHARED_SCAN_BYTES);
  SharedScanState.initialise(buffer, resolved, nblocks, syncscan, start);
  return new SharedParallelScanImpl(resolved, new SharedScanState(buffer), options.hooks ?? {});
}

/**
 * Attaches to a shared allocator made by {@link createSharedParallelScan}
 * (typically in a worker, with the buffer received from the main thread).
 *
 * @param buffer the scan's `buffer`.
 * @param options syncscan hooks for this thread.
 * @throws {@link AllocatorError} `ALLOCATOR_BAD_SHARED_BUFFER` if the buffer does not hold a shared allocator.
 * @example
 * ```ts
 * import { workerData } from "node:worker_threads";
 * import { attachSharedParallelScan } from "@scanlab/block-allocator";
 * const me = attachSharedParallelScan(workerData).join();
 * for (let run = me.nextRun(); run !== null; run = me.nextRun()) {
 *   // read blocks run.startBlock .. run.startBlock + run.blocks - 1
 * }
 * ```
 */
export function attachSharedParallelScan(
  buffer: SharedArrayBuffer,
  options: AttachOptions = {},
): SharedParallelScan {
  const policy = SharedScanState.readPolicy(buffer);
  return new SharedParallelScanImpl(policy, new SharedScanState(buffer), options.hooks ?? {});
}

/**
 * How a renumbering moves counter values (phs_nallocated, and each
 * participant's own). A value names the block at that distance along the
 * scan's path from its start block, and follows it: it moves by the
 * stretch's length when its block lies after the stretch on the path, and
 * stays when its block lies before. Values at or past the end of the scan
 * stay past the end. A cut that a value falls inside (blocks some
 * participant was already handed) is refused: the scan could not be the same
 * scan of a shorter table.
 */
function counterShift(
  change: Renumbering,
  start: number,
  bad: (why: string) => AllocatorError,
): (value: number) => number {
  const n = change.oldNblocks;
  const { at, blocks } = change;
  if (change.kind === "cut") {
    if (start >= at && start < at + blocks) throw bad(`the cut stretch holds the start block ${start}`);
    const from = at > start ? at - start : at - start + n;
    return (v) => {
      if (v <= from) return v;
      if (v >= from + blocks) return v - blocks;
      throw bad(`counter value ${v} lies inside the cut stretch (those blocks were handed out)`);
    };
  }
  // Blocks put back at `at` come before the block that was there. Put back at the start block,
  // they come before it in block order, which is the end of the scan's path.
  const from = at > start ? at - start : at - start + n;
  return (v) => (v >= from ? v + blocks : v);
}
