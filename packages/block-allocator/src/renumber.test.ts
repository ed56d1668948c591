import { cutStretch, restoreStretch } from "@scanlab/core/sim";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AllocatorError } from "./errors.js";
import { createParallelScan, createSharedParallelScan, type Participant } from "./parallel-scan.js";
import { type AllocatorPolicy, INVALID_BLOCK } from "./policy.js";
import { fastForwardScan, renumberScan } from "./sim.js";

/**
 * renumberScan is the simulator's warp: a stretch of blocks that no participant
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

describe("renumberScan", () => {
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
            // pg96's cursor may sit on the stretch's first block: it moves to the block after it.
            renumberScan(scan, cutStretch(0, nblocks, d, cut));
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
            const change = restoreStretch(0, nblocks, d, extra);
            const map = change.map;
            renumberScan(scan, change);
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

  it("refuses a scan that has not started, a change for another size, a cut behind the counter, and the shared backing", () => {
    const scan = createParallelScan({ kind: "pg14" }, { nblocks: 100 });
    const change = cutStretch(0, 100, 80, 10);
    expect(() => renumberScan(scan, change)).toThrow(/has not started/);
    scan.join().nextRun(); // PG14 hands out 1-block chunks at 100 blocks
    expect(() => renumberScan(scan, cutStretch(0, 120, 80, 10))).toThrow(/for 120 blocks/);
    expect(() => renumberScan(scan, cutStretch(0, 100, 0, 10))).toThrow(/start block/);
    for (let i = 0; i < 20; i++) scan.join().nextRun();
    expect(() => renumberScan(scan, cutStretch(0, 100, 5, 10))).toThrow(AllocatorError);
    const shared = createSharedParallelScan({ kind: "pg14" }, { nblocks: 100 });
    shared.join().nextRun();
    expect(() => renumberScan(shared, change)).toThrow(/in-process backing/);
    expect(scan.startBlock).not.toBe(INVALID_BLOCK);
  });

  it("moves only the counter values whose blocks lie after a stretch put back", () => {
    // A pg11 scan from block 50 of 100 has handed out 60 blocks: 50-99, then 0-9.
    const scan = createParallelScan({ kind: "pg11" }, { nblocks: 100, startBlock: 50 });
    const p = scan.join();
    for (let i = 0; i < 60; i++) p.nextBlock();
    renumberScan(scan, restoreStretch(0, 100, 5, 7)); // 7 blocks come back before block 5
    expect([scan.nblocks, scan.startBlock, scan.counter]).toEqual([107, 57, 67]);
    expect(p.nextBlock()).toBe(17); // old block 10
    renumberScan(scan, restoreStretch(0, 107, 90, 3)); // into the part already scanned
    expect([scan.startBlock, scan.counter, p.nextBlock()]).toEqual([57, 71, 18]);
  });

  it("is refused for a scan not made by createParallelScan", () => {
    const fake = { ...createParallelScan({ kind: "pg11" }, { nblocks: 10 }) };
    expect(() => renumberScan(fake, cutStretch(0, 10, 5, 2))).toThrow(/createParallelScan/);
    expect(() => fastForwardScan(fake, 1)).toThrow(/createParallelScan/);
  });
});
