/**
 * Test driver: runs a whole scan with an arbitrary interleaving of
 * participants and records everything the properties need.
 */
import type { BlockRun, ParallelScan, Participant } from "../src/index.js";
import { INVALID_BLOCK } from "../src/index.js";

export interface DrivenRun extends BlockRun {
  participant: number;
  /** The participant's chunk size right after this run was handed out. */
  chunkBlocks: number;
}

export interface DriveResult {
  runs: DrivenRun[];
  participants: Participant[];
  calls: number;
}

/**
 * Step `i` lets participant `schedule[i % schedule.length] % active.length`
 * make one request; `sizes[i % sizes.length]` picks the call: 0 = nextBlock(),
 * undefined / null = nextRun(), k = nextRun(k).
 */
export function drive(
  scan: ParallelScan,
  participantCount: number,
  schedule: readonly number[],
  sizes: readonly (number | null | undefined)[] = [null],
): DriveResult {
  const participants = Array.from({ length: participantCount }, () => scan.join());
  const active = participants.map((p, i) => ({ p, i }));
  const runs: DrivenRun[] = [];
  let step = 0;
  const sched = schedule.length > 0 ? schedule : [0];
  const sz = sizes.length > 0 ? sizes : [null];
  while (active.length > 0) {
    const slot = sched[step % sched.length]! % active.length;
    const size = sz[step % sz.length];
    step++;
    const { p, i } = active[slot]!;
    if (size === 0) {
      const before = p.opsPerformed;
      const block = p.nextBlock();
      if (block === INVALID_BLOCK) {
        active.splice(slot, 1);
        continue;
      }
      const after = p.opsPerformed;
      const op = after.atomics > before.atomics ? "atomic" : after.locks > before.locks ? "lock" : "none";
      // nextBlock does not tell the counter; recover it from the scan's start block.
      const start = scan.startBlock;
      const counter = block >= start ? block - start : block + scan.nblocks - start;
      runs.push({
        startBlock: block,
        blocks: 1,
        firstCounter: counter,
        op,
        participant: i,
        chunkBlocks: p.chunkBlocks,
      });
    } else {
      const run = size === null || size === undefined ? p.nextRun() : p.nextRun(size);
      if (run === null) {
        active.splice(slot, 1);
        continue;
      }
      runs.push({ ...run, participant: i, chunkBlocks: p.chunkBlocks });
    }
  }
  return { runs, participants, calls: step };
}

/** Checks that runs cover counter values [0, nblocks) exactly once and map to blocks as (counter + start) mod nblocks. Returns a problem or null. */
export function checkExactCover(runs: readonly BlockRun[], nblocks: number, start: number): string | null {
  const sorted = [...runs].sort((a, b) => a.firstCounter - b.firstCounter);
  let expected = 0;
  for (const r of sorted) {
    if (r.blocks < 1) return `empty run at counter ${r.firstCounter}`;
    if (r.firstCounter !== expected) return `counter ${expected} expected, run starts at ${r.firstCounter}`;
    const block = (r.firstCounter + start) % nblocks;
    if (r.startBlock !== block)
      return `counter ${r.firstCounter} handed out as block ${r.startBlock}, not ${block}`;
    if (r.startBlock + r.blocks > nblocks)
      return `run at block ${r.startBlock} of ${r.blocks} blocks crosses block ${nblocks}`;
    expected += r.blocks;
  }
  if (expected !== nblocks) return `counters end at ${expected}, not ${nblocks}`;
  return null;
}

/** Counts how many times each block of [0, nblocks) was handed out (for small relations). */
export function blockCounts(runs: readonly BlockRun[], nblocks: number): Uint8Array {
  const counts = new Uint8Array(nblocks);
  for (const r of runs) for (let b = r.startBlock; b < r.startBlock + r.blocks; b++) counts[b]!++;
  return counts;
}
