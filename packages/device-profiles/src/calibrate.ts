/**
 * Node only. DOC: calibrating the device that holds a file.
 *
 * `calibrate(path)` measures reads of an existing file and turns them into a
 * flash profile with `profileFromMeasurements` (`measured-profile.ts`):
 * the measured points, the flash queue fitted to them (`queue-fit.ts`), the
 * CPU cost of a read from the page cache (`cpu`), and how all of it was
 * measured (`measuredWith`, `cpu.measuredWith`). Two ways:
 *
 * - fio, when it is installed (the `fio` Debian package): one fio run with
 *   `--readonly --direct=1` on the file, stonewalled jobs of `phaseMs` each:
 *   random reads of 8 KiB (one PostgreSQL block) at each of `queueDepths`
 *   (1, 4, 16, 64), and sequential reads of 8 KiB, 32 KiB, 128 KiB, 512 KiB,
 *   1 MiB and 4 MiB at queue depth 1 and at {@link SEQUENTIAL_DEEP_QD}. The
 *   whole list runs `rounds` times (3) one after the other, and each point is
 *   the median of its rounds: a shared machine's slow drift then touches every
 *   point alike, and one disturbed job does not decide a point. The engine is
 *   io_uring where a short probe run succeeds, else libaio; when the file
 *   system refuses O_DIRECT, reads are buffered (fio's default `invalidate=1`
 *   drops the file's cache before each job). The profile says which ran.
 * - Node itself otherwise: buffered positioned reads (`fs.readSync` with a
 *   position) from worker threads, on a file evicted from the page cache before
 *   each phase (`page-cache-eviction.ts`): sequential 128 KiB reads from one
 *   worker (queue depth 1; the kernel's read-ahead is part of what is
 *   measured), then random reads of `randomReadBytes` (8 KiB) with Q workers
 *   for each Q in `queueDepths`, each worker keeping one read in flight. Random
 *   reads never hit the same block twice within a phase (a seeded permutation
 *   of the file's blocks), so the page cache cannot serve them. This has no
 *   real queue depth: "QD Q" is Q threads on the machine's cores, each
 *   waiting in a system call, and the profile's note says so.
 *
 * The CPU costs (`measureCpuCosts`): the first {@link CPU_REGION_BYTES} of the
 * file are read once so they are resident (checked with fincore), then timed
 * buffered reads of 8, 32 and 128 KiB from that region (fio `psync`,
 * `invalidate=0`, fio's per-read latency; or Node's `readSync` timed in
 * process). A straight line through (bytes, microseconds per read) by least
 * squares gives the fixed cost of a read (system call and page-cache lookup,
 * the intercept) and the copy rate (1 / slope): the simulator's
 * `readSyscallUs` and `copyBytesPerUs` (packages/simulator cpu-costs.ts,
 * apps/docs/src/reference/storage-device-models.md#copying-8-kb-from-the-page-cache).
 * Before them, `measureFillCost` (`page-cache-fill.ts`) measures the kernel's
 * CPU per page a cold read brings into the page cache (`fillUsPerPage`), and
 * after them `measureWakeUp` (`wake-up.ts`) the time to wake a sleeping
 * process (`wakeUpUs`).
 *
 * Measurements on a shared machine are noisy; the profile keeps every point
 * (`measurements`) so the noise can be seen. Calibration needs a file of at
 * least 1 MiB; larger is better (sequential sizes larger than half the file
 * are left out, and the random phases of the Node method stop when every
 * block has been read once).
 */
