/**
 * The cost of handing out blocks: one contended word in shared memory.
 *
 * Every parallel seq scan keeps its allocation state in one place: PG 9.6-10
 * a spinlock-protected `phs_cblock`, PG11+ the atomic counter
 * `phs_nallocated` (apps/docs/src/reference/parallel-block-allocation.md). Whatever the instruction, the
 * participants take turns owning one cache line: the allocation is a small
 * single server. We model it as exactly that: a FIFO server whose service
 * time is the time one participant holds the line.
 *
 * - A spinlock allocation (pg96, and the 2017 batching patch, which kept the
 *   lock) holds the line for `spinlockHoldUs`: acquire, read and update the
 *   block counter, release; the line moves to the next waiter.
 * - An atomic fetch-add (pg11, pg14's chunk claims) holds it for
 *   `atomicOpUs`: one locked read-modify-write, no separate release.
 * - An allocation inside a pg14 chunk touches only private memory: free.
 *
 * With N participants that each need the line once per block and spend W us
 * on the block, the server saturates when N x hold > W + hold: then the scan
 * runs at 1 / hold blocks per second whatever the CPU count. That is the
 * mechanism behind apps/docs/src/reference/experiments.md#t4-allocator-lock-contention-at-72-processes (72 processes on lineitem: master's spinlock
 * was "very visible" and atomics gave 1.64x; on the int table, with ~4x more
 * tuple work per block, the server never saturated and all variants tied).
 */

import type { SharedOpKind } from "../seam/ports.js";

export type { SharedOpKind };

/** One contended cache line: a FIFO single server. */
export class SharedLine {
  /** When the line is next free. */
  freeAtUs = 0;
  /** Total time the line was held, for utilisation. */
  busyUs = 0;
  /** Total time participants waited for it. */
  waitUs = 0;
  /** Number of operations served. */
  ops = 0;

  constructor(
    private readonly lockHoldUs: number,
    private readonly atomicHoldUs: number,
  ) {}

  /** Hold time of one operation of `op`'s kind. */
  holdUs(op: "lock" | "atomic"): number {
    return op === "lock" ? this.lockHoldUs : this.atomicHoldUs;
  }

  /** Accounts for operations a caller served in bulk (the striding gang's emulation). */
  addBulk(ops: number, holdUs: number, waitUs: number, freeAtUs: number): void {
    this.ops += ops;
    this.busyUs += ops * holdUs;
    this.waitUs += waitUs;
    this.freeAtUs = freeAtUs;
  }

  /** Performs one operation arriving at `nowUs`; returns when the caller may continue. */
  acquire(op: SharedOpKind, nowUs: number): number {
    if (op === "none") return nowUs;
    const hold = op === "lock" ? this.lockHoldUs : this.atomicHoldUs;
    const start = this.freeAtUs > nowUs ? this.freeAtUs : nowUs;
    this.waitUs += start - nowUs;
    this.freeAtUs = start + hold;
    this.busyUs += hold;
    this.ops++;
    return start + hold;
  }
}
