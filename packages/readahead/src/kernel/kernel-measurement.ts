/**
 * Holding the `linux` model against the real kernel of the machine it runs
 * on (Node-only; the CLI exposes it as part of `calibrate`).
 *
 * 1. Create a test file in a temporary directory on the file system under
 *    test, write it, sync it, read it once (so the file system's own
 *    metadata, e.g. ext4 extent blocks, is cached and stays out of the
 *    counts), and measure the CPU cost of a cached 8 kB read.
 * 2. Ramp: drop the file from the page cache, read 8 kB blocks one by one
 *    from block 0 (and again from the middle of the file) and count the
 *    resident pages with `fincore` after each read, once the count settles
 *    (the readahead it started has landed): the initial window and how it
 *    grows.
 * 3. Patterns: for each, drop the file, note `/proc/diskstats` of the
 *    device and this process's `read_bytes`, play the pattern with worker
 *    threads, let the last readahead land, and note them again. Other
 *    programs on the machine read from the same device: their share of the
 *    bytes is what the device read beyond this process's `read_bytes`
 *    (exact), and their requests lie between bounds (interference.ts). A
 *    run whose own request count those bounds leave uncertain by more than
 *    2% is played again (up to `attempts` times) and the least uncertain
 *    run is kept; a pattern that kept such a run is marked `disturbed`.
 *    Other programs' small reads can multiply a pattern's apparent request
 *    count many times over.
 * 4. Play the same ramps and patterns through the model with the machine's
 *    parameters (kernel line from `os.release()`, the device's
 *    `read_ahead_kb` and `max_sectors_kb`, large folios by file system), the
 *    measured CPU cost, a device whose throughput is the best any pattern
 *    reached and whose fixed cost per request comes from the random reads,
 *    and the thread wake-up latencies measured before and after the runs
 *    (see wakeup-latency.ts: on a busy machine they decide how "striding"
 *    readers really interleave).
 */
