/**
 * Properties every policy must keep under any interleaving of participants
 * (apps/docs/src/reference/parallel-block-allocation.md):
 * - every block of [0, nblocks) handed out exactly once, for any size from 0 to
 *   2^32 - 1 (runs for large sizes), any start block, 1 to 128 participants;
 * - chunk sizes never increase within a participant (pg14, pg11, batch, pg96),
 *   and rise then fall for munro2020;
 * - exactly one end-of-scan report, with the start block, for a non-empty relation;
 * - the per-block behaviour is identical to a literal transcription of
 *   PostgreSQL's C functions (written below from apps/docs/src/reference/parallel-block-allocation.md#spinlock-allocator, apps/docs/src/reference/parallel-block-allocation.md#chunked-allocation).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { blockCounts, checkExactCover, drive } from "../test/drive.js";
import {
  type AllocatorPolicy,
  createParallelScan,
  INVALID_BLOCK,
  MAX_NBLOCKS,
  pg14ChunkSize,
} from "./index.js";

// Property runs of every policy over relations up to 2^32 - 1 blocks take seconds alone and ten times
// that on a loaded 2-core machine; the timeout only catches a hang.
const HEAVY_TEST_MS = 600_000;

const smallPolicy: fc.Arbitrary<AllocatorPolicy> = fc.oneof(
  fc.constant<AllocatorPolicy>({ kind: "pg96" }),
  fc.constant<AllocatorPolicy>({ kind: "pg11" }),
  fc.integer({ min: 1, max: 40 }).map<AllocatorPolicy>((n) => ({ kind: "batch", blocksPerClaim: n })),
  fc
    .option(fc.integer({ min: 1, max: 128 }), { nil: undefined })
    .map<AllocatorPolicy>((m) =>
      m === undefined ? { kind: "munro2020" } : { kind: "munro2020", maxChunkBlocks: m },
    ),
  fc.constant<AllocatorPolicy>({ kind: "pg14" }),
  fc
    .record({
      nchunks: fc.integer({ min: 1, max: 4096 }),
      rampdownChunks: fc.integer({ min: 0, max: 128 }),
      maxChunkBlocks: fc.option(fc.integer({ min: 1, max: 10_000 }), { nil: null }),
    })
    .map<AllocatorPolicy>((o) => ({ kind: "pg14", ...o })),
);

const scanCase = (maxNblocks: number) =>
  fc
    .record({
      nblocks: fc.integer({ min: 0, max: maxNblocks }),
      startFraction: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
      participants: fc.integer({ min: 1, max: 128 }),
      schedule: fc.array(fc.nat(), { minLength: 1, maxLength: 64 }),
      sizes: fc.array(fc.option(fc.integer({ min: 0, max: 50 }), { nil: null }), {
        minLength: 1,
        maxLength: 16,
      }),
      syncscan: fc.boolean(),
    })
    .map((c) => ({ ...c, start: c.nblocks === 0 ? 0 : Math.floor(c.startFraction * c.nblocks) }));

function nonIncreasingPerParticipant(
  runs: { participant: number; op: string; chunkBlocks: number }[],
): string | null {
  const last = new Map<number, number>();
  for (const r of runs) {
    if (r.op === "none") continue;
    const prev = last.get(r.participant);
    if (prev !== undefined && r.chunkBlocks > prev)
      return `participant ${r.participant}: ${prev} then ${r.chunkBlocks}`;
    last.set(r.participant, r.chunkBlocks);
  }
  return null;
}

describe("exact cover, small relations, every policy", () => {
  it(
    "hands every block out exactly once, whatever the policy, start block, participants and interleaving",
    () => {
      fc.assert(
        fc.property(smallPolicy, scanCase(3_000), (policy, c) => {
          const ends: number[] = [];
          const scan = createParallelScan(policy, {
            nblocks: c.nblocks,
            syncscan: c.syncscan,
            hooks: { getStartBlock: () => c.start, onScanEnd: (s) => ends.push(s) },
          });
          const { runs, participants } = drive(scan, c.participants, c.schedule, c.sizes);
          const counts = blockCounts(runs, c.nblocks);
          expect(counts.every((n) => n === 1)).toBe(true);
          expect(runs.reduce((s, r) => s + r.blocks, 0)).toBe(c.nblocks);
          expect(checkExactCover(runs, c.nblocks, c.syncscan ? c.start : 0)).toBeNull();
          expect(ends).toEqual(c.nblocks === 0 ? [] : [c.syncscan ? c.start : 0]);
          expect(participants.filter((p) => p.endedScan).length).toBe(c.nblocks === 0 ? 0 : 1);
          expect(participants.every((p) => p.done)).toBe(true);
        }),
        { numRuns: 400 },
      );
    },
    HEAVY_TEST_MS,
  );

  it(
    "keeps each participant's chunk sizes from increasing (pg96, pg11, batch, pg14) and munro2020's rising then falling",
    () => {
      fc.assert(
        fc.property(smallPolicy, scanCase(20_000), (policy, c) => {
          const scan = createParallelScan(policy, {
            nblocks: c.nblocks,
            startBlock: c.nblocks > 0 ? c.start : undefined,
          });
          const { runs } = drive(scan, Math.min(c.participants, 8), c.schedule, [null]);
          if (policy.kind !== "munro2020") {
            expect(nonIncreasingPerParticipant(runs)).toBeNull();
            return;
          }
          const byParticipant = new Map<number, number[]>();
          for (const r of runs)
            if (r.op !== "none")
              byParticipant.set(r.participant, [...(byParticipant.get(r.participant) ?? []), r.chunkBlocks]);
          for (const sizes of byParticipant.values()) {
            const peak = sizes.indexOf(Math.max(...sizes));
            for (let i = 1; i <= peak; i++) expect(sizes[i]!).toBeGreaterThanOrEqual(sizes[i - 1]!);
            for (let i = peak + 1; i < sizes.length; i++)
              expect(sizes[i]!).toBeLessThanOrEqual(sizes[i - 1]!);
            expect(Math.max(...sizes)).toBeLessThanOrEqual(
              scan.policy.kind === "munro2020" ? scan.policy.maxChunkBlocks : 0,
            );
          }
        }),
        { numRuns: 150 },
      );
    },
    HEAVY_TEST_MS,
  );

  it(
    "covers the relation again after a rescan, with one more end report and the same start block",
    () => {
      fc.assert(
        fc.property(smallPolicy, scanCase(2_000), (policy, c) => {
          fc.pre(c.nblocks > 0);
          const ends: number[] = [];
          const scan = createParallelScan(policy, {
            nblocks: c.nblocks,
            startBlock: c.start,
            hooks: { onScanEnd: (s) => ends.push(s) },
          });
          drive(scan, c.participants, c.schedule, c.sizes);
          scan.rescan();
          const second = drive(scan, c.participants, [...c.schedule].reverse(), c.sizes);
          expect(checkExactCover(second.runs, c.nblocks, c.start)).toBeNull();
          expect(ends).toEqual([c.start, c.start]);
        }),
        { numRuns: 100 },
      );
    },
    HEAVY_TEST_MS,
  );
});

describe("exact cover, relations up to 2^32 - 1 blocks (run level)", () => {
  const bigPolicy: fc.Arbitrary<AllocatorPolicy> = fc.oneof(
    fc.constant<AllocatorPolicy>({ kind: "pg14" }),
    fc.constant<AllocatorPolicy>({ kind: "pg14", maxChunkBlocks: null }),
    fc
      .integer({ min: 65_536, max: 2 ** 24 })
      .map<AllocatorPolicy>((n) => ({ kind: "batch", blocksPerClaim: n })),
  );
  const bigSize = fc.oneof(
    fc.constant(MAX_NBLOCKS),
    fc.integer({ min: 2 ** 31, max: MAX_NBLOCKS }),
    fc.integer({ min: 0, max: MAX_NBLOCKS }),
  );

  it(
    "hands out every counter value exactly once and maps it to (counter + start) mod nblocks",
    () => {
      fc.assert(
        fc.property(
          bigPolicy,
          bigSize,
          fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
          fc.integer({ min: 1, max: 128 }),
          fc.array(fc.nat(), { minLength: 1, maxLength: 32 }),
          (policy, nblocks, startFraction, participants, schedule) => {
            const start = Math.floor(startFraction * nblocks);
            const ends: number[] = [];
            const scan = createParallelScan(policy, {
              nblocks,
              startBlock: nblocks > 0 ? start : undefined,
              hooks: { onScanEnd: (s) => ends.push(s) },
            });
            const { runs } = drive(scan, participants, schedule, [null, 2 ** 20, null]);
            expect(checkExactCover(runs, nblocks, start)).toBeNull();
            expect(runs.every((r) => r.startBlock < INVALID_BLOCK)).toBe(true);
            expect(ends).toEqual(nblocks === 0 ? [] : [start]);
            expect(nonIncreasingPerParticipant(runs)).toBeNull();
            if (policy.kind === "pg14" && nblocks > 0) {
              const first = runs.find((r) => r.op === "atomic")!;
              expect(first.chunkBlocks).toBe(pg14ChunkSize(nblocks, policy));
            }
          },
        ),
        { numRuns: 10 },
      );
    },
    HEAVY_TEST_MS,
  );

  it(
    "survives the largest relation: 2^32 - 1 blocks starting at the last valid block 0xFFFFFFFE",
    () => {
      const scan = createParallelScan(
        { kind: "pg14" },
        { nblocks: MAX_NBLOCKS, startBlock: MAX_NBLOCKS - 1 },
      );
      const { runs } = drive(scan, 3, [0, 1, 2], [null]);
      expect(checkExactCover(runs, MAX_NBLOCKS, MAX_NBLOCKS - 1)).toBeNull();
      // participant 0's first 8192-block chunk: block 0xFFFFFFFE alone, then blocks 0..8190 (split at the wrap)
      expect(runs[0]).toMatchObject({
        participant: 0,
        startBlock: 0xfffffffe,
        blocks: 1,
        firstCounter: 0,
        op: "atomic",
      });
      const wrapped = runs.find((r) => r.firstCounter === 1);
      expect(wrapped).toMatchObject({ participant: 0, startBlock: 0, blocks: 8191, op: "none" });
      expect(scan.counter).toBeGreaterThan(MAX_NBLOCKS); // the 64-bit counter runs past 2^32 - 1
    },
    HEAVY_TEST_MS,
  );
});

/**
 * Literal transcriptions of PostgreSQL's per-block functions, statement by
 * statement, as described in apps/docs/src/reference/parallel-block-allocation.md#spinlock-allocator (heap_parallelscan_nextpage,
 * 9.6-10) and 1.4 (table_block_parallelscan_startblock_init / _nextpage,
 * 14+), without syncscan. Used as an oracle for the run-level engine.
 */
