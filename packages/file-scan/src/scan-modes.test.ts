/**
 * Read-stream mode and the prefetch reader on real files (the built package).
 *
 * Exact cover is checked by content as in scan-file.test.ts: the checksum of
 * all blocks (per-block hashes that include the block number) must equal the
 * one computed by reading the files front to back, and the cover counters
 * must say "exactly once". The reads each worker made are recorded
 * (`recordReads`) and checked against its claims and against the advice
 * rule of PG17's read stream.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AllocatorPolicy } from "@scanlab/block-allocator";
import { mulberry32 } from "@scanlab/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDist, makeTempDir, readChecksums, writeBlockFile } from "../test/files.js";
import { blockChecksum, sumBlockChecksums } from "./block-work.js";
import { patternOrder } from "./read-plan.js";

const { scanFile, FileScanError } = await loadDist();

const tmp = makeTempDir("scanlab-file-scan-modes-");
afterAll(() => tmp.remove());

const B = 8192;
/** 6,000 blocks (47 MiB), with a partial last block: pg14 chunks of 16 blocks for this size. */
const NBLOCKS = 6000;
const LAST_BYTES = 3000;
const file = join(tmp.dir, "modes.dat");
/** A relation of 1,000-block segments (a small segmentBlocks): 2 full segments and a partial third. */
const SEG = 1000;
const REL_BLOCKS = 2 * SEG + 517;
const rel = join(tmp.dir, "16384");
const relPaths = [rel, `${rel}.1`, `${rel}.2`];
let expected = "";
let expectedRel = "";

beforeAll(() => {
  writeBlockFile(file, (NBLOCKS - 1) * B + LAST_BYTES, B, 5);
  expected = sumBlockChecksums(readChecksums([file], B, blockChecksum));
  writeBlockFile(relPaths[0]!, SEG * B, B, 6);
  writeBlockFile(relPaths[1]!, SEG * B, B, 7);
  writeBlockFile(relPaths[2]!, (REL_BLOCKS - 2 * SEG) * B, B, 8);
  expectedRel = sumBlockChecksums(readChecksums(relPaths, B, blockChecksum));
});

type Result = Awaited<ReturnType<typeof scanFile>>;

/** Each worker's claimed blocks, in claim order. */
function claimedBlocks(w: Result["perWorker"][number]): number[] {
  const out: number[] = [];
  const c = w.claimList!;
  for (let i = 0; i < c.starts.length; i++)
    for (let k = 0; k < c.lengths[i]!; k++) out.push(c.starts[i]! + k);
  return out;
}

/** Checks every worker's reads against its claims, the combine limit, the segments and the advice rule. */
function checkReads(r: Result, ioCombineLimit: number, segmentBlocks: number, adviceGiven: boolean): void {
  let advisedReads = 0;
  for (const w of r.perWorker) {
    const { starts, lengths, advised } = w.reads;
    const readBlocks: number[] = [];
    for (let i = 0; i < starts!.length; i++) {
      const start = starts![i]!;
      const len = lengths![i]!;
      expect(len).toBeGreaterThanOrEqual(1);
      expect(len).toBeLessThanOrEqual(ioCombineLimit);
      expect(Math.floor(start / segmentBlocks)).toBe(Math.floor((start + len - 1) / segmentBlocks));
      for (let k = 0; k < len; k++) readBlocks.push(start + k);
      // PG17's rule: advised exactly when the read does not start where the previous one ended.
      const continues = i > 0 && start === starts![i - 1]! + lengths![i - 1]!;
      expect(advised![i] === 1).toBe(adviceGiven && i > 0 && !continues);
      advisedReads += advised![i]!;
    }
    // The reads are the worker's claimed blocks, in the order claimed: nothing outside its claims.
    expect(readBlocks).toEqual(claimedBlocks(w));
    // A read spans two claims only where the second begins where the first ended (PostgreSQL's
    // stream would combine those too); never across a gap.
    const c = w.claimList!;
    const claimOf = new Map<number, number>();
    for (let i = 0; i < c.starts.length; i++)
      for (let k = 0; k < c.lengths[i]!; k++) claimOf.set(c.starts[i]! + k, i);
    for (let i = 0; i < starts!.length; i++) {
      const first = claimOf.get(starts![i]!)!;
      const last = claimOf.get(starts![i]! + lengths![i]! - 1)!;
      for (let j = first; j < last; j++) expect(c.starts[j]! + c.lengths[j]!).toBe(c.starts[j + 1]);
    }
    expect(w.reads.count).toBe(starts!.length);
    expect(w.reads.adviceCalls).toBe(advised!.reduce((a, b) => a + b, 0));
  }
  expect(r.advice.calls).toBe(advisedReads);
}

