/**
 * scanFile on real files (the built package: its workers only exist in dist/).
 *
 * Exact cover is checked by content, not by trusting the scanner's own
 * counters: every block of the test file carries its block number in its
 * first 8 bytes, and the checksum of all blocks (a sum of per-block hashes
 * that include the block number, block-work.ts) must equal the one computed
 * here by reading the file front to back. A block skipped, read twice or read
 * from the wrong offset changes it.
 */
import { createHash } from "node:crypto";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AllocatorPolicy } from "@scanlab/block-allocator";
import { createParallelScan, pg14ChunkSize } from "@scanlab/block-allocator";
import { fileIdentityKey, SharedSyncScanTracker } from "@scanlab/syncscan";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDist, makeTempDir, readChecksums, writeBlockFile } from "../test/files.js";
import { blockChecksum, sumBlockChecksums } from "./block-work.js";

const { scanFile } = await loadDist();

function fileIdentityKeyOf(path: string): number {
  const st = statSync(path, { bigint: true });
  return fileIdentityKey({ dev: st.dev, ino: st.ino });
}

const tmp = makeTempDir();
afterAll(() => tmp.remove());

const B = 8192;
/** 40,000 blocks of 8 kB = 312.5 MiB: "hundreds of MB", and pg14 chunks of 32 blocks (40000 div 2048 = 19 -> 32). */
const NBLOCKS = 40_000;
const big = join(tmp.dir, "big.dat");
let expectedChecksum = "";

const sleepy = new URL("../test/sleepy-work.mjs", import.meta.url).href;
const nap = new URL("../test/nap-work.mjs", import.meta.url).href;
const blockNumber = new URL("../test/block-number-work.mjs", import.meta.url).href;

beforeAll(() => {
  writeBlockFile(big, NBLOCKS * B, B, 42);
  expectedChecksum = sumBlockChecksums(readChecksums([big], B, blockChecksum));
});

const POLICIES: AllocatorPolicy[] = [
  { kind: "pg96" },
  { kind: "pg11" },
  { kind: "batch", blocksPerClaim: 10 },
  { kind: "munro2020" },
  { kind: "pg14" },
];

describe("exact cover by content: every policy, 1-4 workers, 312 MiB file", () => {
  for (const policy of POLICIES) {
    for (const workers of [1, 2, 3, 4]) {
      it(`${policy.kind}, ${workers} worker(s)`, async () => {
        const r = await scanFile(big, { workers, policy, work: "checksum" });
        expect(r.work).toEqual({ kind: "checksum", checksum: expectedChecksum });
        expect(r.cover).toMatchObject({ method: "counter", exact: true, readOnce: NBLOCKS, neverRead: 0 });
        expect(r.blocks).toBe(NBLOCKS);
        expect(r.bytes).toBe(NBLOCKS * B);
        expect(r.perWorker).toHaveLength(workers);
        expect(r.perWorker.reduce((s, w) => s + w.blocks, 0)).toBe(NBLOCKS);
        // The run lists tile the file too (the second, independent cover check).
        const runBlocks = r.perWorker.reduce((s, w) => s + w.runs.lengths!.reduce((a, b) => a + b, 0), 0);
        expect(runBlocks).toBe(NBLOCKS);
        expect(r.aborted).toBe(false);
        expect(r.policy.kind).toBe(policy.kind);
        expect(["cold", "warm", "mixed", "unknown"]).toContain(r.cache.state);
      });
    }
  }

  it('the "runs" cover method agrees, and each block says its own number (3 workers, pg14)', async () => {
    const r = await scanFile(big, { workers: 3, work: { module: blockNumber }, cover: "runs" });
    expect(r.cover).toMatchObject({ method: "runs", exact: true, readOnce: NBLOCKS });
    expect(r.work).toMatchObject({ kind: "module", total: NBLOCKS });
  });

  it("count-bytes counts the non-zero bytes of the whole file", async () => {
    const data = readFileSync(big);
    let nonZero = 0;
    for (let i = 0; i < data.length; i++) if (data[i] !== 0) nonZero++;
    const r = await scanFile(big, { workers: 2, work: "count-bytes" });
    expect(r.work).toEqual({ kind: "count-bytes", nonZeroBytes: nonZero });
  });

  it("never modifies the file: size, mtime, ctime and content hash unchanged (eviction included)", async () => {
    const hash = () => createHash("sha256").update(readFileSync(big)).digest("hex");
    const before = statSync(big);
    const h0 = hash();
    await scanFile(big, { workers: 2, evict: true });
    await scanFile(big, { workers: 4, policy: { kind: "pg96" }, work: "checksum" });
    const after = statSync(big);
    expect([after.size, after.mtimeMs, after.ctimeMs]).toEqual([before.size, before.mtimeMs, before.ctimeMs]);
    expect(hash()).toBe(h0);
  });
});