import { spawnSync } from "node:child_process";
import { closeSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { cpus } from "node:os";
import { Worker } from "node:worker_threads";
import { mulberry32 } from "@scanlab/core";
import { measureResidency } from "@scanlab/host";
import { runChild } from "./child-run.js";
import { DeviceProfileError } from "./errors.js";
import { fioReadMeasurements } from "./fio-import.js";
import { profileFromMeasurements } from "./measured-profile.js";
import { evictAndVerify } from "./page-cache-eviction.js";
import { measureFillCost } from "./page-cache-fill.js";
import type { FlashProfile, MachineCpuCosts, ReadMeasurement } from "./profile-schema.js";
import { KiB, MiB } from "./units.js";
import { measureWakeUp } from "./wake-up.js";

/**
 * Queue depths of the random-read phases: QD1 for the profile's latency, then
 * factors of 4 up to 64, past the QD32-64 at which the datasheets of apps/docs/src/reference/storage-device-models.md
 * quote random IOPS (our choice of steps).
 */
const DEFAULT_QUEUE_DEPTHS: readonly number[] = [1, 4, 16, 64];

/** Sequential read sizes of the fio method: one PostgreSQL block up to 4 MiB, factors of 4 (1 MiB included: the common max_sectors_kb). */
export const SEQUENTIAL_SIZES: readonly number[] = [
  8 * KiB,
  32 * KiB,
  128 * KiB,
  512 * KiB,
  1 * MiB,
  4 * MiB,
];

/**
 * The deeper queue of the sequential jobs: 16, PostgreSQL 18's default
 * effective_io_concurrency, the reads a read stream keeps in flight
 * (apps/docs/src/reference/read-streams.md#pg18-defaults); at 16 x 128 KiB the data path is full on the devices
 * of apps/docs/src/reference/storage-device-models.md (their sequential figures are quoted at QD32 or less).
 */
export const SEQUENTIAL_DEEP_QD = 16;

/** Region of the file the CPU costs are measured on (kept resident): 64 MiB, well past the CPU caches, our choice. */
export const CPU_REGION_BYTES = 64 * MiB;

/** Read sizes of the CPU-cost measurement: 8 KiB (one block), 32 KiB and 128 KiB (Linux's default read-ahead). */
export const CPU_READ_SIZES: readonly number[] = [8 * KiB, 32 * KiB, 128 * KiB];

/** Options of {@link calibrate}. */
export interface CalibrateOptions {
  /** `auto` (default): fio when installed, else Node. */
  readonly method?: "auto" | "fio" | "node";
  /** Queue depths of the random-read phases (default 1, 4, 16, 64). */
  readonly queueDepths?: readonly number[];
  /** Duration of each phase in milliseconds (default 1000). */
  readonly phaseMs?: number;
  /** Rounds of the fio job list; each point is the median of its rounds (default 3). */
  readonly rounds?: number;
  /** Sequential read sizes of the fio method (default {@link SEQUENTIAL_SIZES}). */
  readonly sequentialSizes?: readonly number[];
  /** Random read size (default 8 KiB: one PostgreSQL block). */
  readonly randomReadBytes?: number;
  /** Measure the CPU cost of reads from the page cache (default true). */
  readonly cpu?: boolean;
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

/** The median of each (pattern, read size, queue depth) over its rounds; the point of the median round is kept whole. */
export function medianPoints(points: readonly ReadMeasurement[]): ReadMeasurement[] {
  const groups = new Map<string, ReadMeasurement[]>();
  for (const m of points) {
    const key = `${m.pattern} ${m.blockBytes} ${m.queueDepth}`;
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  return [...groups.values()].map(
    (g) => [...g].sort((x, y) => x.iops - y.iops)[Math.floor((g.length - 1) / 2)]!,
  );
}

/** fio's job list of the fio method: `rounds` x (random reads at each depth, sequential reads at each size and two depths). */
function fioJobs(
  depths: readonly number[],
  small: number,
  sizes: readonly number[],
  rounds: number,
): string[] {
  const jobs: string[] = [];
  for (let r = 1; r <= rounds; r++) {
    for (const q of depths)
      jobs.push(
        `--name=rand-${small}-qd${q}-r${r}`,
        "--rw=randread",
        `--bs=${small}`,
        `--iodepth=${q}`,
        "--stonewall",
      );
    for (const b of sizes)
      for (const q of [1, SEQUENTIAL_DEEP_QD])
        jobs.push(`--name=seq-${b}-qd${q}-r${r}`, "--rw=read", `--bs=${b}`, `--iodepth=${q}`, "--stonewall");
  }
  return jobs;
}

function parseFioOutput(path: string, stdout: string): unknown {
  try {
    return JSON.parse(stdout.slice(stdout.indexOf("{")));
  } catch {
    throw calibrationError(path, "fio's output is not JSON");
  }
}

function firstLine(r: { stderr: string; error?: Error; status: number | null }): string {
  return (r.stderr || r.error?.message || `status ${r.status}`).toString().trim().split("\n")[0]!;
}

async function calibrateWithFio(
  path: string,
  size: number,
  version: string,
  name: string,
  options: CalibrateOptions,
): Promise<FlashProfile> {
  const phaseMs = Math.max(100, Math.round(options.phaseMs ?? 1000));
  const rounds = Math.max(1, Math.round(options.rounds ?? 3));
  const depths = options.queueDepths ?? DEFAULT_QUEUE_DEPTHS;
  const small = options.randomReadBytes ?? 8 * KiB;
  const span = Math.floor(size / (4 * KiB)) * 4 * KiB;
  const sizes = (options.sequentialSizes ?? SEQUENTIAL_SIZES).filter((b) => b <= span / 2);
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  const common = (engine: string, direct: 0 | 1, runtimeMs: number) => [
    "--output-format=json",
    `--filename=${path}`,
    "--readonly",
    `--direct=${direct}`,
    `--ioengine=${engine}`,
    `--size=${span}`,
    `--runtime=${runtimeMs}ms`,
    "--time_based",
    "--group_reporting=1",
    `--randseed=${options.seed ?? 1}`,
  ];
  // A short probe finds the engine and whether O_DIRECT is accepted, so the full list runs once.
  let engine = "";
  let direct: 0 | 1 = 1;
  let probeError = "";
  probe: for (const d of [1, 0] as const) {
    for (const e of ["io_uring", "libaio"]) {
      const r = await runChild(
        "fio",
        [...common(e, d, 50), "--name=probe", "--rw=randread", `--bs=${small}`, "--iodepth=2"],
        signal,
      );
      if (r.status === 0) {
        engine = e;
        direct = d;
        break probe;
      }
      probeError ||= firstLine(r);
    }
  }
  if (engine === "") throw calibrationError(path, `fio failed (${probeError})`);
  const r = await runChild(
    "fio",
    [...common(engine, direct, phaseMs), ...fioJobs(depths, small, sizes, rounds)],
    {
      maxBuffer: 64 * MiB,
      ...signal,
    },
  );
  if (r.status !== 0 || typeof r.stdout !== "string")
    throw calibrationError(path, `fio failed (${firstLine(r)})`);
  const points = medianPoints(fioReadMeasurements(parseFioOutput(path, r.stdout), `fio run on ${path}`));
  const cpu =
    options.cpu === false ? undefined : await measureCpuCosts(path, size, { ...options, fio: version });
  const measuredWith =
    `${version} ioengine=${engine} direct=${direct} --readonly on ${path}, ${phaseMs} ms per job, ` +
    `median of ${rounds} round${rounds === 1 ? "" : "s"}, ${new Date().toISOString()}`;
  return profileFromMeasurements(points, {
    name,
    measuredWith,
    title: `Device holding ${path} (fio)`,
    note:
      direct === 0
        ? "O_DIRECT was refused: buffered reads, fio invalidated the cache before each job."
        : undefined,
    ...(cpu === undefined ? {} : { cpu }),
    ...maxIoOf(path),
  });
}

/**
 * The largest request of the device holding `path`: max_sectors_kb of its
 * queue in sysfs (the block layer splits larger reads), when Linux shows it.
 */
function maxIoOf(path: string): { maxIoBytes?: number; maxIoSource?: string } {
  try {
    const st = statSync(path);
    const dev = `${Math.floor(Number(st.dev) / 256) & 0xfff}:${(Number(st.dev) & 0xff) | ((Number(st.dev) >> 12) & 0xfff00)}`;
    for (const q of [
      `/sys/dev/block/${dev}/queue/max_sectors_kb`,
      `/sys/dev/block/${dev}/../queue/max_sectors_kb`,
    ]) {
      try {
        const kb = Number(readFileSync(q, "utf8").trim());
        if (Number.isInteger(kb) && kb >= 4) return { maxIoBytes: kb * KiB, maxIoSource: `${q}: ${kb}` };
      } catch {}
    }
  } catch {}
  return {};
}

/**
 * Measures the CPU cost of buffered reads that hit the page cache (see the
 * header of `calibrate.ts`): fio `psync` when `fio` is given, else Node's
 * `readSync`; the first {@link CPU_REGION_BYTES} of the file are made
 * resident first and checked with fincore.
 */
export async function measureCpuCosts(
  path: string,
  size: number,
  options: { fio?: string; phaseMs?: number; signal?: AbortSignal } = {},
): Promise<MachineCpuCosts> {
  const region = Math.min(Math.floor(size / (128 * KiB)) * 128 * KiB, CPU_REGION_BYTES);
  const ms = Math.max(50, Math.min(500, Math.round((options.phaseMs ?? 1000) / 2)));
  // The fill first: it evicts the file, which the cached reads below then read back in.
  const fill = await measureFillCost(path, size, { signal: options.signal });
  // Read the region once so the timed reads find it cached.
  const fd = openSync(path, "r");
  const buffer = Buffer.allocUnsafe(1 * MiB);
  try {
    for (let o = 0; o < region; o += buffer.length)
      readSync(fd, buffer, 0, Math.min(buffer.length, region - o), o);
  } finally {
    closeSync(fd);
  }
  const residency = measureResidency([path]);
  const resident = residency.known
    ? `${Math.round(residency.residentBytes / MiB)} MiB of the file resident (fincore)`
    : "residency not checked (no fincore)";
  const points: { blockBytes: number; usPerRead: number }[] = [];
  let how: string;
  if (options.fio !== undefined) {
    const jobs = CPU_READ_SIZES.flatMap((b) => [`--name=cpu-${b}`, "--rw=read", `--bs=${b}`, "--stonewall"]);
    const r = await runChild(
      "fio",
      [
        "--output-format=json",
        `--filename=${path}`,
        "--readonly",
        "--ioengine=psync",
        "--direct=0",
        "--invalidate=0",
        `--size=${region}`,
        `--runtime=${ms}ms`,
        "--time_based",
        ...jobs,
      ],
      options.signal === undefined ? {} : { signal: options.signal },
    );
    if (r.status !== 0) throw calibrationError(path, `fio failed measuring CPU costs (${firstLine(r)})`);
    const json = parseFioOutput(path, r.stdout) as {
      jobs?: { read?: { lat_ns?: { mean?: number }; clat_ns?: { mean?: number } } }[];
    };
    (json.jobs ?? []).forEach((j, i) => {
      const ns = Number(j.read?.clat_ns?.mean ?? j.read?.lat_ns?.mean);
      if (CPU_READ_SIZES[i] !== undefined && ns > 0)
        points.push({ blockBytes: CPU_READ_SIZES[i]!, usPerRead: ns / 1000 });
    });
    how = `${options.fio} ioengine=psync rw=read invalidate=0, fio's mean completion latency per read (clat), ${ms} ms per size`;
  } else {
    const fd2 = openSync(path, "r");
    try {
      for (const b of CPU_READ_SIZES) {
        const buf = Buffer.allocUnsafe(b);
        let reads = 0;
        let offset = 0;
        const t0 = performance.now();
        let t = t0;
        while (t - t0 < ms) {
          for (let k = 0; k < 64; k++) {
            readSync(fd2, buf, 0, b, offset);
            offset = offset + b >= region ? 0 : offset + b;
          }
          reads += 64;
          t = performance.now();
        }
        points.push({ blockBytes: b, usPerRead: ((t - t0) * 1000) / reads });
      }
    } finally {
      closeSync(fd2);
    }
    how = `node ${process.version} fs.readSync timed in process (includes Node's own call overhead), ${ms} ms per size`;
  }
  if (points.length < 2) throw calibrationError(path, "the CPU-cost reads gave fewer than two points");
  const fit = fitCpuCosts(points);
  const wake = await measureWakeUp();
  const cpu = cpus()[0]?.model?.trim() ?? "unknown CPU";
  return {
    ...fit,
    ...(fill.fillUsPerPage === null ? {} : { fillUsPerPage: fill.fillUsPerPage }),
    wakeUpUs: wake.wakeUpUs,
    measuredWith:
      `${how}; sequential buffered reads of the first ${Math.round(region / MiB)} MiB of ${path}, read once before ` +
      `so it is cached (${resident}); one thread on ${cpu} (${cpus().length} cores); ` +
      `least squares: us per read = readSyscallUs + bytes / copyBytesPerUs; ` +
      (fill.fillUsPerPage === null
        ? `no page-cache fill cost: ${fill.reason}; `
        : `fillUsPerPage: ${fill.measuredWith}; `) +
      `wakeUpUs: ${wake.measuredWith}; ` +
      new Date().toISOString(),
    points,
  };
}

/** What {@link fitCpuCosts} returns. */
export interface CpuCostFit {
  /** Fixed CPU time of one read from the page cache (the intercept), microseconds. */
  readSyscallUs: number;
  /** Copy rate (1 / slope), bytes per microsecond. */
  copyBytesPerUs: number;
}

/**
 * Fits `us per read = readSyscallUs + bytes / copyBytesPerUs` to two or more
 * (bytes, microseconds) points by least squares. The intercept is kept at
 * or above 0 and the slope above 0 (a copy cannot be free).
 *
 * @example
 * ```ts
 * import { fitCpuCosts } from "@scanlab/device-profiles/node";
 * // 8 KiB in 1.05 us and 128 KiB in 14.2 us (apps/docs/src/reference/storage-device-models.md#copying-8-kb-from-the-page-cache)
 * const c = fitCpuCosts([{ blockBytes: 8192, usPerRead: 1.05 }, { blockBytes: 131072, usPerRead: 14.2 }]);
 * console.log(c.readSyscallUs.toFixed(2), Math.round(c.copyBytesPerUs)); // 0.17 9350
 * ```
 */
export function fitCpuCosts(points: readonly { blockBytes: number; usPerRead: number }[]): CpuCostFit {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.blockBytes, 0) / n;
  const my = points.reduce((s, p) => s + p.usPerRead, 0) / n;
  const sxx = points.reduce((s, p) => s + (p.blockBytes - mx) ** 2, 0);
  const sxy = points.reduce((s, p) => s + (p.blockBytes - mx) * (p.usPerRead - my), 0);
  let slope = sxx > 0 ? sxy / sxx : Number.NaN;
  let intercept = my - slope * mx;
  if (!(slope > 0) || intercept < 0) {
    // Through the origin: all the time is copying.
    slope =
      points.reduce((s, p) => s + p.blockBytes * p.usPerRead, 0) /
      points.reduce((s, p) => s + p.blockBytes ** 2, 0);
    intercept = 0;
  }
  return { readSyscallUs: intercept, copyBytesPerUs: 1 / slope };
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
    `${verified ? ", checked with fincore" : ", unverified"}) on ${path}, ${phaseMs} ms per phase, ${new Date().toISOString()}`;
  const cpu = options.cpu === false ? undefined : await measureCpuCosts(path, size, options);
  return profileFromMeasurements(points, {
    name,
    measuredWith,
    title: `Device holding ${path} (Node measurement)`,
    note:
      `Buffered reads: the OS read path and kernel read-ahead are part of the figures. ` +
      `Not measured: a real queue depth (each "QD Q" is Q threads, each waiting in a synchronous read, ` +
      `on ${cpus().length} cores), sequential reads other than 128 KiB at one thread, and sequential bandwidth at depth.`,
    ...(cpu === undefined ? {} : { cpu }),
    ...maxIoOf(path),
  });
}