import { closeSync, fsyncSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { availableParallelism, release, tmpdir } from "node:os";
import { join } from "node:path";
import { mibPerSFromBytesPerUs, THROUGHPUT_UNIT } from "@scanlab/core";
import { DISKSTATS_SECTOR_BYTES, processReadBytes } from "@scanlab/host";
import { ReadaheadError } from "../errors.js";
import type { ScanPattern } from "../scan-harness.js";
import { runRealPattern } from "./access-patterns.js";
import {
  type BlockDevice,
  type DiskReadCounters,
  readDiskstats,
  resolveBlockDevice,
} from "./block-device.js";
import {
  largeFoliosFor,
  linuxLineOfRelease,
  type MachineParameters,
  modelPattern,
  modelRamp,
} from "./compare.js";
import { judgeInterference } from "./interference.js";
import { evictFile, residentPages, settledResidentPages, sleepMs } from "./page-cache-tools.js";
import { measureWakeupLatency, quantiles } from "./wakeup-latency.js";

/** A named access pattern of the kernel comparison. */
export interface KernelPattern {
  /** Short name ("stride 2", "chunk 64 x4"). */
  name: string;
  /** What the readers do. */
  pattern: ScanPattern;
}

/**
 * The patterns of the comparison: one sequential reader; stride 2 and 4;
 * chunks of 16, 64, 256 and 8192 blocks with 2 and 4 readers; random 8 kB reads.
 */
export const KERNEL_PATTERNS: readonly KernelPattern[] = [
  { name: "sequential", pattern: { kind: "sequential" } },
  { name: "stride 2", pattern: { kind: "stride", processes: 2 } },
  { name: "stride 4", pattern: { kind: "stride", processes: 4 } },
  ...[16, 64, 256, 8192].flatMap((c) =>
    [2, 4].map((n) => ({
      name: `chunk ${c} x${n}`,
      pattern: { kind: "chunk", processes: n, chunkBlocks: c } as ScanPattern,
    })),
  ),
  { name: "random 8k", pattern: { kind: "random", reads: 3000, seed: 7 } },
];

/** Kernel and model side by side for one pattern. */
export interface PatternComparison {
  /** Pattern name. */
  name: string;
  /** The pattern. */
  pattern: ScanPattern;
  /** What the device did. */
  kernel: {
    /** Read requests completed on the device during the run, minus the estimated background. */
    requests: number;
    /** Bytes this process read from the device (`/proc/self/io` read_bytes). */
    bytes: number;
    /** Average request (KiB): bytes / requests. */
    avgKiB: number;
    /** Requests the block layer merged into others. */
    merged: number;
    /** Requests attributed to other programs and subtracted (estimated; 0 in a quiet run). */
    backgroundRequests: number;
    /** Bytes the device read for other programs during the run (device bytes minus this process's). */
    backgroundBytes: number;
    /** Wall time (µs). */
    elapsedUs: number;
    /** Requests of every run of the pattern (the figures above are the median run's). */
    runs: number[];
    /** Fewest requests the background bytes can have been (interference.ts); absent in older measurements. */
    foreignRequestsMin?: number;
    /** Most requests the background bytes can have been. */
    foreignRequestsMax?: number;
    /**
     * Other programs' reads left the median run's request count uncertain by more than 2%, in every
     * attempt: the row's figures (and its gap) are not to be trusted. Absent in older measurements.
     */
    disturbed?: boolean;
  };
  /** What the model did with the machine's parameters. */
  model: {
    /** Device reads. */
    ios: number;
    /** Average device read (KiB). */
    avgKiB: number;
    /** Share issued synchronously. */
    syncFraction: number;
    /** Device reads with seeds 1, 2, 3, sorted (the figures above are the median's). */
    runs: number[];
  };
  /** model avgKiB / kernel avgKiB - 1. */
  gap: number;
}

/** Resident pages after each read of a cold sequential ramp. */
export interface RampComparison {
  /** First block read. */
  startBlock: number;
  /** `fincore` after each read. */
  kernel: number[];
  /** The model after each read. */
  model: number[];
  /** Same numbers. */
  identical: boolean;
}

/** A complete kernel-versus-model measurement (also the shape of the committed fixture). */
export interface KernelMeasurement {
  /** ISO date of the measurement. */
  measuredAt: string;
  /** Machine parameters the model used. */
  machine: MachineParameters;
  /** Device details. */
  device: {
    /** Kernel name (`vda`, `dm-0`). */
    name: string;
    /** `major:minor`. */
    majorMinor: string;
    /** `queue/max_segments`. */
    maxSegments: number;
  };
  /** The largest device request the runs show, or null when no undisturbed run (or an older measurement). */
  largestRequest?: LargestRequest | null;
  /** Ramps. */
  ramps: RampComparison[];
  /** Patterns. */
  patterns: PatternComparison[];
}

/**
 * The largest request the device served in the runs, as far as its counters tell. /proc/diskstats counts
 * requests and sectors, not single requests' sizes, so this is a bound: the largest request was at least
 * `atLeastBytes`, the highest average request of an undisturbed run (an average never exceeds the maximum),
 * and at most `ceilingBytes`, the device's `max_sectors_kb`.
 */
export interface LargestRequest {
  /** The largest request was at least this many bytes. */
  atLeastBytes: number;
  /** The pattern whose run showed it. */
  pattern: string;
  /** `max_sectors_kb` in bytes: no request is larger. */
  ceilingBytes: number;
}

/** Options of {@link measureKernelReadahead}. */
export interface KernelMeasurementOptions {
  /** A directory on the file system to test (a temporary directory is made inside). Default: os.tmpdir(). */
  dir?: string;
  /** Test file size in MiB. Default 1024 (big enough that other programs' reads are small beside it). */
  fileMiB?: number;
  /** Patterns. Default {@link KERNEL_PATTERNS}. */
  patterns?: readonly KernelPattern[];
  /** Reads per ramp. Default 24. */
  rampReads?: number;
  /** Runs per pattern at most, to find one that other programs left alone. Default 4. */
  attempts?: number;
  /** Quiet runs per pattern (the median is kept). Default 3. */
  repeats?: number;
  /** Progress lines. */
  log?: (line: string) => void;
  /**
   * Stops the measurement at its next step (between ramp reads and pattern runs): the test file and its
   * directory are removed and the promise rejects with the signal's reason (an AbortError).
   */
  signal?: AbortSignal;
}

function delta(a: DiskReadCounters, b: DiskReadCounters): DiskReadCounters {
  return {
    reads: b.reads - a.reads,
    readsMerged: b.readsMerged - a.readsMerged,
    sectors: b.sectors - a.sectors,
    readTimeUs: b.readTimeUs - a.readTimeUs,
  };
}

/** Checks that everything the measurement needs works here; returns the device or throws a ReadaheadError saying what is missing. */
export function checkKernelMeasurementPossible(dir: string = tmpdir()): BlockDevice {
  if (process.platform !== "linux") {
    throw new ReadaheadError("READAHEAD_MEASUREMENT_UNAVAILABLE", "Measuring kernel readahead needs Linux.");
  }
  const dev = resolveBlockDevice(dir);
  readDiskstats(dev);
  if (processReadBytes() === null) {
    throw new ReadaheadError(
      "READAHEAD_MEASUREMENT_UNAVAILABLE",
      "/proc/self/io is not readable (kernel without task I/O accounting).",
    );
  }
  const probeDir = mkdtempSync(join(dir, "scanlab-ra-probe-"));
  try {
    const f = join(probeDir, "probe");
    const fd = openSync(f, "w");
    writeSync(fd, new Uint8Array(1 << 20).fill(0x5a));
    fsyncSync(fd);
    closeSync(fd);
    residentPages(f);
    const left = evictFile(f);
    if (left !== 0) {
      throw new ReadaheadError(
        "READAHEAD_MEASUREMENT_UNAVAILABLE",
        `Dropping a file from the page cache does not work here (${left} pages stayed resident).`,
      );
    }
  } finally {
    rmSync(probeDir, { recursive: true, force: true });
  }
  return dev;
}

/**
 * Measures the real kernel's readahead on this machine and plays the same
 * patterns through the `linux` model.
 *
 * @example
 * ```ts
 * import { measureKernelReadahead, formatKernelMeasurement } from "@scanlab/readahead/node";
 * const m = await measureKernelReadahead({ dir: "/var/lib/postgresql", fileMiB: 1024 });
 * console.log(formatKernelMeasurement(m));
 * ```
 */
export async function measureKernelReadahead(
  options: KernelMeasurementOptions = {},
): Promise<KernelMeasurement> {
  const log = options.log ?? (() => {});
  const dir = options.dir ?? tmpdir();
  const dev = checkKernelMeasurementPossible(dir);
  const fileMiB = options.fileMiB ?? 1024;
  const blocks = fileMiB * 128;
  const rampReads = options.rampReads ?? 24;
  const patterns = options.patterns ?? KERNEL_PATTERNS;
  const signal = options.signal;
  signal?.throwIfAborted();
  const work = mkdtempSync(join(dir, "scanlab-ra-"));
  const path = join(work, "table");
  // The test file sits beside the user's data: it goes when the measurement ends, however it ends,
  // a process.exit() in the middle included (nothing asynchronous runs then, so the removal is synchronous).
  const removeWork = () => rmSync(work, { recursive: true, force: true });
  process.on("exit", removeWork);
  try {
    // 1. The file, written, synced, read once; CPU per cached block.
    log(`writing ${fileMiB} MiB test file on ${dev.name} (${dev.fsType})`);
    const fd = openSync(path, "w");
    const chunk = new Uint8Array(1 << 20);
    for (let i = 0; i < fileMiB; i++) {
      chunk.fill((i * 31 + 7) & 0xff);
      writeSync(fd, chunk);
    }
    fsyncSync(fd);
    closeSync(fd);
    const rfd = openSync(path, "r");
    const buf = new Uint8Array(8192);
    for (let b = 0; b < blocks; b++) readSync(rfd, buf, 0, 8192, b * 8192);
    const hot = Math.min(blocks, 50_000);
    const t0 = performance.now();
    for (let b = 0; b < hot; b++) readSync(rfd, buf, 0, 8192, b * 8192);
    const cpuUsPerBlock = ((performance.now() - t0) * 1000) / hot;
    closeSync(rfd);

    // A stop is heard at each await (the steps between are synchronous and short).
    const wakeBefore = await measureWakeupLatency();
    signal?.throwIfAborted();

    // 2. Ramps.
    const ramps: { startBlock: number; kernel: number[] }[] = [];
    for (const startBlock of [0, Math.floor(blocks / 2)]) {
      if (evictFile(path) !== 0)
        throw new ReadaheadError("READAHEAD_MEASUREMENT_UNAVAILABLE", "The test file stayed cached.");
      const f = openSync(path, "r");
      const kernel: number[] = [];
      for (let i = 0; i < rampReads; i++) {
        readSync(f, buf, 0, 8192, (startBlock + i) * 8192);
        kernel.push(settledResidentPages(path));
      }
      closeSync(f);
      ramps.push({ startBlock, kernel });
      log(`ramp from block ${startBlock}: ${kernel.join(" ")}`);
    }

    // 3. Patterns. Each is played `repeats` times (the kernel's own outcome varies from run to
    // run with thread scheduling); a run that other programs disturbed is played again, up to
    // `attempts` times, and the quietest kept. The median run stands for the pattern.
    const attempts = options.attempts ?? 4;
    const repeats = options.repeats ?? 3;
    interface Run {
      requests: number;
      bytes: number;
      merged: number;
      background: number;
      backgroundBytes: number;
      foreignRequestsMin: number;
      foreignRequestsMax: number;
      disturbed: boolean;
      deviceReads: number;
      elapsedUs: number;
    }
    const measured: { kp: KernelPattern; median: Run; runs: Run[]; fastestUs: number }[] = [];
    for (const kp of patterns) {
      const runs: Run[] = [];
      let fastestUs = Number.POSITIVE_INFINITY;
      for (let rep = 0; rep < repeats; rep++) {
        let best: Run | null = null;
        for (let attempt = 0; attempt < attempts; attempt++) {
          signal?.throwIfAborted();
          if (evictFile(path) !== 0) {
            throw new ReadaheadError("READAHEAD_MEASUREMENT_UNAVAILABLE", "The test file stayed cached.");
          }
          const before = readDiskstats(dev);
          const bytes0 = processReadBytes() ?? Number.NaN;
          const run = await runRealPattern(path, blocks, kp.pattern);
          sleepMs(100);
          const d = delta(before, readDiskstats(dev));
          const bytes = (processReadBytes() ?? Number.NaN) - bytes0;
          // Other programs' reads: their bytes exactly, their requests within bounds (interference.ts).
          const judged = judgeInterference(
            { deviceReads: d.reads, deviceBytes: d.sectors * DISKSTATS_SECTOR_BYTES, ownBytes: bytes },
            { maxRequestBytes: dev.maxSectorsKb * 1024, logicalBlockBytes: dev.logicalBlockBytes },
          );
          const r: Run = {
            requests: judged.ownRequests,
            bytes,
            merged: d.readsMerged,
            background: d.reads - judged.ownRequests,
            backgroundBytes: judged.foreignBytes,
            foreignRequestsMin: judged.foreignRequestsMin,
            foreignRequestsMax: judged.foreignRequestsMax,
            disturbed: judged.disturbed,
            deviceReads: d.reads,
            elapsedUs: run.elapsedUs,
          };
          fastestUs = Math.min(fastestUs, run.elapsedUs);
          const spread = (x: Run) => x.foreignRequestsMax - x.foreignRequestsMin;
          if (best === null || spread(r) < spread(best)) best = r;
          if (!judged.disturbed) break;
          log(
            `${kp.name}: ${(judged.foreignBytes / 1048576).toFixed(1)} MiB read by other programs (${judged.foreignRequestsMin}-${judged.foreignRequestsMax} of ${d.reads} requests), measuring again`,
          );
        }
        runs.push(best!);
      }
      const sorted = [...runs].sort((x, y) => x.requests - y.requests);
      const median = sorted[Math.floor(sorted.length / 2)]!;
      measured.push({ kp, median, runs, fastestUs });
      log(
        `${kp.name}: ${runs.map((r) => r.requests).join("/")} requests, median ${(median.bytes / 1024 / median.requests).toFixed(1)} KiB avg ` +
          `(${median.background} background requests subtracted, ${median.merged} merged)`,
      );
    }

    // 4. The model on the machine's parameters.
    // The device. Its aggregate throughput is the best any pattern got out of it (a slow run
    // is other programs' doing, not the device's). A request costs a fixed time, which the
    // random 8 kB reads show, plus its size at the rate one sequential reader gets (one
    // request at a time), never faster than the aggregate.
    const rnd = measured.find((m) => m.kp.pattern.kind === "random");
    const seq = measured.find((m) => m.kp.pattern.kind === "sequential");
    let maxBytesPerUs = 0;
    for (const m of measured) {
      if (m.kp.pattern.kind !== "random")
        maxBytesPerUs = Math.max(maxBytesPerUs, m.median.bytes / m.fastestUs);
    }
    if (maxBytesPerUs === 0) maxBytesPerUs = 1500;
    const randomLatency =
      rnd !== undefined && rnd.kp.pattern.kind === "random"
        ? rnd.fastestUs / rnd.kp.pattern.reads - cpuUsPerBlock
        : 100;
    const baseUs = Math.max(1, randomLatency - 8 * (1024 / maxBytesPerUs));
    let usPerKiB = 1024 / maxBytesPerUs;
    if (seq !== undefined) {
      const perRequest = seq.fastestUs / seq.median.requests; // the reader's CPU overlaps the next window's I/O
      usPerKiB = Math.max(usPerKiB, (perRequest - baseUs) / (seq.median.bytes / 1024 / seq.median.requests));
    }
    const wakeAfter = await measureWakeupLatency();
    const wakeupUs = quantiles([...wakeBefore, ...wakeAfter].sort((a, b) => a - b));
    const line = linuxLineOfRelease(release());
    const machine: MachineParameters = {
      kernelRelease: release(),
      version: line.version,
      readLoop: line.readLoop,
      readAheadKb: dev.readAheadKb,
      maxSectorsKb: dev.maxSectorsKb,
      maxSegments: dev.maxSegments > 0 ? dev.maxSegments : 128,
      fsType: dev.fsType,
      largeFolios: largeFoliosFor(dev.fsType, release()),
      cpuUsPerBlock: round3(cpuUsPerBlock),
      device: {
        baseUs: round3(baseUs),
        usPerKiB: round3(usPerKiB),
        maxBytesPerUs: round3(maxBytesPerUs),
      },
      wakeupUs,
      cpus: availableParallelism(),
      fileBlocks: blocks,
    };
    log(
      `model: Linux ${machine.version} read loop, read_ahead_kb ${machine.readAheadKb}, max_sectors_kb ${machine.maxSectorsKb}, ` +
        `device ${machine.device.baseUs} us + ${machine.device.usPerKiB} us/KiB, ${machine.cpuUsPerBlock} us CPU per block`,
    );
    // The largest request seen (LargestRequest): /proc/diskstats gives counts and sectors, not single
    // requests' sizes; the largest is at least the average of any undisturbed run, taken at its lowest
    // (its own requests at their most: reads minus the fewest foreign ones).
    let largest: LargestRequest | null = null;
    for (const m of measured) {
      for (const r of m.runs) {
        if (r.disturbed) continue;
        const atLeast = r.bytes / Math.max(1, r.deviceReads - r.foreignRequestsMin);
        if (largest === null || atLeast > largest.atLeastBytes)
          largest = {
            atLeastBytes: Math.floor(atLeast),
            pattern: m.kp.name,
            ceilingBytes: dev.maxSectorsKb * 1024,
          };
      }
    }
    return compareMeasurement(
      {
        measuredAt: new Date().toISOString(),
        machine,
        device: { name: dev.name, majorMinor: dev.majorMinor, maxSegments: dev.maxSegments },
        largestRequest: largest,
        ramps: ramps.map((r) => ({
          startBlock: r.startBlock,
          kernel: r.kernel,
          model: [],
          identical: false,
        })),
        patterns: measured.map((m) => ({
          name: m.kp.name,
          pattern: m.kp.pattern,
          kernel: {
            requests: m.median.requests,
            bytes: m.median.bytes,
            avgKiB: round3(m.median.bytes / 1024 / m.median.requests),
            merged: m.median.merged,
            backgroundRequests: m.median.background,
            backgroundBytes: m.median.backgroundBytes,
            foreignRequestsMin: m.median.foreignRequestsMin,
            foreignRequestsMax: m.median.foreignRequestsMax,
            disturbed: m.median.disturbed,
            elapsedUs: Math.round(m.median.elapsedUs),
            runs: m.runs.map((r) => r.requests),
          },
          model: { ios: 0, avgKiB: 0, syncFraction: 0, runs: [] },
          gap: 0,
        })),
      },
      rampReads,
    );
  } finally {
    process.off("exit", removeWork);
    removeWork();
  }
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/**
 * Fills in (or recomputes) the model side of a measurement from its machine
 * parameters: used by {@link measureKernelReadahead} and by the test that
 * checks the committed fixture.
 */
export function compareMeasurement(m: KernelMeasurement, rampReads?: number): KernelMeasurement {
  const ramps = m.ramps.map((r) => {
    const model = modelRamp(m.machine, r.startBlock, rampReads ?? r.kernel.length);
    return {
      ...r,
      model,
      identical: model.length === r.kernel.length && model.every((x, i) => x === r.kernel[i]),
    };
  });
  const patterns = m.patterns.map((p) => {
    // The model's outcome depends on timing too: the median of three seeds.
    const results = [1, 2, 3]
      .map((seed) => modelPattern(m.machine, p.pattern, seed))
      .sort((x, y) => x.ios - y.ios);
    const res = results[1]!;
    const model = {
      ios: res.ios,
      avgKiB: round3(res.avgIoKiB),
      syncFraction: round3(res.syncFraction),
      runs: results.map((r) => r.ios),
    };
    return { ...p, model, gap: round3(model.avgKiB / p.kernel.avgKiB - 1) };
  });
  return { ...m, ramps, patterns };
}

/** Kernel and model side by side, as text. */
export function formatKernelMeasurement(m: KernelMeasurement): string {
  const mc = m.machine;
  const lines = [
    `Linux ${mc.kernelRelease} (model ${mc.version}, read loop ${mc.readLoop}), ${m.device.name} ${mc.fsType}: ` +
      `read_ahead_kb ${mc.readAheadKb}, max_sectors_kb ${mc.maxSectorsKb}, max_segments ${mc.maxSegments}, ` +
      `large folios ${mc.largeFolios ? "yes" : "no"}`,
    `model timing: ${mc.cpuUsPerBlock} us CPU per block; device ${mc.device.baseUs} us + ${mc.device.usPerKiB} us/KiB, ` +
      `cap ${mibPerSFromBytesPerUs(mc.device.maxBytesPerUs).toFixed(0)} ${THROUGHPUT_UNIT}; wake-up median ${mc.wakeupUs[Math.floor(mc.wakeupUs.length / 2)] ?? 0} us, ` +
      `p90 ${mc.wakeupUs[Math.floor(mc.wakeupUs.length * 0.9)] ?? 0} us; ${mc.cpus} CPUs; file ${mc.fileBlocks} blocks`,
  ];
  for (const r of m.ramps) {
    lines.push(
      `ramp from block ${r.startBlock} (resident pages after each 8 kB read) ${r.identical ? "IDENTICAL" : "DIFFER"}`,
    );
    lines.push(`  kernel: ${r.kernel.join(" ")}`);
    lines.push(`  model:  ${r.model.join(" ")}`);
  }
  lines.push(
    "pattern        kernel requests (runs)   avg KiB |  model ios (seeds)      avg KiB  sync |    gap",
  );
  for (const p of m.patterns) {
    lines.push(
      `${p.name.padEnd(14)} ${`${p.kernel.requests} (${p.kernel.runs.join("/")})`.padStart(22)} ${p.kernel.avgKiB.toFixed(1).padStart(9)} | ` +
        `${`${p.model.ios} (${p.model.runs.join("/")})`.padStart(22)} ${p.model.avgKiB.toFixed(1).padStart(8)} ${(p.model.syncFraction * 100).toFixed(0).padStart(4)}% | ` +
        `${(p.gap * 100 >= 0 ? "+" : "") + (p.gap * 100).toFixed(1)}%`,
    );
  }
  return lines.join("\n");
}