class Pg14Reference {
  phs_nallocated = 0;
  phs_startblock = INVALID_BLOCK;
  constructor(
    readonly phs_nblocks: number,
    readonly requestedStart: number,
  ) {}
  worker() {
    const w = { phsw_nallocated: 0, phsw_chunk_remaining: 0, phsw_chunk_size: 0, inited: false };
    return (): number => {
      if (!w.inited) {
        // startblock_init: zero, size = min(nextpow2(max(nblocks / 2048, 1)), 8192), set start block
        w.inited = true;
        let size = 1;
        while (size < Math.max(Math.floor(this.phs_nblocks / 2048), 1)) size *= 2;
        w.phsw_chunk_size = Math.min(size, 8192);
        if (this.phs_startblock === INVALID_BLOCK) this.phs_startblock = this.requestedStart;
      }
      let nallocated: number;
      if (w.phsw_chunk_remaining > 0) {
        nallocated = ++w.phsw_nallocated;
        w.phsw_chunk_remaining--;
      } else {
        // uint32 arithmetic: phs_nblocks - chunk_size * 64
        if (w.phsw_chunk_size > 1 && w.phsw_nallocated > (this.phs_nblocks - w.phsw_chunk_size * 64) >>> 0) {
          w.phsw_chunk_size >>= 1;
        }
        nallocated = w.phsw_nallocated = this.phs_nallocated;
        this.phs_nallocated += w.phsw_chunk_size;
        w.phsw_chunk_remaining = w.phsw_chunk_size - 1;
      }
      if (nallocated >= this.phs_nblocks) return INVALID_BLOCK;
      return (nallocated + this.phs_startblock) % this.phs_nblocks;
    };
  }
}

