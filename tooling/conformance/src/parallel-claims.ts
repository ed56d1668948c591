/**
 * Row "parallel seq scan block claims": who reads which block of a table in a
 * cold parallel seq scan, replayed through the allocator the simulator runs
 * for that version (one block per claim for 11 and 13, PG14's chunks with
 * ramp-down and cap from 14 on).
 *
 * Capture: @scanlab/pg-harness's captureParallelScan (a table of one row per
 * block, synchronize_seqscans off so counter value = block number, cold shared
 * buffers, strace on every participant, each process's reads compressed to
 * runs of blocks).
 *
 * Replay: claims are handed out in counter order, and each is read entirely by
 * the process that made it, so walking the counter from 0, the process that
 * read block g made the claim starting at g. Feeding that schedule to the
 * allocator (that process's participant asks next) predicts each claim's size;
 * the prediction holds only if every block of the predicted claim was read by
 * that same process. Which process wins which claim is timing; given that, the
 * sizes and positions are deterministic, and they must agree exactly.
 *
 * A prediction that is too small could pass that walk (two adjacent claims of
 * one process look like one run), so two observation-only checks close the
 * gap: the gcd of the positions where the reading process changes while the
 * model hands out its first claim size, within the first three quarters of the
 * table (before any ramp-down), must equal that size (a capture where no
 * second process took one of those claims shows nothing, and is captured
 * again); and every claim size predicted for at least 10 claims must
 * show up once as an isolated run (the reading process changes right before
 * and after it), which a real claim twice as big cannot produce.
 *
 * The cap (8192 blocks, reached from 16.8 M-block tables) cannot be reached
 * with a table small enough for CI; a mutation lowering it below the observed
 * chunk size is what shows the replay would notice a wrong cap.
 */

import { type AllocatorPolicy, createParallelScan, summarizeChunkLevels } from "@scanlab/block-allocator";
import {
  blockOwners,
  type Cluster,
  captureParallelScan,
  createOneRowPerBlockTable,
  PARALLEL_SCAN_SETTINGS,
  type ParallelScanCapture,
} from "@scanlab/pg-harness";
import { DEFAULT_IO_COMBINE_LIMIT } from "@scanlab/read-stream";
import type { PgModel } from "@scanlab/simulator";
import type { Major } from "./fixtures.js";
import type { CaseBase, Mechanism } from "./mechanism.js";
import { allocatorOf, modelFor } from "./models.js";

/** One traced parallel scan. */
export interface ClaimsCase extends CaseBase, ParallelScanCapture {
  /** Table size in blocks. */
  nblocks: number;
}

/** A wrong allocator for a major (or null when the mutation does not apply to it). */
export type ClaimsMutation = (major: Major) => AllocatorPolicy | null;

const NBLOCKS = 10_000;
const TABLE = "claims";
const SCANS: readonly { workers: number; leader: boolean }[] = [
  { workers: 2, leader: true },
  { workers: 3, leader: false },
  { workers: 4, leader: true },
];

