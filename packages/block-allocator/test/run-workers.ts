/**
 * Starts `threads` worker_threads on one shared allocator (test/cover-worker.mjs,
 * which imports the built package from dist/) and collects what they report.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { type AllocatorPolicy, createSharedParallelScan } from "../src/index.js";

export const workerUrl = new URL("./cover-worker.mjs", import.meta.url);
export const distEntry = fileURLToPath(new URL("../dist/index.js", import.meta.url));

export interface WorkerReport {
  blocks: number;
  calls: number;
  ends: number;
  elapsedMs: number;
  claimSizes: number[];
  ops: { locks: number; atomics: number };
}

export interface WorkersResult {
  reports: WorkerReport[];
  /** How many times each block was handed out (when counting). */
  counts: Uint8Array | null;
  wallMs: number;
}

export async function runWorkers(
  policy: AllocatorPolicy,
  nblocks: number,
  threads: number,
  options: { mode?: "run" | "block"; count?: boolean; record?: boolean; startBlock?: number } = {},
): Promise<WorkersResult> {
  if (!existsSync(distEntry))
    throw new Error(
      `${distEntry} is missing: build the package first (npx turbo run build --filter=@scanlab/block-allocator).`,
    );
  const scan = createSharedParallelScan(policy, { nblocks, startBlock: options.startBlock });
  const counts = options.count === false ? null : new SharedArrayBuffer(nblocks);
  const go = new SharedArrayBuffer(4);
  const workers = Array.from(
    { length: threads },
    () =>
      new Worker(workerUrl, {
        workerData: {
          buffer: scan.buffer,
          counts,
          go,
          mode: options.mode ?? "run",
          record: options.record ?? false,
        },
      }),
  );
  const ready = workers.map(
    (w) =>
      new Promise<void>((resolve, reject) => {
        w.once("error", reject);
        w.once("message", () => resolve());
      }),
  );
  await Promise.all(ready);
  const done = workers.map(
    (w) =>
      new Promise<WorkerReport>((resolve, reject) => {
        w.once("error", reject);
        w.once("message", (m: WorkerReport & { type: string }) => resolve(m));
      }),
  );
  const t0 = performance.now();
  const gate = new Int32Array(go);
  Atomics.store(gate, 0, 1);
  Atomics.notify(gate, 0);
  const reports = await Promise.all(done);
  const wallMs = performance.now() - t0;
  await Promise.all(workers.map((w) => w.terminate()));
  return { reports, counts: counts ? new Uint8Array(counts) : null, wallMs };
}
