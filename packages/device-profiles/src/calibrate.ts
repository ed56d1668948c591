/**
 * Node only. DOC: calibrating the device that holds a file.
 *
 * `calibrate(path)` measures reads of an existing file and turns them into a
 * flash profile with `profileFromMeasurements` (`measured-profile.ts`), labelled
 * with how it was measured (`measuredWith`). Two ways:
 *
 * - fio, when it is installed (the `fio` Debian package): one fio run with
 *   `--readonly --direct=1 --ioengine=libaio` on the file, stonewalled jobs:
 *   sequential 128 KiB reads at queue depth 1 and 16, and random reads of
 *   `randomReadBytes` (4 KiB) at each of `queueDepths` (1, 4, 16, 64). If the
 *   file system refuses O_DIRECT, it runs again with buffered reads (fio's
 *   default `invalidate=1` drops the file's cache before each job).
 * - Node itself otherwise: buffered positioned reads (`fs.readSync` with a
 *   position) from worker threads, on a file evicted from the page cache before
 *   each phase (`page-cache-eviction.ts`): sequential 128 KiB reads from one
 *   worker (queue depth 1; the kernel's read-ahead is part of what is
 *   measured), then random reads of `randomReadBytes` (8 KiB) with Q workers
 *   for each Q in `queueDepths`, each worker keeping one read in flight. Random
 *   reads never hit the same block twice within a phase (a seeded permutation
 *   of the file's blocks), so the page cache cannot serve them.
 *
 * Measurements on a shared machine are noisy; the profile keeps every point
 * (`measurements`) so the noise can be seen. Calibration needs a file of at
 * least 1 MiB; larger is better (the random phases stop when every block has
 * been read once).
 */
import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { mulberry32 } from "@scanlab/core";
import { runChild } from "./child-run.js";
import { DeviceProfileError } from "./errors.js";
import { fioReadMeasurements } from "./fio-import.js";
import { profileFromMeasurements } from "./measured-profile.js";
import { evictAndVerify } from "./page-cache-eviction.js";
import type { FlashProfile, ReadMeasurement } from "./profile-schema.js";
import { KiB, MiB } from "./units.js";

/**
 * Queue depths of the random-read phases: QD1 for the profile's latency, then
 * factors of 4 up to 64, past the QD32-64 at which the datasheets of apps/docs/src/reference/storage-device-models.md
 * quote random IOPS (our choice of steps).
 */
const DEFAULT_QUEUE_DEPTHS: readonly number[] = [1, 4, 16, 64];

/** Options of {@link calibrate}. */
export interface CalibrateOptions {
  /** `auto` (default): fio when installed, else Node. */
  readonly method?: "auto" | "fio" | "node";
  /** Queue depths of the random-read phases (default 1, 4, 16, 64). */
  readonly queueDepths?: readonly number[];
  /** Duration of each phase in milliseconds (default 2000 with fio, 1000 with Node). */
  readonly phaseMs?: number;
  /** Random read size (default 4 KiB with fio, 8 KiB with Node: one PostgreSQL block). */
  readonly randomReadBytes?: number;
  /** Profile name (default `calibrated-<file name>`). */
  readonly name?: string;
  /** Seed of the random offsets (default 1). */
  readonly seed?: number;
  /** Require eviction to be verified by fincore for the Node method (default false: unverified is accepted and labelled). */
  readonly requireVerifiedEviction?: boolean;
  /**
   * Stops the calibration: fio is stopped (SIGTERM, then SIGKILL) and waited for, Node's reader threads are
   * terminated, and the promise rejects with the signal's reason (an AbortError).
   */
  readonly signal?: AbortSignal;
}

/** Whether fio is installed, and its version string. */
export function fioVersion(): string | undefined {
  const r = spawnSync("fio", ["--version"], { encoding: "utf8" });
  return r.status === 0 && typeof r.stdout === "string" ? r.stdout.trim() : undefined;
}

