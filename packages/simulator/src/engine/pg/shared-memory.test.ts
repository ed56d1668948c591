/**
 * The allocator's contended cache line as a FIFO single server: worked
 * arrivals, and the saturation rule from the header (N x hold > W + hold
 * -> one block per hold time, whatever N).
 */
import { describe, expect, it } from "vitest";
import { Scheduler } from "../loop/scheduler.js";
import { DEFAULT_CPU_COSTS } from "./cpu-costs.js";
import { SharedLine, type SharedOpKind } from "./shared-memory.js";

const line = () => new SharedLine(DEFAULT_CPU_COSTS.spinlockHoldUs, DEFAULT_CPU_COSTS.atomicOpUs);

describe("SharedLine", () => {
  it("hold times: a spinlock allocation 0.25 us, an atomic fetch-add 0.1 us", () => {
    const l = line();
    expect(l.holdUs("lock")).toBe(0.25);
    expect(l.holdUs("atomic")).toBe(0.1);
  });

  it("an operation on a free line finishes one hold later and waits for nothing", () => {
    const l = line();
    expect(l.acquire("lock", 10)).toBe(10.25);
    expect(l.acquire("atomic", 20)).toBeCloseTo(20.1, 12);
    expect(l.waitUs).toBe(0);
    expect(l.busyUs).toBeCloseTo(0.35, 12);
    expect(l.ops).toBe(2);
  });

  it("arrivals while the line is held are served one after another, first come first served", () => {
    const l = line();
    // Three participants want the lock at 0, 0.1 and 0.2.
    const done = [0, 0.1, 0.2].map((t) => l.acquire("lock", t));
    expect(done[0]).toBe(0.25);
    expect(done[1]).toBe(0.5);
    expect(done[2]).toBe(0.75);
    expect(l.waitUs).toBeCloseTo(0 + 0.15 + 0.3, 12);
    expect(l.busyUs).toBe(0.75);
    expect(l.freeAtUs).toBe(0.75);
    expect(l.ops).toBe(3);
  });

  it("lock and atomic operations share the one line", () => {
    const l = line();
    expect(l.acquire("lock", 0)).toBe(0.25);
    expect(l.acquire("atomic", 0)).toBeCloseTo(0.35, 12);
    expect(l.acquire("lock", 0)).toBeCloseTo(0.6, 12);
  });

  it("an allocation inside a chunk ('none') is free and does not touch the line", () => {
    const l = line();
    l.acquire("lock", 0);
    expect(l.acquire("none", 0.1)).toBe(0.1);
    expect(l.ops).toBe(1);
    expect(l.waitUs).toBe(0);
    expect(l.freeAtUs).toBe(0.25);
  });

  it("addBulk accounts for operations served elsewhere and moves the line's free time", () => {
    const l = line();
    l.addBulk(10, 0.1, 3, 50);
    expect(l.ops).toBe(10);
    expect(l.busyUs).toBeCloseTo(1, 12);
    expect(l.waitUs).toBe(3);
    expect(l.acquire("atomic", 40)).toBeCloseTo(50.1, 12);
    expect(l.waitUs).toBeCloseTo(13, 12);
  });

  /**
   * N participants, each taking the line once per block (op) and then working
   * W us on the block, for `untilUs`; returns blocks processed.
   */
  function scan(
    n: number,
    workUs: number,
    op: SharedOpKind,
    untilUs: number,
  ): { blocks: number; l: SharedLine } {
    const l = line();
    const s = new Scheduler();
    let blocks = 0;
    for (let p = 0; p < n; p++) {
      const id: number = s.add({
        fire(nowUs) {
          const got = l.acquire(op, nowUs);
          blocks++;
          s.schedule(id, got + workUs);
        },
      });
      s.schedule(id, 0);
    }
    s.run(untilUs);
    return { blocks, l };
  }

  it("saturated (8 x 0.25 > 1 + 0.25): the scan runs at 1 / hold = 4 blocks per us, whatever the participant count", () => {
    for (const n of [8, 16]) {
      const { blocks, l } = scan(n, 1, "lock", 10_000);
      expect(Math.abs(blocks - 40_000)).toBeLessThanOrEqual(n + 1);
      expect(l.busyUs / 10_000).toBeGreaterThan(0.999);
    }
  });

  it("not saturated (2 x 0.25 < 1.25): each participant does one block per W + hold = 1.25 us", () => {
    const { blocks, l } = scan(2, 1, "lock", 10_000);
    expect(Math.abs(blocks - (2 * 10_000) / 1.25)).toBeLessThanOrEqual(3);
    expect(l.busyUs / 10_000).toBeCloseTo(0.4, 2);
  });

  it("atomics lift the ceiling: 8 participants x 0.1 < 1.1, so 8 / 1.1 blocks per us instead of 4", () => {
    const lock = scan(8, 1, "lock", 10_000).blocks;
    const atomic = scan(8, 1, "atomic", 10_000).blocks;
    expect(Math.abs(atomic - (8 * 10_000) / 1.1)).toBeLessThanOrEqual(9);
    expect(atomic / lock).toBeGreaterThan(1.8);
    // Private chunk allocations never wait: 8 / 1.0 blocks per us.
    expect(Math.abs(scan(8, 1, "none", 10_000).blocks - 80_000)).toBeLessThanOrEqual(9);
  });
});