describe("read-stream mode: exact cover by content, reads within claims, advice by the rule", () => {
  const policies: AllocatorPolicy[] = [{ kind: "pg14" }, { kind: "pg11" }, { kind: "munro2020" }];
  for (const policy of policies) {
    for (const workers of [1, 2, 3]) {
      for (const ioCombineLimit of [4, 16]) {
        for (const advice of [false, true]) {
          it(`${policy.kind}, ${workers} worker(s), io_combine_limit ${ioCombineLimit}, advice ${advice ? "on" : "off"}`, async () => {
            const r = await scanFile(file, {
              workers,
              policy,
              ioCombineLimit,
              effectiveIoConcurrency: 16,
              advice,
              work: "checksum",
              recordReads: true,
            });
            expect(r.work).toEqual({ kind: "checksum", checksum: expected });
            expect(r.cover).toMatchObject({ method: "counter", exact: true, readOnce: NBLOCKS });
            expect(r.bytes).toBe((NBLOCKS - 1) * B + LAST_BYTES);
            expect(r.mode).toEqual({
              kind: "read-stream",
              ioCombineLimit,
              effectiveIoConcurrency: 16,
              advice,
            });
            expect(r.advice.requested).toBe(advice);
            if (advice && !r.advice.available) console.log(`advice not available: ${r.advice.reason}`);
            checkReads(r, ioCombineLimit, 131072, advice && r.advice.available);
            expect(r.reads.count).toBe(r.perWorker.reduce((a, w) => a + w.reads.count, 0));
          });
        }
      }
    }
  }

  it("one worker, pg14, io_combine_limit 16: most reads are 16 blocks (128 kB)", async () => {
    const r = await scanFile(file, { workers: 1, ioCombineLimit: 16, recordReads: true });
    expect(r.cover.exact).toBe(true);
    expect(r.perWorker[0]!.reads.maxBlocks).toBe(16);
    // 6000 blocks in chunks of 16 (adjacent for one worker): the PG17 ramp 1, 2, 4, 8, then 16-block reads.
    expect(r.reads.meanBlocks).toBeGreaterThan(14);
    expect(r.advice).toEqual({ requested: false, available: false, calls: 0, failed: 0 });
  });

  it("never reads across a segment file of a relation; every block once by content", async () => {
    for (const workers of [1, 2]) {
      const r = await scanFile(rel, {
        relation: true,
        segmentBlocks: SEG,
        workers,
        ioCombineLimit: 32,
        effectiveIoConcurrency: 4,
        advice: true,
        work: "checksum",
        recordReads: true,
      });
      expect(r.target.segments).toHaveLength(3);
      expect(r.work).toEqual({ kind: "checksum", checksum: expectedRel });
      expect(r.cover.exact).toBe(true);
      checkReads(r, 32, SEG, r.advice.available);
    }
  });

  it("the one-block mode reports one read per block and no advice", async () => {
    const r = await scanFile(file, { workers: 2, work: "checksum", recordReads: true });
    expect(r.mode).toEqual({ kind: "blocks" });
    expect(r.work).toEqual({ kind: "checksum", checksum: expected });
    expect(r.reads.count).toBe(NBLOCKS);
    expect(r.reads.meanBlocks).toBe(1);
    expect(r.advice.calls).toBe(0);
  });

  it("a user's work module sees each block with its own bytes in combined reads", async () => {
    const labels = join(tmp.dir, "labels.mjs");
    // Counts blocks whose first 8 bytes hold their own block number (writeBlockFile's label).
    writeFileSync(
      labels,
      "export default function (bytes, block) {\n" +
        "  if (bytes.length < 8) return 1;\n" +
        "  const v = new DataView(bytes.buffer, bytes.byteOffset, 8).getUint32(0, true);\n" +
        "  return v === block ? 1 : 0;\n" +
        "}\n",
    );
    const r = await scanFile(file, { workers: 2, ioCombineLimit: 16, work: { module: labels } });
    expect(r.work).toMatchObject({ kind: "module", total: NBLOCKS });
  });
});

