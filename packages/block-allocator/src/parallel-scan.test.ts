/**
 * Small worked examples of the allocator's mechanism (apps/docs/src/reference/parallel-block-allocation.md):
 * start block and wrap-around, who reports the end of the scan, the syncscan
 * start-up protocol, rescan, and what each allocation costs.
 */
import { describe, expect, it } from "vitest";
import { createParallelScan, INVALID_BLOCK, munroClaimBlocks, type ScanHooks } from "./index.js";

function recorder() {
  const calls: string[] = [];
  const hooks: ScanHooks = {
    getStartBlock: (nblocks) => {
      calls.push(`get(${nblocks})`);
      return 7;
    },
    onScanEnd: (start) => {
      calls.push(`end(${start})`);
    },
  };
  return { calls, hooks };
}

function drain(next: () => number): number[] {
  const out: number[] = [];
  for (let b = next(); b !== INVALID_BLOCK; b = next()) out.push(b);
  return out;
}

describe("pg14 (apps/docs/src/reference/parallel-block-allocation.md#chunked-allocation)", () => {
  it("gives two participants consecutive 64-block chunks of a 100,000-block table, one atomic add each", () => {
    const scan = createParallelScan({ kind: "pg14" }, { nblocks: 100_000 });
    const leader = scan.join();
    const worker = scan.join();
    expect(leader.nextRun()).toEqual({ startBlock: 0, blocks: 64, firstCounter: 0, op: "atomic" });
    expect(worker.nextRun()).toEqual({ startBlock: 64, blocks: 64, firstCounter: 64, op: "atomic" });
    expect(leader.nextRun(10)).toEqual({ startBlock: 128, blocks: 10, firstCounter: 128, op: "atomic" });
    expect(leader.nextRun()).toEqual({ startBlock: 138, blocks: 54, firstCounter: 138, op: "none" });
    // start-up takes the lock once per participant (startblock_init), then one atomic per chunk
    expect(leader.opsPerformed).toEqual({ locks: 1, atomics: 2 });
    expect(scan.counter).toBe(192);
  });

  it("maps counters to (counter + start) mod nblocks and splits a chunk where it wraps to block 0", () => {
    // 5,000 blocks -> chunk size 2; start at the last block: counter 0 is block 4999, counter 1 is block 0.
    const scan = createParallelScan({ kind: "pg14" }, { nblocks: 5_000, startBlock: 4_999 });
    const p = scan.join();
    expect(p.nextRun()).toEqual({ startBlock: 4_999, blocks: 1, firstCounter: 0, op: "atomic" });
    expect(p.nextRun()).toEqual({ startBlock: 0, blocks: 1, firstCounter: 1, op: "none" });
    expect(p.nextBlock()).toBe(1);
  });

  it("lets a late participant take a full-size first chunk even near the end (position 0 when it checks)", () => {
    const scan = createParallelScan({ kind: "pg14" }, { nblocks: 100_000 });
    const early = scan.join();
    while (scan.counter < 99_900) early.nextRun();
    const late = scan.join();
    const run = late.nextRun()!;
    expect(late.chunkBlocks).toBe(64);
    expect(run.blocks).toBe(64);
  });

  it("reports the start block once, by the participant that steps onto counter nblocks inside its chunk", () => {
    const { calls, hooks } = recorder();
    // 4,096 blocks -> chunk 2; ramp-down ends with size 1, so force a straddling chunk with a cap instead:
    // batch of 3 over 10 blocks: claims [0,3) [3,6) [6,9) [9,12); the last straddles the end.
    const scan = createParallelScan(
      { kind: "batch", blocksPerClaim: 3 },
      { nblocks: 10, startBlock: 4, hooks },
    );
    const a = scan.join();
    const b = scan.join();
    expect(a.nextRun()).toMatchObject({ startBlock: 4, blocks: 3, firstCounter: 0, op: "lock" });
    expect(b.nextRun()).toMatchObject({ startBlock: 7, blocks: 3, firstCounter: 3, op: "lock" });
    expect(a.nextRun()).toMatchObject({ startBlock: 0, blocks: 3, firstCounter: 6, op: "lock" });
    expect(b.nextRun()).toMatchObject({ startBlock: 3, blocks: 1, firstCounter: 9, op: "lock" });
    expect(calls).toEqual([]);
    expect(b.nextRun()).toBeNull(); // steps onto counter 10 = nblocks inside its claim
    expect(calls).toEqual(["end(4)"]);
    expect(b.endedScan).toBe(true);
    expect(a.nextRun()).toBeNull(); // claims [12, 15): done, no report
    expect(calls).toEqual(["end(4)"]);
    expect(a.endedScan).toBe(false);
  });
});

