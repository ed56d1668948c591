/**
 * The shared backing for real: 4 worker_threads share one SharedArrayBuffer
 * allocator over 10 million blocks, for every policy, and every block must be
 * handed out exactly once. The workers run the built
 * package (dist/), as the file-scan package's workers will.
 */
import { describe, expect, it } from "vitest";
import { runWorkers } from "../test/run-workers.js";
import {
  type AllocatorPolicy,
  attachSharedParallelScan,
  createParallelScan,
  createSharedParallelScan,
  INVALID_BLOCK,
} from "./index.js";

// Four worker threads hand out 10 million blocks each run: seconds alone, and worker threads on a
// loaded 2-core machine take ten times that; the timeout only catches a hang.
const HEAVY_TEST_MS = 600_000;

const NBLOCKS = 10_000_000;
const THREADS = 4;

const policies: AllocatorPolicy[] = [
  { kind: "pg96" },
  { kind: "pg11" },
  { kind: "batch", blocksPerClaim: 10 },
  { kind: "munro2020" },
  { kind: "pg14" },
];

describe("4 worker threads, one shared allocator, 10 million blocks", () => {
  for (const policy of policies) {
    it(
      `${policy.kind}: every block exactly once, one end-of-scan report`,
      async () => {
        const mode = policy.kind === "pg11" ? "block" : "run"; // exercise both APIs across threads
        const { reports, counts } = await runWorkers(policy, NBLOCKS, THREADS, {
          mode,
          record: policy.kind === "pg14",
        });
        let wrong = 0;
        for (let b = 0; b < NBLOCKS; b++) if (counts![b] !== 1) wrong++;
        expect(wrong).toBe(0);
        expect(reports.reduce((s, r) => s + r.blocks, 0)).toBe(NBLOCKS);
        expect(reports.reduce((s, r) => s + r.ends, 0)).toBe(1);
        if (policy.kind === "pg14") {
          for (const r of reports) {
            for (let i = 1; i < r.claimSizes.length; i++)
              expect(r.claimSizes[i]!).toBeLessThanOrEqual(r.claimSizes[i - 1]!);
          }
        }
        if (policy.kind === "pg96") {
          // one lock per block plus each worker's final call that finds the cursor invalid
          expect(reports.reduce((s, r) => s + r.ops.locks, 0)).toBe(NBLOCKS + THREADS);
        }
      },
      HEAVY_TEST_MS,
    );
  }
});

describe("shared backing in one thread", () => {
  it(
    "behaves exactly like the in-process backing for the same interleaving",
    () => {
      for (const policy of policies) {
        const local = createParallelScan(policy, { nblocks: 5_000, startBlock: 1234 });
        const shared = createSharedParallelScan(policy, { nblocks: 5_000, startBlock: 1234 });
        const attached = attachSharedParallelScan(shared.buffer);
        expect(attached.policy).toEqual(local.policy);
        const a = [local.join(), local.join(), local.join()];
        const b = [shared.join(), attached.join(), attached.join()];
        // a fixed pseudo-random interleaving (LCG, seed 1)
        let seed = 1;
        const finished = new Set<number>();
        while (finished.size < 3) {
          seed = (seed * 1103515245 + 12345) % 2 ** 31;
          const i = seed % 3;
          const x = a[i]!.nextBlock();
          expect(b[i]!.nextBlock()).toBe(x);
          if (x === INVALID_BLOCK) finished.add(i);
        }
        expect(shared.counter).toBe(local.counter);
      }
    },
    HEAVY_TEST_MS,
  );

  it("stores the policy in the buffer, including an uncapped pg14", () => {
    const shared = createSharedParallelScan(
      { kind: "pg14", maxChunkBlocks: null, nchunks: 1024 },
      { nblocks: 10 },
    );
    expect(attachSharedParallelScan(shared.buffer).policy).toEqual({
      kind: "pg14",
      nchunks: 1024,
      rampdownChunks: 64,
      maxChunkBlocks: null,
    });
  });

  it("rescans through the buffer: every attached view sees the new epoch", () => {
    const shared = createSharedParallelScan({ kind: "pg14" }, { nblocks: 100 });
    const other = attachSharedParallelScan(shared.buffer);
    const p = other.join();
    while (p.nextRun() !== null);
    shared.rescan();
    expect(other.counter).toBe(0);
    expect(p.nextRun()).toMatchObject({ startBlock: 0, firstCounter: 0 });
  });
});
