/**
 * Holding the pg14 allocator against real PostgreSQL 15.
 *
 * Capture (live): a throwaway cluster (tooling/pg-harness), one table, a
 * restart before each scan so shared buffers are cold, strace on the
 * postmaster and everything it forks, and `count(*)` through a parallel seq
 * scan. PostgreSQL 15 reads heap pages one 8 kB pread64 at a time (no read
 * streams before 17), so every block a process scans is one pread of the
 * relation's files; the harness maps (segment, offset) to a block number and
 * compresses each process's reads into runs of consecutive blocks.
 *
 * Compare (offline, from the fixture): with the start block 0 (syncscan off),
 * counter value = block number. Claims are handed out in counter order, and
 * each claim is read entirely by the process that made it, so walking the
 * counter from 0, the process that read block g made the claim starting at g.
 * Replaying that schedule through our pg14 allocator (that process's
 * participant asks for its next claim) predicts the claim's size; the
 * prediction holds only if every block of the predicted claim was read by that
 * same process. Then the next claim starts right after it. Which process wins
 * which claim is timing; given that, the sizes and positions are
 * deterministic, and this is what must agree exactly.
 *
 * The replay catches a predicted claim that is too big (it would contain
 * blocks another process read) but cannot see a boundary between two adjacent
 * claims of the same process, so a prediction that is too small could pass.
 * Two observation-only checks close that gap when several processes read:
 * the gcd of the counter positions where the reading process changes, in the
 * first half of the table (always before any ramp-down), must equal the
 * predicted first chunk size; and every predicted chunk size used for at
 * least 10 claims must show up at least once as an isolated run in the trace
 * (the reading process changes right before and right after it), which a
 * real chunk twice as big cannot produce. A test feeds wrong constants to make
 * sure these checks fail.
 */
import { readFileSync } from "node:fs";
import { blockOwners, type ParallelScanCapture } from "@scanlab/pg-harness";
import {
  type ChunkLevel,
  type ClaimRecord,
  createParallelScan,
  type Pg14Options,
  summarizeChunkLevels,
} from "../src/index.js";

/** One traced parallel scan (@scanlab/pg-harness's captureParallelScan), as stored in a fixture. */
export type ScanCapture = ParallelScanCapture;

/** A fixture file: one table, several scans. */
export interface ConformanceFixture {
  about: string;
  postgres: string;
  table: string;
  nblocks: number;
  settings: Record<string, string | number | boolean>;
  captures: ScanCapture[];
}

/** What the replay found. */
export interface ReplayResult {
  /** Claims in allocation (= counter) order, as the policy predicts them for the observed schedule. */
  claims: ClaimRecord[];
  /** Chunk sizes with the counter position where each first appears, and how many. */
  levels: ChunkLevel[];
  /** Claim boundaries where the reading process changes (visible in the trace) / all claim boundaries. */
  witnessedBoundaries: number;
  boundaries: number;
  /** gcd of the counter positions in the first half of the table where the reading process changes (0 if none). */
  observedFirstChunk: number;
  /** Per predicted chunk size: claims of that size that are a whole run in the trace (process changes on both sides). */
  isolatedBySize: Map<number, number>;
  /** First disagreement between the prediction and the trace, or null. */
  problem: string | null;
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/** Replays the observed claim schedule through the pg14 allocator (see the file header). */
export function replayPg14(capture: ScanCapture, nblocks: number, options: Pg14Options = {}): ReplayResult {
  const { owner, problem: coverProblem } = blockOwners(capture, nblocks);
  const result: ReplayResult = {
    claims: [],
    levels: [],
    witnessedBoundaries: 0,
    boundaries: 0,
    observedFirstChunk: 0,
    isolatedBySize: new Map(),
    problem: coverProblem,
  };
  for (let b = 1; b < nblocks / 2; b++) {
    if (owner[b] !== owner[b - 1]) result.observedFirstChunk = gcd(result.observedFirstChunk, b);
  }
  if (coverProblem !== null) return result;
  const scan = createParallelScan({ kind: "pg14", ...options }, { nblocks });
  const participants = capture.processes.map(() => scan.join());
  let g = 0;
  while (g < nblocks) {
    const i = owner[g]!;
    const p = participants[i]!;
    const run = p.nextRun();
    if (run === null || run.op === "none" || run.firstCounter !== g) {
      result.problem = `process ${i} read block ${g}, but the allocator gave its participant ${JSON.stringify(run)}`;
      break;
    }
    const size = p.chunkBlocks;
    const valid = Math.min(size, nblocks - g);
    for (let b = g; b < g + valid; b++) {
      if (owner[b] !== i) {
        result.problem = `predicted claim [${g}, ${g + size}) of process ${i} (size ${size}) contains block ${b}, read by process ${owner[b]}`;
        break;
      }
    }
    if (result.problem !== null) break;
    if (g > 0) {
      result.boundaries++;
      if (owner[g - 1] !== i) result.witnessedBoundaries++;
    }
    result.claims.push({ participant: i, firstCounter: g, chunkBlocks: size });
    const isolated = (g === 0 || owner[g - 1] !== i) && (g + valid === nblocks || owner[g + valid] !== i);
    result.isolatedBySize.set(size, (result.isolatedBySize.get(size) ?? 0) + (isolated ? 1 : 0));
    // hand out the rest of the claim (runs never wrap: start block 0)
    let taken = run.blocks;
    while (taken < valid) taken += p.nextRun()!.blocks;
    g += valid;
  }
  result.levels = summarizeChunkLevels(result.claims);
  return result;
}

/** Claims of one size needed before the trace must show one of them as an isolated run. */
const MIN_CLAIMS_FOR_ISOLATION = 10;

/**
 * Everything that must hold for a capture to agree with the pg14 policy with
 * these constants: the replay, and, when several processes read, the two
 * observation-only checks. Returns the first problem, or null.
 */
export function pg14Disagreement(
  capture: ScanCapture,
  nblocks: number,
  options: Pg14Options = {},
): string | null {
  const r = replayPg14(capture, nblocks, options);
  if (r.problem !== null) return r.problem;
  if (capture.processes.length < 2) return null;
  const first = r.claims[0]!.chunkBlocks;
  if (r.observedFirstChunk !== first) {
    return `the reading process changes at multiples of ${r.observedFirstChunk}, but the first chunk size is ${first}`;
  }
  for (const level of r.levels) {
    if (level.chunks >= MIN_CLAIMS_FOR_ISOLATION && (r.isolatedBySize.get(level.chunkBlocks) ?? 0) === 0) {
      return `none of the ${level.chunks} predicted ${level.chunkBlocks}-block claims is a whole run of one process in the trace`;
    }
  }
  return null;
}

/** Reads a fixture file. */
export function readFixture(path: string | URL): ConformanceFixture {
  return JSON.parse(readFileSync(path, "utf8")) as ConformanceFixture;
}