describe("per-worker runs follow the policy", () => {
  // 100,000 blocks is the worked example of apps/docs/src/reference/parallel-block-allocation.md#worked-examples; 512-byte blocks keep the file at 49 MiB.
  const small = 512;
  const N = 100_000;
  const file = join(tmp.dir, "worked-example.dat");
  beforeAll(() => writeBlockFile(file, N * small, small, 7));

  it("pg14, 1 worker: 1941 claims (apps/docs/src/reference/parallel-block-allocation.md#chunk-table: 1499 x 64, 64 x 32, 63 each of 16, 8, 4, 2, 126 x 1), one run", async () => {
    const r = await scanFile(file, { workers: 1, blockBytes: small });
    expect(r.perWorker[0]!.claims).toBe(1499 + 64 + 63 * 4 + 126);
    expect(r.perWorker[0]!.runs.count).toBe(1);
    // Cross-check with the allocator itself (same package the workers use).
    const p = createParallelScan({ kind: "pg14" }, { nblocks: N }).join();
    let claims = 0;
    while (p.nextRun() !== null) claims++;
    expect(r.perWorker[0]!.claims).toBe(claims);
  });

  it("pg14, 3 workers: before ramp-down every run is whole 64-block chunks, aligned on 64", async () => {
    const chunk = pg14ChunkSize(N);
    expect(chunk).toBe(64);
    // A claim that starts at counter n <= N - 64 x 64 - 64 was made by a worker whose position was
    // below the first halving threshold N - 64 x 64 (apps/docs/src/reference/parallel-block-allocation.md#block-requests step 2a), so it is a full chunk.
    const fullUntil = N - 64 * chunk - chunk;
    const r = await scanFile(file, { workers: 3, blockBytes: small, work: { module: nap } });
    let checkedRuns = 0;
    for (const w of r.perWorker) {
      const { starts, lengths } = w.runs;
      for (let i = 0; i < w.runs.count; i++) {
        const s = starts![i]!;
        const e = s + lengths![i]!;
        if (s <= fullUntil) {
          expect(s % chunk).toBe(0);
          checkedRuns++;
        }
        if (e <= fullUntil) expect((e - s) % chunk).toBe(0);
      }
    }
    expect(checkedRuns).toBeGreaterThan(3);
    expect(r.cover.exact).toBe(true);
  });

  it("pg11, 4 workers waiting ~100 us per block: runs are mostly single blocks (the striding of Munro's 2020 FreeBSD report (postgr.es/m/CA+hUKGJ_EErDv41YycXcbMbCBkztA34+z1ts9VQH+ACRuvpxig@mail.gmail.com))", async () => {
    const f = join(tmp.dir, "stride.dat");
    writeBlockFile(f, 3000 * small, small, 9);
    const r = await scanFile(f, {
      workers: 4,
      policy: { kind: "pg11" },
      blockBytes: small,
      work: { module: sleepy },
    });
    let runs = 0;
    let single = 0;
    for (const w of r.perWorker) {
      expect(w.claims).toBe(w.blocks); // pg11 hands out one block per atomic fetch-and-add
      expect(w.ops.atomics).toBe(w.blocks + 1); // plus the one that finds the counter past the end
      for (let i = 0; i < w.runs.count; i++) {
        runs++;
        if (w.runs.lengths![i] === 1) single++;
      }
    }
    // "Mostly": at low load we saw 94-98% of runs be single blocks; on a shared 2-core machine under
    // load, timer-slack wake-ups and descheduling sometimes hand one worker adjacent counters (seen: 76-97%).
    expect(single / runs).toBeGreaterThan(0.5);
    expect(r.blocks / runs).toBeLessThan(2);
    expect(r.cover.exact).toBe(true);
  });

  it("batch 10, 1 worker: claims of 10 blocks, one lock each", async () => {
    const r = await scanFile(file, {
      workers: 1,
      blockBytes: small,
      policy: { kind: "batch", blocksPerClaim: 10 },
    });
    expect(r.perWorker[0]!.claims).toBe(N / 10);
    expect(r.perWorker[0]!.runs.count).toBe(1);
  });
});

describe("PostgreSQL relation segments and partial blocks", () => {
  it("scans N, N.1, N.2, N.3 as one block space (segments of 1000 blocks here), partial last block included", async () => {
    const seg = 1000;
    const dir = tmp.dir;
    const base = join(dir, "24576");
    // Write one 3500.5-block stream, then cut it into segment files.
    const whole = join(dir, "whole-rel.dat");
    const bytes = 3500 * B + 4000;
    writeBlockFile(whole, bytes, B, 3);
    const data = readFileSync(whole);
    const paths = [base, `${base}.1`, `${base}.2`, `${base}.3`];
    for (const [i, p] of paths.entries()) {
      writeFileSync(p, data.subarray(i * seg * B, Math.min(bytes, (i + 1) * seg * B)));
    }
    const expected = sumBlockChecksums(readChecksums(paths, B, blockChecksum));
    expect(expected).toBe(sumBlockChecksums(readChecksums([whole], B, blockChecksum)));

    const r = await scanFile(base, { workers: 3, segmentBlocks: seg, work: "checksum" });
    expect(r.target.kind).toBe("relation");
    expect(r.target.nblocks).toBe(3501);
    expect(r.target.lastBlockBytes).toBe(4000);
    expect(r.bytes).toBe(bytes);
    expect(r.work).toEqual({ kind: "checksum", checksum: expected });
    expect(r.cover.exact).toBe(true);

    const labels = await scanFile(base, { workers: 2, segmentBlocks: seg, work: { module: blockNumber } });
    expect(labels.work).toMatchObject({ total: 3501 });
    // The module saw 3500 full blocks and one of 4000 bytes.
    const sizes = labels.perWorker.map((w) => w.finish as Record<string, number>);
    const total = (n: number) => sizes.reduce((s, m) => s + (m[String(n)] ?? 0), 0);
    expect([total(B), total(4000)]).toEqual([3500, 1]);
  });
});

