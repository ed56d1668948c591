import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AllocatorError } from "./errors.js";
import { createParallelScan, createSharedParallelScan, type Participant } from "./parallel-scan.js";
import { type AllocatorPolicy, INVALID_BLOCK } from "./policy.js";

/**
 * relabel() is the simulator's warp: a stretch of blocks that no participant
 * has reached is cut out of the relation (the scan has that much less to
 * do), or a stretch is put back into the part every participant has passed
 * (the counters move by its length). Either way, what the participants are
 * handed afterwards, read back in the old numbering, must complete the scan
 * exactly once, with nothing handed out twice and nothing lost.
 */
const POLICIES: AllocatorPolicy[] = [
  { kind: "pg96" },
  { kind: "pg11" },
  { kind: "batch", blocksPerClaim: 3 },
  { kind: "pg14", maxChunkBlocks: 8 },
  { kind: "munro2020" },
];

/** Hands out `steps` runs round-robin; returns the blocks seen. */
function drive(participants: Participant[], steps: number, seen: number[]): void {
  for (let i = 0; i < steps; i++) {
    const run = participants[i % participants.length]!.nextRun(2);
    if (run !== null) for (let k = 0; k < run.blocks; k++) seen.push(run.startBlock + k);
  }
}

function drain(participants: Participant[], seen: number[]): void {
  for (const p of participants) {
    for (let run = p.nextRun(); run !== null; run = p.nextRun())
      for (let k = 0; k < run.blocks; k++) seen.push(run.startBlock + k);
  }
}

describe("relabel", () => {
  for (const policy of POLICIES) {
    it(`${policy.kind}: cutting a stretch ahead of every participant leaves exactly the rest to scan`, () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 40, max: 400 }),
          fc.integer({ min: 0, max: 10_000 }),
          fc.integer({ min: 1, max: 30 }),
          fc.integer({ min: 0, max: 10_000 }),
          fc.integer({ min: 1, max: 60 }),
          (nblocks, startSeed, steps, gapSeed, cutSeed) => {
            const startBlock = startSeed % nblocks;
            const scan = createParallelScan(policy, { nblocks, startBlock });
            const ps = [scan.join(), scan.join(), scan.join()];
            const before: number[] = [];
            drive(ps, steps, before);
            if (scan.counter >= nblocks) return;
            // The stretch [d, d + cut) lies on the scan's remaining path, wholly ahead of the
            // shared counter (claims held privately are below it), and does not wrap.
            const frontier = (scan.counter + startBlock) % nblocks;
            const left = nblocks - scan.counter;
            const ahead = gapSeed % left;
            const d = (frontier + ahead) % nblocks;
            const cut = Math.min(cutSeed, left - ahead - 1, nblocks - d);
            if (cut <= 0) return;
            scan.relabel({
              nblocks: nblocks - cut,
              // pg96's cursor may sit on the stretch's first block: it moves to the block after it.
              mapBlock: (b) => (b < d ? b : b >= d + cut ? b - cut : d),
              counterShift: 0,
            });
            expect(scan.nblocks).toBe(nblocks - cut);
            const after: number[] = [];
            drain(ps, after);
            const seen = new Uint8Array(nblocks);
            for (const b of before) seen[b]!++;
            for (const b of after) seen[b < d ? b : b + cut]!++;
            for (let b = d; b < d + cut; b++) seen[b]!++;
            expect([...seen].every((x) => x === 1)).toBe(true);
          },
        ),
      );
    });

    it(`${policy.kind}: putting a stretch back behind every participant changes nothing ahead`, () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 40, max: 400 }),
          fc.integer({ min: 0, max: 10_000 }),
          fc.integer({ min: 1, max: 30 }),
          fc.integer({ min: 1, max: 60 }),
          (nblocks, startSeed, steps, extra) => {
            const startBlock = startSeed % nblocks;
            const scan = createParallelScan(policy, { nblocks, startBlock });
            const ps = [scan.join(), scan.join()];
            const before: number[] = [];
            drive(ps, steps, before);
            if (scan.counter >= nblocks || scan.counter === 0) return;
            // Insert `extra` blocks right after the start block: every counter value handed out
            // so far now lies that much further from the start.
            const d = startBlock + 1;
            const map = (b: number) => (b < d ? b : b + extra);
            scan.relabel({ nblocks: nblocks + extra, mapBlock: map, counterShift: extra });
            const after: number[] = [];
            drain(ps, after);
            const seen = new Uint8Array(nblocks + extra);
            for (const b of before) seen[map(b)]!++;
            for (const b of after) seen[b]!++;
            // The inserted stretch counts as already scanned (the caller accounted for it).
            for (let b = d; b < d + extra; b++) seen[b]!++;
            expect([...seen].every((x) => x === 1)).toBe(true);
          },
        ),
      );
    });
  }

  it("refuses a scan that has not started, a start block mapped out of range, and the shared backing", () => {
    const scan = createParallelScan({ kind: "pg14" }, { nblocks: 100 });
    const change = { nblocks: 90, mapBlock: (b: number) => b, counterShift: 0 };
    expect(() => scan.relabel(change)).toThrow(/has not started/);
    scan.join().nextRun();
    expect(() => scan.relabel({ ...change, mapBlock: () => 95 })).toThrow(AllocatorError);
    expect(() => scan.relabel({ ...change, counterShift: 0.5 })).toThrow(/counterShift/);
    const shared = createSharedParallelScan({ kind: "pg14" }, { nblocks: 100 });
    shared.join().nextRun();
    expect(() => shared.relabel(change)).toThrow(/in-process backing/);
    expect(scan.startBlock).not.toBe(INVALID_BLOCK);
  });
});