function calibrationError(
  path: string,
  what: string,
  code: "CALIBRATION_FAILED" | "CALIBRATION_EVICTION_IMPOSSIBLE" = "CALIBRATION_FAILED",
) {
  return new DeviceProfileError(code, `Cannot calibrate with ${path}: ${what}.`, { source: path });
}

/**
 * Measures the device holding `path` and returns a profile of it (see the
 * header of `calibrate.ts`).
 *
 * @throws DeviceProfileError (CALIBRATION_FAILED, CALIBRATION_EVICTION_IMPOSSIBLE) with one sentence naming the file
 *
 * @example
 * ```ts
 * import { calibrate, writeDeviceProfileFile } from "@scanlab/device-profiles/node";
 * const profile = await calibrate("/data/big.file", { phaseMs: 1000 });
 * console.log(profile.measuredWith, profile.readLatencyQd1Us, profile.randomReadIops);
 * writeDeviceProfileFile("my-device.json", profile);
 * ```
 */
export async function calibrate(path: string, options: CalibrateOptions = {}): Promise<FlashProfile> {
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw calibrationError(path, "it is not a regular file");
    size = st.size;
  } catch (e) {
    if (e instanceof DeviceProfileError) throw e;
    throw calibrationError(path, `it cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  if (size < 1 * MiB)
    throw calibrationError(path, `it has ${size} bytes, and calibration needs at least 1 MiB`);
  const method = options.method ?? "auto";
  const fio = method === "node" ? undefined : fioVersion();
  if (method === "fio" && fio === undefined)
    throw calibrationError(path, "fio is not installed (Debian package fio)");
  const name =
    options.name ??
    `calibrated-${
      path
        .split("/")
        .pop()!
        .toLowerCase()
        .replace(/[^a-z0-9._-]+/g, "-")
        .replace(/^[^a-z0-9]+/, "") || "file"
    }`;
  options.signal?.throwIfAborted();
  return fio !== undefined
    ? calibrateWithFio(path, size, fio, name, options)
    : calibrateWithNode(path, size, name, options);
}

async function calibrateWithFio(
  path: string,
  size: number,
  version: string,
  name: string,
  options: CalibrateOptions,
): Promise<FlashProfile> {
  const phaseMs = Math.max(100, Math.round(options.phaseMs ?? 2000));
  const depths = options.queueDepths ?? DEFAULT_QUEUE_DEPTHS;
  const small = options.randomReadBytes ?? 4 * KiB;
  const jobs: string[] = [
    ...["--name=seq-128k-qd1", "--rw=read", "--bs=128k", "--iodepth=1", "--stonewall"],
    ...["--name=seq-128k-qd16", "--rw=read", "--bs=128k", "--iodepth=16", "--stonewall"],
  ];
  for (const q of depths)
    jobs.push(
      `--name=rand-${small}-qd${q}`,
      "--rw=randread",
      `--bs=${small}`,
      `--iodepth=${q}`,
      "--stonewall",
    );
  // Asynchronous, so a stop signal is heard while fio runs and fio is stopped with the caller (child-run.ts).
  const run = (direct: 0 | 1) =>
    runChild(
      "fio",
      [
        "--output-format=json",
        `--filename=${path}`,
        "--readonly",
        `--direct=${direct}`,
        "--ioengine=libaio",
        `--size=${Math.floor(size / (128 * KiB)) * 128 * KiB}`,
        `--runtime=${phaseMs}ms`,
        "--time_based",
        "--group_reporting=1",
        `--randseed=${options.seed ?? 1}`,
        ...jobs,
      ],
      { maxBuffer: 64 * MiB, ...(options.signal === undefined ? {} : { signal: options.signal }) },
    );
  let direct: 0 | 1 = 1;
  let r = await run(1);
  if (r.status !== 0) {
    direct = 0;
    r = await run(0);
  }
  if (r.status !== 0 || typeof r.stdout !== "string") {
    throw calibrationError(
      path,
      `fio failed (${(r.stderr || r.error?.message || `status ${r.status}`).toString().trim().split("\n")[0]})`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(r.stdout.slice(r.stdout.indexOf("{")));
  } catch {
    throw calibrationError(path, "fio's output is not JSON");
  }
  const measuredWith = `${version} ioengine=libaio direct=${direct} --readonly on ${path}, ${phaseMs} ms per job`;
  return profileFromMeasurements(fioReadMeasurements(json, `fio run on ${path}`), {
    name,
    measuredWith,
    title: `Device holding ${path} (fio)`,
    note:
      direct === 0
        ? "O_DIRECT was refused: buffered reads, fio invalidated the cache before each job."
        : undefined,
  });
}

/** Code each Node calibration worker runs (CommonJS, evaluated). */
const WORKER_SOURCE = `
const { workerData, parentPort } = require("node:worker_threads");
const fs = require("node:fs");
const { path, blockBytes, sequential, index, stride, blocks, phaseMs, signal } = workerData;
const fd = fs.openSync(path, "r");
const buffer = Buffer.allocUnsafe(blockBytes);
const flag = new Int32Array(signal);
const list = blocks ? new Uint32Array(blocks) : null;
parentPort.postMessage({ ready: true });
Atomics.wait(flag, 0, 0);
const t0 = performance.now();
const deadline = t0 + phaseMs;
let reads = 0, latencyMs = 0, position = 0, k = index, now = t0;
while (now < deadline) {
  let offset;
  if (sequential) { offset = position; position += blockBytes; }
  else { if (k >= list.length) break; offset = list[k] * blockBytes; k += stride; }
  const before = performance.now();
  const got = fs.readSync(fd, buffer, 0, blockBytes, offset);
  now = performance.now();
  if (got <= 0) break;
  reads++; latencyMs += now - before;
}
fs.closeSync(fd);
parentPort.postMessage({ reads, latencyMs, startMs: performance.timeOrigin + t0, endMs: performance.timeOrigin + now });
`;

interface WorkerReport {
  readonly reads: number;
  readonly latencyMs: number;
  readonly startMs: number;
  readonly endMs: number;
}

async function runPhase(
  path: string,
  blockBytes: number,
  workers: number,
  phaseMs: number,
  blocks: SharedArrayBuffer | null,
  stop: AbortSignal | undefined,
): Promise<ReadMeasurement> {
  const signal = new SharedArrayBuffer(4);
  const started: Worker[] = [];
  const ready: Promise<void>[] = [];
  const done: Promise<WorkerReport>[] = [];
  for (let i = 0; i < workers; i++) {
    const w = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        path,
        blockBytes,
        sequential: blocks === null,
        index: i,
        stride: workers,
        blocks,
        phaseMs,
        signal,
      },
    });
    started.push(w);
    let markReady: () => void = () => {};
    ready.push(new Promise<void>((resolve) => (markReady = resolve)));
    done.push(
      new Promise<WorkerReport>((resolve, reject) => {
        w.on("message", (m: { ready?: boolean } & WorkerReport) => (m.ready ? markReady() : resolve(m)));
        w.on("error", reject);
        w.on("exit", (code) =>
          code !== 0 ? reject(new Error(`calibration worker exited with ${code}`)) : undefined,
        );
      }),
    );
  }
  // A stop rejects the phase at once; `finally` terminates the reader threads.
  const stopped = new Promise<never>((_, reject) => {
    if (stop === undefined) return;
    if (stop.aborted) reject(stop.reason);
    stop.addEventListener("abort", () => reject(stop.reason), { once: true });
  });
  stopped.catch(() => {});
  // Threads terminated after a stop reject their reports; nobody waits for those any more.
  for (const d of done) d.catch(() => {});
  try {
    await Promise.race([Promise.all(ready), stopped]);
    const flag = new Int32Array(signal);
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
    const reports = await Promise.race([Promise.all(done), stopped]);
    const reads = reports.reduce((s, r) => s + r.reads, 0);
    const latencyMs = reports.reduce((s, r) => s + r.latencyMs, 0);
    const elapsedMs = Math.max(...reports.map((r) => r.endMs)) - Math.min(...reports.map((r) => r.startMs));
    const iops = reads > 0 && elapsedMs > 0 ? (reads * 1000) / elapsedMs : 0;
    return {
      pattern: blocks === null ? "sequential" : "random",
      blockBytes,
      queueDepth: workers,
      iops,
      bytesPerSecond: iops * blockBytes,
      meanLatencyUs: reads > 0 ? (latencyMs * 1000) / reads : 0,
    };
  } finally {
    await Promise.all(started.map((w) => w.terminate()));
  }
}

/** A seeded permutation of the first min(n, cap) of n block numbers, in shared memory for the workers. */
function blockPermutation(nBlocks: number, cap: number, seed: number): SharedArrayBuffer {
  const count = Math.min(nBlocks, cap);
  const shared = new SharedArrayBuffer(count * 4);
  const out = new Uint32Array(shared);
  const random = mulberry32(seed);
  // Affine permutation k -> (a k + c) mod n with gcd(a, n) = 1 (BigInt: a k can pass 2^53).
  const gcd = (x: number, y: number): number => (y === 0 ? x : gcd(y, x % y));
  let a = Math.max(1, Math.floor(nBlocks * (0.5 + 0.3 * random.nextFloat()))) | 1;
  while (gcd(a, nBlocks) !== 1) a += 2;
  const c = BigInt(Math.floor(random.nextFloat() * nBlocks));
  const A = BigInt(a);
  const N = BigInt(nBlocks);
  for (let k = 0; k < count; k++) out[k] = Number((A * BigInt(k) + c) % N);
  return shared;
}

async function calibrateWithNode(
  path: string,
  size: number,
  name: string,
  options: CalibrateOptions,
): Promise<FlashProfile> {
  const phaseMs = Math.max(50, Math.round(options.phaseMs ?? 1000));
  const depths = options.queueDepths ?? DEFAULT_QUEUE_DEPTHS;
  const small = options.randomReadBytes ?? 8 * KiB;
  let verified = true;
  const evict = () => {
    const r = evictAndVerify(path);
    if (r.evicted === false)
      throw calibrationError(
        path,
        `the page cache cannot be emptied (${r.reason})`,
        "CALIBRATION_EVICTION_IMPOSSIBLE",
      );
    if (r.evicted === "unverified") {
      if (options.requireVerifiedEviction) {
        throw calibrationError(
          path,
          `eviction from the page cache cannot be verified (${r.reason})`,
          "CALIBRATION_EVICTION_IMPOSSIBLE",
        );
      }
      verified = false;
    }
  };
  const points: ReadMeasurement[] = [];
  const signal = options.signal;
  evict();
  points.push(await runPhase(path, 128 * KiB, 1, phaseMs, null, signal));
  const blocks = blockPermutation(Math.floor(size / small), 1 << 20, options.seed ?? 1);
  for (const q of depths) {
    signal?.throwIfAborted();
    evict();
    points.push(await runPhase(path, small, q, phaseMs, blocks, signal));
  }
  const measuredWith =
    `node ${process.version} worker_threads fs.readSync (buffered, page cache evicted with dd iflag=nocache` +
    `${verified ? ", checked with fincore" : ", unverified"}) on ${path}, ${phaseMs} ms per phase`;
  return profileFromMeasurements(points, {
    name,
    measuredWith,
    title: `Device holding ${path} (Node measurement)`,
    note: "Buffered reads: the OS read path and kernel read-ahead are part of the figures.",
  });
}