describe("prefetch reader: every block once, in the pattern's order, advising d reads ahead", () => {
  for (const pattern of ["forward", "backward", "random"] as const) {
    for (const adviseDistance of [0, 1, 8]) {
      it(`${pattern}, distance ${adviseDistance}`, async () => {
        const r = await scanFile(file, {
          pattern,
          adviseDistance,
          patternSeed: 9,
          work: "checksum",
          recordReads: true,
        });
        expect(r.work).toEqual({ kind: "checksum", checksum: expected });
        expect(r.cover).toMatchObject({ exact: true, readOnce: NBLOCKS });
        expect(r.mode).toEqual({ kind: "pattern", pattern, adviseDistance, seed: 9 });
        const w = r.perWorker[0]!;
        expect([...w.reads.starts!]).toEqual([...patternOrder(pattern, NBLOCKS, mulberry32(9).below)]);
        expect(w.reads.maxBlocks).toBe(1);
        expect(w.claims).toBe(0);
        const given = adviseDistance > 0 && r.advice.available;
        // d blocks before the first read, then one per read while i + d is in the file: one per block.
        expect(r.advice.calls).toBe(given ? NBLOCKS : 0);
        expect(r.advice.requested).toBe(adviseDistance > 0);
        expect([...w.reads.advised!].every((a) => a === (given ? 1 : 0))).toBe(true);
      });
    }
  }
});

describe("bad read-mode options: one sentence, FILESCAN_BAD_OPTION", () => {
  const cases: [string, Parameters<typeof scanFile>[1], RegExp][] = [
    [
      "io_combine_limit 0",
      { ioCombineLimit: 0 },
      /ioCombineLimit must be an integer from 1 to 128 \(got 0\)/,
    ],
    ["io_combine_limit 129", { ioCombineLimit: 129 }, /from 1 to 128/],
    ["effective_io_concurrency 1001", { effectiveIoConcurrency: 1001 }, /from 0 to 1000/],
    [
      "advice with eic 0",
      { advice: true, effectiveIoConcurrency: 0 },
      /advice needs effectiveIoConcurrency of at least 1/,
    ],
    [
      "an unknown pattern",
      { pattern: "sideways" as never },
      /pattern must be "forward", "backward" or "random"/,
    ],
    ["a pattern with 2 workers", { pattern: "forward", workers: 2 }, /read by one worker/],
    [
      "a distance beyond the file",
      { pattern: "forward", adviseDistance: NBLOCKS },
      /the advise distance 6000 is beyond the file: it has 6000 blocks/,
    ],
    [
      "a negative distance",
      { pattern: "forward", adviseDistance: -1 },
      /adviseDistance must be a whole number/,
    ],
    ["a distance without a pattern", { adviseDistance: 3 }, /give pattern too/],
    ["a pattern with combined reads", { pattern: "random", ioCombineLimit: 16 }, /do not apply to it/],
  ];
  for (const [name, options, message] of cases) {
    it(name, async () => {
      const e = await scanFile(file, options).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(FileScanError);
      expect((e as InstanceType<typeof FileScanError>).code).toBe("FILESCAN_BAD_OPTION");
      expect((e as Error).message).toMatch(message);
      expect((e as Error).message.split(". ").length).toBeLessThanOrEqual(2);
    });
  }
});