class Pg96Reference {
  phs_startblock = INVALID_BLOCK;
  phs_cblock = INVALID_BLOCK;
  reports: number[] = [];
  constructor(
    readonly rs_nblocks: number,
    readonly requestedStart: number,
  ) {}
  worker() {
    return (): number => {
      let report_page = INVALID_BLOCK;
      if (this.phs_startblock === INVALID_BLOCK) {
        this.phs_startblock = this.requestedStart;
        this.phs_cblock = this.phs_startblock;
      }
      const page = this.phs_cblock;
      if (page !== INVALID_BLOCK) {
        this.phs_cblock++;
        if (this.phs_cblock >= this.rs_nblocks) this.phs_cblock = 0;
        if (this.phs_cblock === this.phs_startblock) {
          this.phs_cblock = INVALID_BLOCK;
          report_page = this.phs_startblock;
        }
      }
      if (report_page !== INVALID_BLOCK) this.reports.push(report_page);
      return page;
    };
  }
}

describe("per-block behaviour equals PostgreSQL's C code (apps/docs/src/reference/parallel-block-allocation.md#spinlock-allocator, apps/docs/src/reference/parallel-block-allocation.md#chunked-allocation)", () => {
  const interleaving = fc.record({
    nblocks: fc.oneof(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 3_000, max: 40_000 })),
    startFraction: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
    participants: fc.integer({ min: 1, max: 16 }),
    schedule: fc.array(fc.nat(), { minLength: 1, maxLength: 200 }),
  });

  type Interleaving = typeof interleaving extends fc.Arbitrary<infer T> ? T : never;

  function compare(kind: "pg14" | "pg96", c: Interleaving) {
    const start = Math.floor(c.startFraction * c.nblocks);
    const ends: number[] = [];
    const scan = createParallelScan(
      { kind },
      { nblocks: c.nblocks, startBlock: start, hooks: { onScanEnd: (s) => ends.push(s) } },
    );
    const ours = Array.from({ length: c.participants }, () => scan.join());
    const ref = kind === "pg14" ? new Pg14Reference(c.nblocks, start) : new Pg96Reference(c.nblocks, start);
    const theirs = Array.from({ length: c.participants }, () => ref.worker());
    const live = ours.map((_, i) => i);
    let step = 0;
    let mismatch: string | null = null;
    while (live.length > 0 && mismatch === null) {
      const slot = c.schedule[step++ % c.schedule.length]! % live.length;
      const i = live[slot]!;
      const a = ours[i]!.nextBlock();
      const b = theirs[i]!();
      if (a !== b) mismatch = `step ${step}, participant ${i}: ours ${a}, PostgreSQL's ${b}`;
      if (a === INVALID_BLOCK) live.splice(slot, 1);
    }
    expect(mismatch).toBeNull();
    if (ref instanceof Pg96Reference) expect(ends).toEqual(ref.reports);
  }

  it(
    "pg14: same block for the same participant at every step of any interleaving",
    () => {
      fc.assert(
        fc.property(interleaving, (c) => compare("pg14", c)),
        { numRuns: 150 },
      );
    },
    HEAVY_TEST_MS,
  );

  it(
    "pg96: same block at every step, and the same end-of-scan report",
    () => {
      fc.assert(
        fc.property(interleaving, (c) => compare("pg96", c)),
        { numRuns: 150 },
      );
    },
    HEAVY_TEST_MS,
  );
});
