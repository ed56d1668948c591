/**
 * Edge cases of the allocator worked by hand from apps/docs/src/reference/parallel-block-allocation.md:
 * chunk sizes around powers of two, tables smaller than the number of
 * participants, a late participant whose full-size first chunk straddles the
 * end (with the start block near the end, so the blocks wrap), the 64-bit
 * counter overshooting past nblocks, ramp-down by a participant's *own*
 * position with at most one halving per claim, fastForward next to the wrap,
 * and the run-level API agreeing with the per-block one.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  AllocatorError,
  type AllocatorPolicy,
  createParallelScan,
  createSharedParallelScan,
  INVALID_BLOCK,
  type ParallelScan,
  type ParallelScanOptions,
  pg14ChunkSize,
} from "./index.js";
import { fastForwardScan } from "./sim.js";

// The run-level against per-block comparison walks whole relations: seconds alone, ten times that on a
// loaded 2-core machine; the timeout only catches a hang.
const HEAVY_TEST_MS = 600_000;

const backings: [string, (p: AllocatorPolicy, o: ParallelScanOptions) => ParallelScan][] = [
  ["in-process", createParallelScan],
  ["SharedArrayBuffer", createSharedParallelScan],
];

describe("pg14 chunk size at and around powers of two (apps/docs/src/reference/parallel-block-allocation.md#start-up start-up step 2)", () => {
  // size = smallest power of two >= max(nblocks div 2048, 1); a power of two is returned unchanged.
  const cases: [number, number, string][] = [
    [0, 1, "0 div 2048 = 0 -> max(0, 1) = 1"],
    [1, 1, "0 -> 1"],
    [2047, 1, "0 -> 1"],
    [2048, 1, "1 -> 1"],
    [6143, 2, "2 -> 2 (a power of two is unchanged)"],
    [6144, 4, "3 -> 4"],
    [8192, 4, "4 -> 4"],
    [10_239, 4, "4 -> 4"],
    [10_240, 8, "5 -> 8"],
    [16_384, 8, "8 -> 8"],
    [18_431, 8, "8 -> 8"],
    [18_432, 16, "9 -> 16"],
    [16_777_216, 8192, "8192 -> 8192, the cap exactly"],
  ];
  for (const [nblocks, size, why] of cases) {
    it(`${nblocks} blocks -> ${size} (${why})`, () => {
      expect(pg14ChunkSize(nblocks)).toBe(size);
    });
  }

  it("the cap binds a 2^32 - 1 block relation (2,097,151 -> 2,097,152 uncapped, 8192 capped)", () => {
    expect(pg14ChunkSize(0xffffffff, { maxChunkBlocks: null })).toBe(2_097_152);
    expect(pg14ChunkSize(0xffffffff)).toBe(8192);
  });
});

describe("tables with fewer blocks than participants (apps/docs/src/reference/parallel-block-allocation.md#spinlock-allocator, apps/docs/src/reference/parallel-block-allocation.md#atomic-counter)", () => {
  for (const [backing, create] of backings) {
    it(`${backing}: pg11 over 2 blocks with 4 participants: counters 0..5, the third caller reports`, () => {
      const ends: number[] = [];
      const scan = create({ kind: "pg11" }, { nblocks: 2, hooks: { onScanEnd: (s) => ends.push(s) } });
      const ps = [scan.join(), scan.join(), scan.join(), scan.join()];
      // one fetch-add of 1 each: counters 0, 1 are blocks 0, 1; counter 2 = nblocks reports; 3 does not
      expect(ps.map((p) => p.nextBlock())).toEqual([0, 1, INVALID_BLOCK, INVALID_BLOCK]);
      expect(ends).toEqual([0]);
      expect(ps.map((p) => p.endedScan)).toEqual([false, false, true, false]);
      // participants 0 and 1 still add past the end: counters 4 and 5, no report
      expect([ps[0]!.nextBlock(), ps[1]!.nextBlock()]).toEqual([INVALID_BLOCK, INVALID_BLOCK]);
      expect(scan.counter).toBe(6);
      expect(ends).toEqual([0]);
    });

    it(`${backing}: pg96 over 1 block: the taker of the only block reports the start block in the same call`, () => {
      const ends: number[] = [];
      const scan = create({ kind: "pg96" }, { nblocks: 1, hooks: { onScanEnd: (s) => ends.push(s) } });
      const [a, b] = [scan.join(), scan.join()];
      // page = phs_cblock = 0; advanced to 1 -> wraps to 0 = phs_startblock -> invalid, report 0
      expect(a.nextBlock()).toBe(0);
      expect(ends).toEqual([0]);
      expect(a.endedScan).toBe(true);
      expect(b.nextBlock()).toBe(INVALID_BLOCK);
      expect(ends).toEqual([0]);
      expect(scan.counter).toBe(1);
    });

    it(`${backing}: batch of 10 over 1 block: the claim [0, 10) holds the end, stepping onto counter 1 reports`, () => {
      const ends: number[] = [];
      const scan = create(
        { kind: "batch", blocksPerClaim: 10 },
        { nblocks: 1, hooks: { onScanEnd: (s) => ends.push(s) } },
      );
      const [a, b] = [scan.join(), scan.join()];
      expect(a.nextBlock()).toBe(0); // claim [0, 10)
      expect(b.nextBlock()).toBe(INVALID_BLOCK); // claim [10, 20): past the end, no report
      expect(ends).toEqual([]);
      expect(a.nextBlock()).toBe(INVALID_BLOCK); // counter 1 = nblocks inside its claim
      expect(ends).toEqual([0]);
      expect(scan.counter).toBe(20);
    });

    it(`${backing}: munro2020 and pg14 over 1 block start with a claim of 1`, () => {
      for (const kind of ["munro2020", "pg14"] as const) {
        const scan = create({ kind }, { nblocks: 1 });
        const p = scan.join();
        // munro2020: min(64, 2^0, floorPow2(max(1, 1 div 64))) = 1; pg14: max(1 div 2048, 1) = 1
        expect(p.nextRun()).toEqual({ startBlock: 0, blocks: 1, firstCounter: 0, op: "atomic" });
        expect(p.chunkBlocks).toBe(1);
        expect(p.nextRun()).toBeNull();
        expect(p.endedScan).toBe(true);
      }
    });
  }
});

describe("pg14: a late participant's full first chunk straddles the end (apps/docs/src/reference/parallel-block-allocation.md#consequences-of-chunking consequences)", () => {
  for (const [backing, create] of backings) {
    it(`${backing}: 4,096 blocks starting at block 4,090, three participants`, () => {
      const ends: number[] = [];
      const scan = create(
        { kind: "pg14" },
        { nblocks: 4096, startBlock: 4090, hooks: { onScanEnd: (s) => ends.push(s) } },
      );
      const a = scan.join();
      // Chunk size 2 (4096 div 2048 = 2). Alone, A halves once its position passes 4096 - 2 x 64 = 3968:
      // the chunk at 3968 ends at position 3969, so A takes counters 3970..4094 singly. Counter 4095 is left.
      let blocks = 0;
      while (scan.counter < 4095) blocks += a.nextRun()!.blocks;
      expect(blocks).toBe(4095);
      expect(a.chunkBlocks).toBe(1);
      // B joins: position 0, so no ramp-down: a full chunk of 2, counters [4095, 4097).
      const b = scan.join();
      // counter 4095 is block (4095 + 4090) mod 4096 = 4089, the block just before the start
      expect(b.nextRun()).toEqual({ startBlock: 4089, blocks: 1, firstCounter: 4095, op: "atomic" });
      expect(b.chunkBlocks).toBe(2);
      expect(ends).toEqual([]);
      expect(b.nextBlock()).toBe(INVALID_BLOCK); // steps onto counter 4096 = nblocks inside its chunk
      expect(ends).toEqual([4090]);
      expect(b.endedScan).toBe(true);
      // A's next claim of 1 gets counter 4097: done, no report. C joins late: chunk 2 at 4098.
      expect(a.nextRun()).toBeNull();
      const c = scan.join();
      expect(c.nextBlock()).toBe(INVALID_BLOCK);
      expect(scan.counter).toBe(4100); // 4097 + 1 (A) + 2 (C): the 64-bit counter runs past nblocks
      expect(ends).toEqual([4090]);
      expect([a.endedScan, c.endedScan]).toEqual([false, false]);
    });
  }
});

describe("pg14 ramp-down uses the participant's own position, one halving per claim (apps/docs/src/reference/parallel-block-allocation.md#block-requests step 2a)", () => {
  it("100,000 blocks: A's position stays low while B drains, so A then claims 64, 32, 16 and straddles the end", () => {
    const ends: number[] = [];
    const scan = createParallelScan(
      { kind: "pg14" },
      { nblocks: 100_000, hooks: { onScanEnd: (s) => ends.push(s) } },
    );
    const a = scan.join();
    const b = scan.join();
    expect(a.nextRun()).toMatchObject({ firstCounter: 0, blocks: 64 }); // A's position: 63
    // B drains on its own up to counter 99,900 (B's claims ramp down on B's position)
    // B's first claim is at 64, where a lone participant's second one would be, so B follows the
    // 1.6 table: 64s up to 95,936, ..., single blocks from 99,874 on, and the counter meets 99,900 exactly.
    while (scan.counter < 99_900) b.nextRun();
    expect(scan.counter).toBe(99_900);
    // A: position 63 is not past 100,000 - 64 x 64 = 95,904, so a full 64 at 99,900 (not a halved one).
    expect(a.nextRun()).toEqual({ startBlock: 99_900, blocks: 64, firstCounter: 99_900, op: "atomic" });
    expect(a.chunkBlocks).toBe(64);
    // A's position is now 99,963: past the thresholds of 64 (95,904), 32, 16, 8, 4 and 2 (99,872),
    // but it halves only once per claim: 32 at counter 99,964.
    expect(a.nextRun()).toEqual({ startBlock: 99_964, blocks: 32, firstCounter: 99_964, op: "atomic" });
    expect(a.chunkBlocks).toBe(32);
    // Position 99,995: halves to 16 at 99,996, which holds 99,996..99,999 and then counter 100,000.
    expect(a.nextRun()).toEqual({ startBlock: 99_996, blocks: 4, firstCounter: 99_996, op: "atomic" });
    expect(a.chunkBlocks).toBe(16);
    expect(ends).toEqual([]);
    expect(a.nextRun()).toBeNull();
    expect(ends).toEqual([0]);
  });
});

describe("fastForward next to the wrap (pg96, apps/docs/src/reference/parallel-block-allocation.md#spinlock-allocator cursor)", () => {
  it("10 blocks from block 6: skips 7-8, then 0-2 after the wrap, and refuses to skip onto the start block", () => {
    const ends: number[] = [];
    const scan = createParallelScan(
      { kind: "pg96" },
      { nblocks: 10, startBlock: 6, hooks: { onScanEnd: (s) => ends.push(s) } },
    );
    const p = scan.join();
    expect(p.nextBlock()).toBe(6);
    fastForwardScan(scan, 2); // the caller accounts for blocks 7 and 8
    expect(scan.counter).toBe(3);
    // The cursor sits on 9: skipping even one block would carry it past 9 to block 0 (the wrap).
    expect(() => fastForwardScan(scan, 1)).toThrow(/wrap/);
    expect(p.nextBlock()).toBe(9);
    expect(p.nextBlock()).toBe(0);
    fastForwardScan(scan, 2); // blocks 1 and 2, after the wrap: allowed (block 1 + 2 < start 6)
    expect(scan.counter).toBe(7);
    // Counter 7 + 3 = 10 = nblocks: the cursor would land on the start block, the end of the scan.
    expect(() => fastForwardScan(scan, 3)).toThrow(/end of the scan/);
    expect(p.nextBlock()).toBe(3);
    expect(p.nextBlock()).toBe(4);
    expect(ends).toEqual([]);
    expect(p.nextBlock()).toBe(5); // the last block: its call reports the start block
    expect(ends).toEqual([6]);
    expect(p.nextBlock()).toBe(INVALID_BLOCK);
  });

  it("its refusals are AllocatorErrors of one sentence", () => {
    const scan = createParallelScan({ kind: "pg11" }, { nblocks: 10 });
    for (const [fn, re] of [
      [() => fastForwardScan(scan, 1), /not started/],
      [() => fastForwardScan(scan, -1), /non-negative integer/],
      [() => fastForwardScan(createParallelScan({ kind: "munro2020" }, { nblocks: 10 }), 1), /munro2020/],
    ] as const) {
      let caught: unknown;
      try {
        fn();
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(AllocatorError);
      const err = caught as AllocatorError;
      expect(err.code).toBe("ALLOCATOR_BAD_FAST_FORWARD");
      expect(err.message).toMatch(re);
      expect(err.message).toMatch(/^[^\n]+\.$/);
      expect(err.message.slice(0, -1)).not.toMatch(/\.\s/);
    }
  });
});

describe("run level == per block", () => {
  const policy: fc.Arbitrary<AllocatorPolicy> = fc.oneof(
    fc.constant<AllocatorPolicy>({ kind: "pg96" }),
    fc.constant<AllocatorPolicy>({ kind: "pg11" }),
    fc.integer({ min: 1, max: 20 }).map<AllocatorPolicy>((n) => ({ kind: "batch", blocksPerClaim: n })),
    fc.constant<AllocatorPolicy>({ kind: "munro2020" }),
    fc.constant<AllocatorPolicy>({ kind: "pg14" }),
    fc.constant<AllocatorPolicy>({ kind: "pg14", nchunks: 64, rampdownChunks: 4 }),
  );

  it(
    "a scan driven by nextRun(k) hands each participant the same blocks, ops and end report as nextBlock() called block by block in the same order",
    () => {
      fc.assert(
        fc.property(
          policy,
          fc.integer({ min: 1, max: 12_000 }),
          fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
          fc.integer({ min: 1, max: 5 }),
          fc.array(fc.tuple(fc.nat(), fc.option(fc.integer({ min: 1, max: 300 }), { nil: undefined })), {
            minLength: 1,
            maxLength: 40,
          }),
          (pol, nblocks, startFraction, n, schedule) => {
            const startBlock = Math.floor(startFraction * nblocks);
            const endsRun: number[] = [];
            const endsBlock: number[] = [];
            const byRun = createParallelScan(pol, {
              nblocks,
              startBlock,
              hooks: { onScanEnd: (s) => endsRun.push(s) },
            });
            const byBlock = createParallelScan(pol, {
              nblocks,
              startBlock,
              hooks: { onScanEnd: (s) => endsBlock.push(s) },
            });
            const r = Array.from({ length: n }, () => byRun.join());
            const b = Array.from({ length: n }, () => byBlock.join());
            const live = r.map((_, i) => i);
            let mismatch: string | null = null;
            for (let step = 0; live.length > 0 && mismatch === null; step++) {
              const [pick, max] = schedule[step % schedule.length]!;
              const slot = pick % live.length;
              const i = live[slot]!;
              const run = r[i]!.nextRun(max);
              if (run === null) {
                if (b[i]!.nextBlock() !== INVALID_BLOCK)
                  mismatch = `step ${step}: run level done, per block not`;
                live.splice(slot, 1);
              } else {
                for (let k = 0; k < run.blocks && mismatch === null; k++) {
                  const got = b[i]!.nextBlock();
                  if (got !== run.startBlock + k)
                    mismatch = `step ${step}: block ${got}, run has ${run.startBlock + k}`;
                }
              }
              const [x, y] = [b[i]!.opsPerformed, r[i]!.opsPerformed];
              if (x.locks !== y.locks || x.atomics !== y.atomics) mismatch ??= `step ${step}: ops differ`;
              if (b[i]!.chunkBlocks !== r[i]!.chunkBlocks) mismatch ??= `step ${step}: chunk sizes differ`;
              if (byBlock.counter !== byRun.counter) mismatch ??= `step ${step}: counters differ`;
            }
            expect(mismatch).toBeNull();
            expect(endsBlock).toEqual(endsRun);
            expect(endsRun).toEqual([startBlock]);
            expect(b.map((p) => p.endedScan)).toEqual(r.map((p) => p.endedScan));
          },
        ),
        { numRuns: 150 },
      );
    },
    HEAVY_TEST_MS,
  );
});