describe("pg11 (apps/docs/src/reference/parallel-block-allocation.md#atomic-counter)", () => {
  it("hands out one block per atomic add; the caller that draws counter nblocks reports, the next one does not", () => {
    const { calls, hooks } = recorder();
    const scan = createParallelScan({ kind: "pg11" }, { nblocks: 3, hooks });
    const a = scan.join();
    const b = scan.join();
    expect([a.nextBlock(), b.nextBlock(), a.nextBlock()]).toEqual([0, 1, 2]);
    expect(b.nextBlock()).toBe(INVALID_BLOCK); // counter 3 = nblocks
    expect(calls).toEqual(["end(0)"]);
    expect(a.nextBlock()).toBe(INVALID_BLOCK); // counter 4
    expect(calls).toEqual(["end(0)"]);
    expect(scan.counter).toBe(5); // finished participants keep adding past nblocks
    // one lock at start-up, one atomic per block plus the final one that found nothing
    expect(a.opsPerformed).toEqual({ locks: 1, atomics: 3 });
    expect(b.opsPerformed).toEqual({ locks: 1, atomics: 2 });
  });
});

describe("pg96 (apps/docs/src/reference/parallel-block-allocation.md#spinlock-allocator)", () => {
  it("walks phs_cblock from the syncscan location (fetched once, lock released), wraps to 0, and the taker of the last block reports the start block", () => {
    const calls: string[] = [];
    const scan = createParallelScan(
      { kind: "pg96" },
      {
        nblocks: 6,
        syncscan: true,
        hooks: {
          getStartBlock: (n) => {
            calls.push(`get(${n})`);
            return 4;
          },
          onScanEnd: (s) => calls.push(`end(${s})`),
        },
      },
    );
    const a = scan.join();
    const b = scan.join();
    expect([a.nextBlock(), b.nextBlock(), a.nextBlock(), a.nextBlock(), b.nextBlock()]).toEqual([
      4, 5, 0, 1, 2,
    ]);
    expect(calls).toEqual(["get(6)"]);
    expect(b.nextBlock()).toBe(3); // the last block: its call reports the start block instead
    expect(calls).toEqual(["get(6)", "end(4)"]);
    expect(b.endedScan).toBe(true);
    expect(a.nextBlock()).toBe(INVALID_BLOCK);
    expect(b.nextBlock()).toBe(INVALID_BLOCK);
    expect(calls).toEqual(["get(6)", "end(4)"]);
    // a's first call: lock, start unset, release, fetch, lock again; then one lock per call
    expect(a.opsPerformed.locks).toBe(2 + 2 + 1);
    expect(b.opsPerformed.locks).toBe(4);
  });

  it("hands out single-block runs, each one lock", () => {
    const scan = createParallelScan({ kind: "pg96" }, { nblocks: 3 });
    const p = scan.join();
    expect(p.nextRun()).toEqual({ startBlock: 0, blocks: 1, firstCounter: 0, op: "lock" });
    expect(p.nextRun(100)).toEqual({ startBlock: 1, blocks: 1, firstCounter: 1, op: "lock" });
  });
});

describe("start block and syncscan start-up (apps/docs/src/reference/parallel-block-allocation.md#spinlock-allocator step 2, apps/docs/src/reference/parallel-block-allocation.md#pg19-start-block-and-block-limit)", () => {
  it("rejects a syncscan location outside the relation with a typed error", () => {
    const { hooks } = recorder(); // returns 7
    const scan = createParallelScan({ kind: "pg14" }, { nblocks: 6, syncscan: true, hooks });
    expect(() => scan.join().nextRun()).toThrow(/getStartBlock must return an integer block below nblocks 6/);
  });

  it("takes the start block from the first participant's fetch only, in-process at most once per scan", () => {
    const { calls, hooks } = recorder();
    const scan = createParallelScan({ kind: "pg14" }, { nblocks: 100, syncscan: true, hooks });
    const ps = [scan.join(), scan.join(), scan.join()];
    for (const p of ps) p.nextRun();
    expect(calls).toEqual(["get(100)"]);
    expect(scan.startBlock).toBe(7);
  });

  it("starts at 0 without syncscan and never asks the hook", () => {
    const { calls, hooks } = recorder();
    const scan = createParallelScan({ kind: "pg14" }, { nblocks: 100, hooks });
    expect(scan.join().nextBlock()).toBe(0);
    expect(calls).toEqual([]);
  });

  it("prefers a requested start block over syncscan (PG19 0ca3b16973)", () => {
    const { calls, hooks } = recorder();
    const scan = createParallelScan(
      { kind: "pg11" },
      { nblocks: 100, syncscan: true, startBlock: 42, hooks },
    );
    expect(scan.join().nextBlock()).toBe(42);
    expect(calls).toEqual([]);
  });

  it("does nothing at all for an empty relation (heapgettup returns before start-up)", () => {
    const { calls, hooks } = recorder();
    for (const kind of ["pg96", "pg11", "pg14"] as const) {
      const scan = createParallelScan({ kind }, { nblocks: 0, syncscan: true, hooks });
      const p = scan.join();
      expect(p.nextRun()).toBeNull();
      expect(p.nextBlock()).toBe(INVALID_BLOCK);
      expect(p.opsPerformed).toEqual({ locks: 0, atomics: 0 });
    }
    expect(calls).toEqual([]);
  });
});

