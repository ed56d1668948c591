/**
 * The PG17 read-stream plan on its own, fed known claims: which reads it
 * makes, which it advises and when (read-plan.ts;
 * apps/docs/src/reference/read-streams.md#pg17-look-ahead).
 */
import { mulberry32 } from "@scanlab/core";
import { describe, expect, it } from "vitest";
import { patternOrder, ReadStreamPlan } from "./read-plan.js";

interface Claim {
  start: number;
  blocks: number;
}
type Event =
  | { kind: "claim"; start: number }
  | { kind: "advise"; start: number; blocks: number }
  | { kind: "hand"; block: number }
  | Read;
interface Read {
  kind: "read";
  start: number;
  blocks: number;
  advised: boolean;
}

/** Runs a plan over `claims` as the worker does, and returns everything it did in order. */
function run(
  claims: readonly Claim[],
  o: { ioCombineLimit: number; effectiveIoConcurrency: number; advice: boolean; segmentBlocks?: number },
  perBlock = o.advice,
): { events: Event[]; reads: Read[]; handed: number[] } {
  const events: Event[] = [];
  let c = 0;
  const plan = new ReadStreamPlan(
    { segmentBlocks: 131072, ...o },
    {
      nextRun(out) {
        if (c === claims.length) return false;
        const claim = claims[c++]!;
        events.push({ kind: "claim", start: claim.start });
        out.start = claim.start;
        out.blocks = claim.blocks;
        return true;
      },
      advise(start, blocks) {
        events.push({ kind: "advise", start, blocks });
      },
    },
  );
  const reads: Read[] = [];
  const handed: number[] = [];
  while (plan.waitHead()) {
    const read: Read = { kind: "read", start: plan.ioStart, blocks: plan.ioBlocks, advised: plan.ioAdvised };
    events.push(read);
    reads.push(read);
    for (let k = 0; k < read.blocks; k++) {
      if (perBlock) plan.release(1);
      handed.push(read.start + k);
      events.push({ kind: "hand", block: read.start + k });
    }
    if (!perBlock) plan.release(read.blocks);
  }
  return { events, reads, handed };
}

const blocksOf = (claims: readonly Claim[]): number[] =>
  claims.flatMap((c) => Array.from({ length: c.blocks }, (_, i) => c.start + i));

/** One worker's share of a 2-worker pg14 scan with 64-block chunks: every other chunk. */
const EVERY_OTHER_CHUNK: Claim[] = [
  { start: 0, blocks: 64 },
  { start: 128, blocks: 64 },
  { start: 256, blocks: 64 },
];

