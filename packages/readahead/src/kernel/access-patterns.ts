/**
 * Real access patterns on a real file (Node-only): the same patterns the
 * scan harness simulates, played with real positioned reads from worker
 * threads.
 *
 * Each worker opens the file itself (as each PostgreSQL backend and worker
 * opens a relation segment itself, so each has its own `struct file` and its
 * own readahead state) and reads 8 kB blocks with `fs.readSync(fd, buf, 0,
 * 8192, pos)`, i.e. `pread()`. Work comes from a counter in shared memory
 * taken with `Atomics.add`, exactly as PostgreSQL's parallel seq scan takes
 * blocks: one per claim before v14 ("stride"), a chunk per claim since
 * ("chunk"). Workers open the file, then wait on a start flag so all start
 * together. The random pattern is one reader picking blocks with the
 * harness's seeded PRNG (`mulberry32` of `@scanlab/core`, whose source is
 * embedded in the worker's: the factory is self-contained).
 */
import { Worker } from "node:worker_threads";
import { BLCKSZ, mulberry32 } from "@scanlab/core";
import { ReadaheadError } from "../errors.js";
import type { ScanPattern } from "../scan-harness.js";

/** What one real pattern run did, seen from user space. */
export interface RealPatternRun {
  /** Wall time from the start flag to the last worker's end (µs). */
  elapsedUs: number;
  /** read() calls made by all workers. */
  reads: number;
  /** Worker threads used. */
  workers: number;
}

const WORKER_SOURCE = `
const { workerData, parentPort } = require("node:worker_threads");
const fs = require("node:fs");
const { path, blocks, blockBytes, claim, randomReads, seed, counter, start } = workerData;
const fd = fs.openSync(path, "r");
const buf = Buffer.alloc(blockBytes);
const cnt = new Int32Array(counter);
const flag = new Int32Array(start);
parentPort.postMessage({ ready: true });
Atomics.wait(flag, 0, 0);
let reads = 0;
if (randomReads > 0) {
  const rnd = (${mulberry32.toString()})(seed);
  for (let i = 0; i < randomReads; i++) {
    const b = Math.floor(rnd.nextFloat() * blocks);
    fs.readSync(fd, buf, 0, blockBytes, b * blockBytes);
    reads++;
  }
} else {
  for (;;) {
    const first = Atomics.add(cnt, 0, claim);
    if (first >= blocks) break;
    const end = Math.min(blocks, first + claim);
    for (let b = first; b < end; b++) {
      fs.readSync(fd, buf, 0, blockBytes, b * blockBytes);
      reads++;
    }
  }
}
fs.closeSync(fd);
parentPort.postMessage({ done: true, reads });
`;

/**
 * Plays `pattern` on the file at `path` (`blocks` blocks of `blockBytes`).
 * Returns when every worker has finished.
 */
export async function runRealPattern(
  path: string,
  blocks: number,
  pattern: ScanPattern,
  blockBytes: number = BLCKSZ,
): Promise<RealPatternRun> {
  let workers = 1;
  let claim = blocks;
  let randomReads = 0;
  let seed = 7;
  if (pattern.kind === "stride") {
    workers = pattern.processes;
    claim = 1;
  } else if (pattern.kind === "chunk") {
    workers = pattern.processes;
    claim = pattern.chunkBlocks;
  } else if (pattern.kind === "random") {
    randomReads = pattern.reads;
    seed = pattern.seed ?? 7;
  }
  const counter = new SharedArrayBuffer(4);
  const start = new SharedArrayBuffer(4);
  const ready: Promise<void>[] = [];
  const done: Promise<number>[] = [];
  const threads: Worker[] = [];
  for (let i = 0; i < workers; i++) {
    const w = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { path, blocks, blockBytes, claim, randomReads, seed, counter, start },
    });
    threads.push(w);
    ready.push(
      new Promise((resolve, reject) => {
        w.once("message", () => resolve());
        w.once("error", reject);
      }),
    );
    done.push(
      new Promise((resolve, reject) => {
        w.on("message", (m: { done?: boolean; reads?: number }) => {
          if (m.done === true) resolve(m.reads ?? 0);
        });
        w.once("error", reject);
        w.once("exit", (code) => {
          if (code !== 0)
            reject(
              new ReadaheadError(
                "READAHEAD_MEASUREMENT_UNAVAILABLE",
                `A reader thread exited with code ${code}.`,
              ),
            );
        });
      }),
    );
  }
  await Promise.all(ready);
  const t0 = performance.now();
  const flag = new Int32Array(start);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
  const counts = await Promise.all(done);
  const elapsedUs = (performance.now() - t0) * 1000;
  await Promise.all(threads.map((w) => w.terminate()));
  return { elapsedUs, reads: counts.reduce((a, b) => a + b, 0), workers };
}