/** One cold parallel scan, traced. */
async function captureScan(pg: Cluster, workers: number, leader: boolean): Promise<ClaimsCase> {
  return {
    name: `workers=${workers} leader=${leader ? "on" : "off"}`,
    nblocks: NBLOCKS,
    ...(await captureParallelScan(pg, TABLE, workers, leader)),
  };
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/** Claims of one size needed before the trace must show one of them as an isolated run. */
const MIN_CLAIMS_FOR_ISOLATION = 10;

/** The replay and the two observation checks (see the file header); null when the allocator agrees. */
export function claimsDisagreement(c: ClaimsCase, policy: AllocatorPolicy, burstBlocks = 1): string | null {
  const { owner, problem } = blockOwners(c, c.nblocks);
  if (problem !== null) return problem;
  const n = c.nblocks;
  const scan = createParallelScan(policy, { nblocks: n });
  const participants = c.processes.map(() => scan.join());
  const claims: { participant: number; firstCounter: number; chunkBlocks: number }[] = [];
  const isolated = new Map<number, number>();
  let g = 0;
  while (g < n) {
    const i = owner[g]!;
    const p = participants[i]!;
    const run = p.nextRun();
    if (run === null || run.op === "none" || run.firstCounter !== g) {
      return `process ${i} read block ${g}, but the allocator gave its participant ${JSON.stringify(run)}`;
    }
    const size = p.chunkBlocks;
    const valid = Math.min(size, n - g);
    for (let b = g; b < g + valid; b++) {
      if (owner[b] !== i) {
        return `predicted claim [${g}, ${g + size}) of process ${i} contains block ${b}, read by process ${owner[b]}`;
      }
    }
    claims.push({ participant: i, firstCounter: g, chunkBlocks: size });
    const alone = (g === 0 || owner[g - 1] !== i) && (g + valid === n || owner[g + valid] !== i);
    isolated.set(size, (isolated.get(size) ?? 0) + (alone ? 1 : 0));
    let taken = run.blocks;
    while (taken < valid) taken += p.nextRun()!.blocks;
    g += valid;
  }
  if (c.processes.length < 2) return null;
  const first = claims[0]!.chunkBlocks;
  const levels = summarizeChunkLevels(claims);
  // The gcd of the positions where the reader changes while the model hands out its first
  // claim size must be that size: over the first three quarters of the table at most, which
  // is before any ramp-down (the last 64 chunks) of the real server or of a wrong model.
  let observedFirst = 0;
  const firstLevelEnd = Math.min(levels[1]?.firstCounter ?? n, Math.floor((3 * n) / 4));
  for (let b = 1; b < firstLevelEnd; b++) {
    if (owner[b] !== owner[b - 1]) observedFirst = gcd(observedFirst, b);
  }
  if (observedFirst !== first) {
    return observedFirst === 0
      ? `none of the ${levels[0]!.chunks} first ${first}-block claims went to a second process: nothing to compare`
      : `the reading process changes at multiples of ${observedFirst}, but the first claim size is ${first}`;
  }
  for (const [k, level] of levels.entries()) {
    if (level.chunks < MIN_CLAIMS_FOR_ISOLATION || (isolated.get(level.chunkBlocks) ?? 0) > 0) continue;
    // From 17 a participant's read stream asks for blocks until it has a whole
    // io_combine_limit read (`burstBlocks`), so claims smaller than that come in
    // bursts that fill one read: their size cannot be told from the trace beyond
    // what the walk checked. Larger claims: the gcd of the positions where the
    // reader changes inside the level (relative to its start) must be the claim
    // size itself.
    if (level.chunkBlocks < burstBlocks) continue;
    const end = levels[k + 1]?.firstCounter ?? n;
    let within = 0;
    for (let b = level.firstCounter + 1; b < end; b++) {
      if (owner[b] !== owner[b - 1]) within = gcd(within, b - level.firstCounter);
    }
    if (within !== level.chunkBlocks) {
      return `none of the ${level.chunks} predicted ${level.chunkBlocks}-block claims is a whole run of one process, and the reader changes at multiples of ${within} in that stretch`;
    }
  }
  return null;
}

/** Blocks a participant claims in one go: one read of io_combine_limit (default 16) with read streams (17+), else 1. */
function burstBlocks(model: PgModel): number {
  return model.readStreams !== "none" ? DEFAULT_IO_COMBINE_LIMIT : 1;
}

/** True when only the isolated-run check fails and only for lack of luck (timing, not a disagreement). */
function unluckyIsolation(c: ClaimsCase, major: Major): boolean {
  const model = modelFor(major);
  const r = claimsDisagreement(c, allocatorOf(model), burstBlocks(model));
  return r?.startsWith("none of the") === true;
}

export const parallelClaims: Mechanism<ClaimsCase, ClaimsMutation> = {
  name: "parallel-claims",
  title: "parallel seq scan block claims",
  mechanism: "allocator",
  observes: "strace of every participant: pread64/preadv (11: lseek + read) per block run",
  about:
    "Cold parallel seq scans (count(*) through Gather) of a 10,000-block table with one row per block, synchronize_seqscans off: every process's reads of the table traced with strace (pread64, preadv; lseek + read on 11) and compressed to runs [first block, blocks] in reading order. Captured by tooling/conformance (npm run capture -- parallel-claims).",
  versions: [11, 13, 14, 15, 16, 17, 18],
  // PG18's default io_method=worker hands the reads to I/O workers, which would hide
  // which participant claimed a block: with sync each participant reads its own.
  settings: (major) =>
    major >= 18 ? { ...PARALLEL_SCAN_SETTINGS, io_method: "sync" } : { ...PARALLEL_SCAN_SETTINGS },
  async capture(pg) {
    await createOneRowPerBlockTable(pg, TABLE, NBLOCKS);
    const cases: ClaimsCase[] = [];
    for (const { workers, leader } of SCANS) {
      let c = await captureScan(pg, workers, leader);
      // On a loaded machine one process can take every small ramp-down claim in a row, so no
      // claim of that size shows as an isolated run: that proves nothing either way, so capture
      // again (once); a claim size that is really wrong never shows one.
      const major = Number(/^\d+/.exec(await pg.psql("show server_version"))?.[0]) as Major;
      for (let retry = 0; retry < 1 && unluckyIsolation(c, major); retry++) {
        c = await captureScan(pg, workers, leader);
      }
      cases.push(c);
    }
    return cases;
  },
  replay(c, major, mutation, model = modelFor(major)) {
    const policy = mutation ? mutation(major) : allocatorOf(model);
    if (policy === null) return null;
    if (c.workersLaunched !== c.parallelWorkers)
      return `${c.workersLaunched} of ${c.parallelWorkers} workers launched`;
    const expectedProcesses = c.workersLaunched + (c.leaderParticipation ? 1 : 0);
    if (c.processes.length > expectedProcesses)
      return `${c.processes.length} processes read the table, more than ${expectedProcesses}`;
    if (!c.leaderParticipation && c.processes.some((p) => p.role === "leader"))
      return "the leader read blocks with parallel_leader_participation off";
    return claimsDisagreement(c, policy, burstBlocks(model));
  },
  sameAsFixture(live, fixture, major) {
    // Which process wins which claim is timing: the rule is that both captures are
    // the same plan and both agree with the allocator.
    if (live.name !== fixture.name || live.nblocks !== fixture.nblocks) return "a different scan";
    if (live.workersLaunched !== fixture.workersLaunched)
      return `${live.workersLaunched} workers launched, the fixture had ${fixture.workersLaunched}`;
    return parallelClaims.replay(live, major);
  },
  mutations: [
    {
      name: "one block per claim from 14 on, 16-block chunks before (the versions' allocators swapped)",
      mutation: (major) => (major >= 14 ? { kind: "pg11" } : { kind: "pg14" }),
    },
    {
      name: "PG14 nchunks 1024 instead of 2048 (chunks twice as big)",
      mutation: (m) => (m >= 14 ? { kind: "pg14", nchunks: 1024 } : null),
    },
    {
      name: "PG14 nchunks 4096 (chunks half as big)",
      mutation: (m) => (m >= 14 ? { kind: "pg14", nchunks: 4096 } : null),
    },
    {
      name: "PG14 ramp-down over the last 128 chunks instead of 64",
      mutation: (m) => (m >= 14 ? { kind: "pg14", rampdownChunks: 128 } : null),
    },
    {
      name: "PG14 ramp-down over the last 32 chunks",
      mutation: (m) => (m >= 14 ? { kind: "pg14", rampdownChunks: 32 } : null),
    },
    {
      name: "PG14 cap 2 blocks instead of 8192 (below the 4-block chunks of a 10,000-block table)",
      mutation: (m) => (m >= 14 ? { kind: "pg14", maxChunkBlocks: 2 } : null),
    },
  ],
};