describe("PG17 read stream over a worker's claims", () => {
  it("reads every claimed block once, in order, in reads of at most io_combine_limit blocks", () => {
    for (const ioCombineLimit of [1, 2, 16, 32]) {
      for (const effectiveIoConcurrency of [0, 1, 16]) {
        for (const advice of [false, true]) {
          const { reads, handed } = run(EVERY_OTHER_CHUNK, {
            ioCombineLimit,
            effectiveIoConcurrency,
            advice,
          });
          expect(handed).toEqual(blocksOf(EVERY_OTHER_CHUNK));
          expect(Math.max(...reads.map((r) => r.blocks))).toBeLessThanOrEqual(ioCombineLimit);
        }
      }
    }
  });

  it("looking ahead once per read forms exactly the reads, and the advice, of looking ahead after every block", () => {
    const random = mulberry32(11);
    const claims: Claim[] = [];
    let at = 0;
    for (let i = 0; i < 200; i++) {
      at += random.below(2) === 0 ? 0 : random.below(50);
      const blocks = 1 + random.below(70);
      claims.push({ start: at, blocks });
      at += blocks;
    }
    for (const ioCombineLimit of [1, 4, 16, 32]) {
      for (const effectiveIoConcurrency of [0, 1, 4, 16]) {
        for (const advice of [false, true]) {
          const o = { ioCombineLimit, effectiveIoConcurrency, advice, segmentBlocks: 300 };
          expect(run(claims, o, false).reads).toEqual(run(claims, o, true).reads);
        }
      }
    }
  });

  it("ramps up as PG17 does without advice: reads of 1, 2, 4, 8 blocks, then full 16-block reads", () => {
    const { reads } = run([{ start: 0, blocks: 200 }], {
      ioCombineLimit: 16,
      effectiveIoConcurrency: 1,
      advice: false,
    });
    expect(reads.slice(0, 5).map((r) => [r.start, r.blocks])).toEqual([
      [0, 1],
      [1, 2],
      [3, 4],
      [7, 8],
      [15, 16],
    ]);
    // 200 - 31 = 169 blocks left: ten full reads and one of 9 at the end of the stream.
    expect(reads.slice(5).map((r) => r.blocks)).toEqual([16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 9]);
  });

  it("advises exactly the reads that do not continue the previous one, never the first, none without advice", () => {
    const claims: Claim[] = [
      { start: 0, blocks: 40 },
      { start: 40, blocks: 40 }, // adjacent: continues the previous read, no advice
      { start: 500, blocks: 3 }, // jump
      { start: 100, blocks: 70 }, // jump backwards
      { start: 170, blocks: 1 }, // adjacent
      { start: 10_000, blocks: 50 }, // jump
    ];
    const on = run(claims, { ioCombineLimit: 16, effectiveIoConcurrency: 16, advice: true });
    const advisedStarts = on.reads.filter((r) => r.advised).map((r) => r.start);
    expect(advisedStarts).toEqual([500, 100, 10_000]);
    // The rule, read by read: advised <=> it does not start where the previous read ended.
    on.reads.forEach((r, i) => {
      const prev = on.reads[i - 1];
      expect(r.advised).toBe(prev !== undefined && r.start !== prev.start + prev.blocks);
    });
    // Each advice call is the whole read, given once.
    const adviceCalls = on.events.filter((e) => e.kind === "advise");
    expect(adviceCalls).toEqual(
      on.reads.filter((r) => r.advised).map((r) => ({ kind: "advise", start: r.start, blocks: r.blocks })),
    );
    // Without advice (a SEQUENTIAL stream), or with effective_io_concurrency 0: not one call.
    for (const o of [
      { effectiveIoConcurrency: 16, advice: false },
      { effectiveIoConcurrency: 0, advice: true },
    ]) {
      const off = run(claims, { ioCombineLimit: 16, ...o });
      expect(off.events.filter((e) => e.kind === "advise")).toEqual([]);
      expect(off.handed).toEqual(blocksOf(claims));
    }
  });

  it("advises at a distance: the jump to the third chunk is advised while the consumer is still in the second", () => {
    const { events, reads } = run(EVERY_OTHER_CHUNK, {
      ioCombineLimit: 16,
      effectiveIoConcurrency: 16,
      advice: true,
    });
    expect(reads.filter((r) => r.advised).map((r) => r.start)).toEqual([128, 256]);
    const advise256 = events.findIndex((e) => e.kind === "advise" && e.start === 256);
    const read256 = events.findIndex((e) => e.kind === "read" && e.start === 256);
    expect(advise256).toBeGreaterThanOrEqual(0);
    const handedBetween = events.slice(advise256, read256).filter((e) => e.kind === "hand").length;
    // After the advised read at 128 the distance doubled to 32 (max_pinned_buffers 64), so the next jump is
    // started, and advised, while blocks of the second chunk are still being handed out.
    expect(handedBetween).toBeGreaterThanOrEqual(4);
    // The third chunk is claimed before the second is finished, as PostgreSQL's look-ahead calls its callback early.
    const claim256 = events.findIndex((e) => e.kind === "claim" && e.start === 256);
    const hand191 = events.findIndex((e) => e.kind === "hand" && e.block === 191);
    expect(claim256).toBeLessThan(hand191);
  });

  it("combines adjacent claims as PostgreSQL's stream does (one block per claim, pg11), but never across a gap or a segment file", () => {
    const single: Claim[] = Array.from({ length: 64 }, (_, i) => ({ start: i, blocks: 1 }));
    const { reads } = run(single, { ioCombineLimit: 16, effectiveIoConcurrency: 1, advice: false });
    expect(Math.max(...reads.map((r) => r.blocks))).toBe(16);

    const random = mulberry32(7);
    const claims: Claim[] = [];
    let at = 0;
    for (let i = 0; i < 300; i++) {
      const gap = random.below(3) === 0 ? 0 : 1 + random.below(40);
      at += gap;
      const blocks = 1 + random.below(30);
      claims.push({ start: at, blocks });
      at += blocks;
    }
    const spans: Claim[] = [];
    for (const c of claims) {
      const last = spans[spans.length - 1];
      if (last !== undefined && last.start + last.blocks === c.start) last.blocks += c.blocks;
      else spans.push({ ...c });
    }
    const segmentBlocks = 100;
    for (const ioCombineLimit of [3, 16, 128]) {
      const { reads, handed } = run(claims, {
        ioCombineLimit,
        effectiveIoConcurrency: 4,
        advice: true,
        segmentBlocks,
      });
      expect(handed).toEqual(blocksOf(claims));
      for (const r of reads) {
        expect(r.blocks).toBeLessThanOrEqual(ioCombineLimit);
        const span = spans.find((s) => s.start <= r.start && r.start < s.start + s.blocks)!;
        expect(r.start + r.blocks).toBeLessThanOrEqual(span.start + span.blocks);
        expect(Math.floor(r.start / segmentBlocks)).toBe(
          Math.floor((r.start + r.blocks - 1) / segmentBlocks),
        );
      }
    }
  });
});

describe("prefetch pattern orders", () => {
  it("forward, backward and a seeded permutation of every block", () => {
    const below = mulberry32(3).below;
    expect([...patternOrder("forward", 5, below)]).toEqual([0, 1, 2, 3, 4]);
    expect([...patternOrder("backward", 5, below)]).toEqual([4, 3, 2, 1, 0]);
    const r = [...patternOrder("random", 1000, mulberry32(3).below)];
    expect([...r].sort((a, b) => a - b)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    expect(r).toEqual([...patternOrder("random", 1000, mulberry32(3).below)]);
    expect(r).not.toEqual([...patternOrder("random", 1000, mulberry32(4).below)]);
  });
});