describe("abort, progress and syncscan", () => {
  it("an AbortSignal stops the workers promptly: partial result, aborted, nothing read twice", async () => {
    const controller = new AbortController();
    let seen = 0;
    const r = await scanFile(big, {
      workers: 2,
      work: { module: sleepy }, // ~2 s per 10,000 blocks per worker: the full scan would take seconds
      progressIntervalMs: 20,
      onProgress: (p) => {
        seen = p.blocks;
        if (p.blocks >= 500) controller.abort();
      },
      signal: controller.signal,
    });
    expect(r.aborted).toBe(true);
    expect(seen).toBeGreaterThanOrEqual(500);
    expect(r.blocks).toBeGreaterThanOrEqual(500);
    expect(r.blocks).toBeLessThan(NBLOCKS / 2);
    expect(r.cover).toMatchObject({ exact: false, readMoreThanOnce: 0, readOnce: r.blocks });
  });

  it("an already aborted signal reads nothing", async () => {
    const r = await scanFile(big, { workers: 2, signal: AbortSignal.abort() });
    expect([r.aborted, r.blocks]).toEqual([true, 0]);
  });

  it("progress is per worker, never decreases, and ends at nblocks", async () => {
    const calls: number[][] = [];
    const r = await scanFile(big, {
      workers: 3,
      work: "checksum",
      progressIntervalMs: 5,
      onProgress: (p) => calls.push([...p.workerBlocks]),
    });
    expect(calls.length).toBeGreaterThanOrEqual(1);
    for (let i = 1; i < calls.length; i++) {
      for (let w = 0; w < 3; w++) expect(calls[i]![w]!).toBeGreaterThanOrEqual(calls[i - 1]![w]!);
    }
    expect(calls.at(-1)).toEqual(r.perWorker.map((w) => w.blocks));
    expect(calls.at(-1)!.reduce((a, b) => a + b, 0)).toBe(NBLOCKS);
  });

  it("syncscan: a scan starts where the tracker says, and a complete scan leaves its own start block (apps/docs/src/reference/synchronized-scans.md#parallel-scans)", async () => {
    const tracker = SharedSyncScanTracker.create();
    const key = fileIdentityKeyOf(big);
    tracker.reportLocation(key, 4096);
    const r = await scanFile(big, { workers: 2, syncscan: { tracker }, work: "checksum" });
    expect(r.syncscanKey).toBe(key);
    expect(r.startBlock).toBe(4096);
    expect(r.work).toEqual({ kind: "checksum", checksum: expectedChecksum });
    // With two workers the end-of-scan report of the start block comes from whichever
    // worker first finds nothing left; the other may still report blocks of its last
    // chunk after it (apps/docs/src/reference/synchronized-scans.md#parallel-scans: the location "can move back and forth").
    // A lone participant makes the end report last, so its scan leaves its start block.
    expect(tracker.getLocation(key, NBLOCKS) % 16).toBe(0);
    tracker.reportLocation(key, 4096);
    const one = await scanFile(big, { workers: 1, syncscan: { tracker }, work: "none" });
    expect(one.startBlock).toBe(4096);
    expect(tracker.getLocation(key, NBLOCKS)).toBe(4096);
  });

  it("syncscan: a second scan started while a first is running joins it (start > 0, a multiple of 16)", async () => {
    const tracker = SharedSyncScanTracker.create();
    const key = fileIdentityKeyOf(big);
    const controller = new AbortController();
    let second: Promise<Awaited<ReturnType<typeof scanFile>>> | null = null;
    const first = scanFile(big, {
      workers: 1,
      syncscan: { tracker: tracker.buffer },
      work: { module: sleepy },
      progressIntervalMs: 20,
      signal: controller.signal,
      onProgress: (p) => {
        if (second === null && p.blocks >= 300) second = scanFile(big, { workers: 1, syncscan: { tracker } });
      },
    });
    // Let the second scan finish, then stop the slow first one.
    while (second === null) await new Promise((r) => setTimeout(r, 20));
    const s = await (second as Promise<Awaited<ReturnType<typeof scanFile>>>);
    controller.abort();
    const f = await first;
    expect(f.startBlock).toBe(0);
    expect(s.startBlock).toBeGreaterThan(0);
    expect(s.startBlock % 16).toBe(0);
    expect(s.cover.exact).toBe(true);
    expect(key).toBe(s.syncscanKey);
  });
});