describe("rescan (table_block_parallelscan_reinitialize)", () => {
  it("resets the counter, keeps the start block, and every participant re-runs start-up", () => {
    for (const kind of ["pg96", "pg11", "pg14"] as const) {
      const calls: string[] = [];
      const hooks: ScanHooks = {
        getStartBlock: (n) => {
          calls.push(`get(${n})`);
          return 3;
        },
        onScanEnd: (s) => {
          calls.push(`end(${s})`);
        },
      };
      const scan = createParallelScan({ kind }, { nblocks: 10, syncscan: true, hooks });
      const a = scan.join();
      const first = drain(() => a.nextBlock());
      expect(first).toEqual([3, 4, 5, 6, 7, 8, 9, 0, 1, 2]);
      scan.rescan();
      expect(scan.startBlock).toBe(3);
      expect(scan.counter).toBe(0);
      const b = scan.join();
      expect(b.nextBlock()).toBe(3);
      expect(drain(() => a.nextBlock())).toEqual([4, 5, 6, 7, 8, 9, 0, 1, 2]);
      expect(calls, kind).toEqual(["get(10)", "end(3)", "end(3)"]);
    }
  });
});

describe("batch (2017 patch, Rowley's 2017 72-process benchmark (postgr.es/m/CAKJS1f9tgsPhqBcoPjv9_KUPZvTLCZ4jy=B=bhqgaKn7cYzm-w@mail.gmail.com))", () => {
  it("claims 10 blocks per lock and hands them out without further shared operations", () => {
    const scan = createParallelScan({ kind: "batch", blocksPerClaim: 10 }, { nblocks: 25 });
    const p = scan.join();
    expect(p.nextRun(4)).toEqual({ startBlock: 0, blocks: 4, firstCounter: 0, op: "lock" });
    expect(p.nextRun()).toEqual({ startBlock: 4, blocks: 6, firstCounter: 4, op: "none" });
    expect(p.nextRun()).toEqual({ startBlock: 10, blocks: 10, firstCounter: 10, op: "lock" });
    expect(p.nextRun()).toEqual({ startBlock: 20, blocks: 5, firstCounter: 20, op: "lock" });
    expect(p.nextRun()).toBeNull();
    expect(p.opsPerformed).toEqual({ locks: 1 + 3, atomics: 0 });
  });
});

describe("munro2020 (Munro's 2020 FreeBSD report (postgr.es/m/CA+hUKGJ_EErDv41YycXcbMbCBkztA34+z1ts9VQH+ACRuvpxig@mail.gmail.com), our documented ramp)", () => {
  it("doubles 1, 2, 4 ... up to 64, then ramps down as the relation runs out", () => {
    const scan = createParallelScan({ kind: "munro2020" }, { nblocks: 100_000 });
    const p = scan.join();
    const sizes: number[] = [];
    for (let run = p.nextRun(); run !== null; run = p.nextRun())
      if (run.op !== "none") sizes.push(p.chunkBlocks);
    expect(sizes.slice(0, 8)).toEqual([1, 2, 4, 8, 16, 32, 64, 64]);
    expect(Math.max(...sizes)).toBe(64);
    expect(sizes.at(-1)).toBe(1);
    const peak = sizes.lastIndexOf(64);
    for (let i = peak + 1; i < sizes.length; i++) expect(sizes[i]!).toBeLessThanOrEqual(sizes[i - 1]!);
  });

  it("caps the ramp-down at (blocks left) / 64 rounded down to a power of two", () => {
    expect(munroClaimBlocks(10, 100_000 - 64 * 64, 100_000)).toBe(64);
    expect(munroClaimBlocks(10, 100_000 - 64 * 64 + 1, 100_000)).toBe(32);
    expect(munroClaimBlocks(10, 100_000 - 127, 100_000)).toBe(1);
    expect(munroClaimBlocks(3, 0, 100_000)).toBe(8);
  });
});

describe("mixing nextBlock and nextRun", () => {
  it("moves the same private state", () => {
    const scan = createParallelScan({ kind: "pg14" }, { nblocks: 100_000 });
    const p = scan.join();
    expect(p.nextBlock()).toBe(0);
    expect(p.nextRun(3)).toEqual({ startBlock: 1, blocks: 3, firstCounter: 1, op: "none" });
    expect(p.nextBlock()).toBe(4);
    expect(p.nextRun()).toEqual({ startBlock: 5, blocks: 59, firstCounter: 5, op: "none" });
  });
});
