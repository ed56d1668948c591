/**
 * `scanlab scan PATH`: a real parallel scan of a real file (or a PostgreSQL
 * relation's segment files) through @scanlab/file-scan: worker threads take
 * blocks from PostgreSQL's allocator in shared memory and read them with
 * positioned reads. A live bar per worker on a terminal; then MiB/s, device
 * reads and their average size (from /proc/diskstats), and whether the scan
 * was cold or warm (measured with fincore, not assumed).
 *
 * `--compare pg96,pg14,...` runs several allocators back to back on the same
 * file (the experiment of Munro's 2020 FreeBSD report, postgr.es/m/CA+hUKGJ_EErDv41YycXcbMbCBkztA34+z1ts9VQH+ACRuvpxig@mail.gmail.com, on your own disk) and, with `--device` (a
 * profile from `scanlab calibrate`), sets the simulator's prediction for that
 * device beside each measured run.
 */
import { statSync } from "node:fs";
import { availableParallelism, release, totalmem } from "node:os";
import type { AllocatorPolicy } from "@scanlab/block-allocator";
import { mibPerS, THROUGHPUT_UNIT } from "@scanlab/core";
import {
  type BlockWork,
  checkWorkerCount,
  MAX_BLOCK_BYTES,
  READ_PATTERNS,
  type ReadPattern,
  type ScanOptions,
  type ScanResult,
  scanFile,
} from "@scanlab/file-scan";
import { blockQueueLimits, deviceNumbers } from "@scanlab/host";
import {
  defaultAllocator,
  type PgVersion,
  type RowMetrics,
  type ScenarioInput,
  type SimulationResult,
} from "@scanlab/simulator";
import { formatAllocator, parseAllocator } from "../allocator-arg.js";
import type { Ctx } from "../context.js";
import { type DeviceArg, resolveDeviceArg } from "../device-arg.js";
import { CliError, EXIT } from "../errors.js";
import { jsonForm, printJson } from "../json-output.js";
import { parseChoice, parseIntFlag, parseSizeFlag, splitList } from "../options.js";
import { fixed, grouped, seconds } from "../output/format.js";
import { Bars } from "../output/progress.js";
import { renderTable } from "../output/table.js";
import { wrap } from "../output/wrap.js";
import { scenarioFlag } from "../scenario-flags.js";
import { runPool } from "../workers/pool.js";
import type { SimulateAnswer } from "../workers/protocol.js";
import { parseSeed, validateScenario } from "./scenario-input.js";

/** Options of `scan`. */
export interface ScanFlags {
  workers?: string;
  allocator?: string;
  compare?: string;
  cold?: boolean;
  device?: string;
  blockSize?: string;
  work?: string;
  workModule?: string;
  seed?: string;
  json?: boolean;
  pg?: string;
  ioCombineLimit?: string;
  effectiveIoConcurrency?: string;
  pattern?: string;
  adviseDistance?: string;
}

/** What the simulator predicts of a prefetch reader's I/O (the simulator's plain-file reader, `kind: "file"`). */
export interface PredictedIo {
  /** Device reads. */
  deviceReads: number;
  /** Their average size, KiB. */
  avgRequestKb: number;
  /** posix_fadvise(WILLNEED) calls. */
  adviceCalls: number;
}

/** A measured run and, when a device was given, the simulator's prediction (or why there is none). */
export interface ScanRun {
  policy: string;
  result: ScanResult;
  prediction: RowMetrics | null;
  /** A prefetch reader's predicted device reads and advice calls (pattern runs with a prediction). */
  predictedIo?: PredictedIo;
  /** Why the simulator cannot predict this run, when it cannot. */
  predictionNote?: string;
}

/** How `scan` reads, from --pg, --io-combine-limit, --effective-io-concurrency, --pattern and --advise-distance. */
export interface ScanReadMode {
  /** The PostgreSQL version whose reads are reproduced. */
  pg: PgVersion;
  /** Read-mode options for scanFile, one set per run (a pattern runs without advice, then with). */
  runs: { label: string | null; options: ScanOptions }[];
}

/** Whether `pg` reads through read streams (PostgreSQL 17 and later). */
function hasReadStreams(pg: PgVersion): boolean {
  return Number(pg) >= 17;
}

/** The read mode the flags ask for; a refusal is one sentence (exit 2). */
export function scanReadMode(flags: ScanFlags): ScanReadMode {
  const pg = (flags.pg === undefined ? "14" : scenarioFlag("pg")!.parse(flags.pg)) as PgVersion;
  const streams = hasReadStreams(pg);
  for (const [given, flag] of [
    [flags.ioCombineLimit, "io-combine-limit"],
    [flags.effectiveIoConcurrency, "effective-io-concurrency"],
  ] as const) {
    if (given !== undefined && !streams) {
      throw new CliError(
        "CLI_CONFLICT",
        `--${flag} sets a read stream, which sequential scans use from PostgreSQL 17, but --pg is ${pg}: use --pg 17 or later.`,
      );
    }
  }
  if (flags.pattern !== undefined) {
    for (const [given, flag] of [
      [flags.ioCombineLimit, "io-combine-limit"],
      [flags.effectiveIoConcurrency, "effective-io-concurrency"],
      [flags.allocator, "allocator"],
      [flags.compare, "compare"],
    ] as const) {
      if (given !== undefined) {
        throw new CliError(
          "CLI_CONFLICT",
          `--pattern reads one block at a time in its own order: --${flag} does not apply to it.`,
        );
      }
    }
    const pattern = parseChoice(flags.pattern, "pattern", READ_PATTERNS) as ReadPattern;
    // Up to 2^32 - 2, the largest block number; scanFile checks it against the file's own size.
    const d =
      flags.adviseDistance === undefined
        ? 0
        : parseIntFlag(flags.adviseDistance, "advise-distance", 0, 0xfffffffe);
    const patternSeed = parseSeed(flags.seed) ?? 1;
    const plain = { label: `${pattern}, no advice`, options: { pattern, adviseDistance: 0, patternSeed } };
    if (d === 0) return { pg, runs: [plain] };
    return {
      pg,
      runs: [
        plain,
        { label: `${pattern}, advise ${d} ahead`, options: { pattern, adviseDistance: d, patternSeed } },
      ],
    };
  }
  if (flags.adviseDistance !== undefined) {
    throw new CliError(
      "CLI_CONFLICT",
      "--advise-distance belongs to the prefetch reader: give --pattern forward|backward|random too.",
    );
  }
  if (!streams) return { pg, runs: [{ label: null, options: {} }] };
  const ioCombineLimit =
    flags.ioCombineLimit === undefined
      ? 16
      : (scenarioFlag("io-combine-limit")!.parse(flags.ioCombineLimit) as number);
  if (pg === "17" && ioCombineLimit > 32) {
    throw new CliError(
      "CLI_BAD_SIZE",
      `--io-combine-limit "${flags.ioCombineLimit}" comes to ${ioCombineLimit} blocks, but PostgreSQL 17 allows at most 32 (PG_IOV_MAX): use --pg 18 or later for more.`,
    );
  }
  const eic =
    flags.effectiveIoConcurrency === undefined
      ? null
      : (scenarioFlag("effective-io-concurrency")!.parse(flags.effectiveIoConcurrency) as number);
  const options: ScanOptions =
    eic === null || eic === 0
      ? { ioCombineLimit, ...(eic === 0 ? { effectiveIoConcurrency: 0 } : {}) }
      : { ioCombineLimit, effectiveIoConcurrency: eic, advice: true };
  return { pg, runs: [{ label: null, options }] };
}

/** Why the simulator cannot predict a run in this mode, or null when it can. */
export function predictionGap(result: ScanResult): string | null {
  const m = result.mode;
  if (m.kind === "pattern" && result.blockBytes !== 8192) {
    return `the simulator's plain-file reader reads 8 kB blocks: it cannot predict a ${m.pattern} read of ${result.blockBytes} B blocks.`;
  }
  if (m.kind === "read-stream" && m.advice) {
    return "the simulator's sequential scan never advises (PostgreSQL's streams for sequential scans do not): it cannot predict a read stream with advice.";
  }
  return null;
}

/** The Linux readahead rule set the simulator should use for this kernel (apps/docs/src/reference/linux-readahead-window.md#version-table: <= 6.9 / >= 6.10). */
export function linuxLine(kernelRelease: string): "linux-5.4" | "linux-6.10" {
  const m = /^(\d+)\.(\d+)/.exec(kernelRelease);
  if (!m) return "linux-5.4";
  const [maj, min] = [Number(m[1]), Number(m[2])];
  return maj > 6 || (maj === 6 && min >= 10) ? "linux-6.10" : "linux-5.4";
}

/** The scenario that predicts a file scan on this machine with a given device profile. */
export function predictionScenario(
  path: string,
  result: ScanResult,
  policy: AllocatorPolicy,
  device: DeviceArg,
  cold: boolean,
  seed: number | undefined,
  pg: PgVersion = "14",
): ScenarioInput {
  let osOptions: Record<string, number> = {};
  try {
    const queue = blockQueueLimits(deviceNumbers(statSync(path, { bigint: true }).dev));
    // Not Linux, or no sysfs entry (null): the device profile's defaults stand.
    if (queue !== null) osOptions = { readAheadKb: queue.readAheadKb, maxSectorsKb: queue.maxSectorsKb };
  } catch {
    // The file cannot be examined here: the scan itself reports why.
  }
  const ramBytes = totalmem();
  const machine: ScenarioInput["machine"] = {
    cores: availableParallelism(),
    ram: ramBytes,
    // PostgreSQL's default shared_buffers. file-scan has none: a PG-style scan reads through it once like
    // any cold buffer pool; for the plain-file reader it only sets the page cache's share of the RAM.
    sharedBuffers: Math.min(128 * 1024 * 1024, Math.floor(ramBytes / 4)),
    os: process.platform === "linux" ? linuxLine(release()) : "linux-5.4",
    osOptions,
    device: device.device,
    // file-scan does no per-page or per-tuple work (work "none"): only the read system call and the copy,
    // at the simulator's default costs.
    cpu: { perPageUs: 0, perTupleUs: 0 },
  };
  const m = result.mode;
  if (m.kind === "pattern") {
    const nblocks = result.target.nblocks;
    return {
      name: `prediction: ${m.pattern} read of ${path}${m.adviseDistance > 0 ? `, advising ${m.adviseDistance} ahead` : ""}`,
      ...(seed === undefined ? {} : { seed }),
      machine,
      // One plain file: one segment as long as the file, so one readahead state, as the kernel keeps.
      tables: [
        {
          name: "file",
          blocks: nblocks,
          segmentBlocks: Math.max(1, nblocks),
          tuplesPerPage: 1,
          cached: cold ? "none" : "os",
        },
      ],
      queries: [
        {
          name: "read",
          table: "file",
          kind: "file",
          file: { pattern: m.pattern, adviseDistance: m.adviseDistance, seed: m.seed },
        },
      ],
    };
  }
  return {
    name: `prediction: ${formatAllocator(policy)} scan of ${path}`,
    ...(seed === undefined ? {} : { seed }),
    machine,
    tables: [{ name: "file", blocks: result.target.nblocks, tuplesPerPage: 1, cached: cold ? "none" : "os" }],
    queries: [
      {
        name: "scan",
        table: "file",
        pg,
        ...(result.mode.kind === "read-stream" ? { ioCombineLimit: result.mode.ioCombineLimit } : {}),
        // The scan reads synchronously in each worker, as io_method=sync does (PG18's default is worker).
        ...(Number(pg) >= 18 ? { ioMethod: "sync" as const } : {}),
        workers: result.workers - 1,
        parallelLeaderParticipation: true,
        allocator: policy as NonNullable<ScenarioInput["queries"][number]["allocator"]>,
        synchronizeSeqscans: false,
      },
    ],
  };
}

/** Runs `scan`. */
export async function scanCommand(ctx: Ctx, path: string, flags: ScanFlags): Promise<number> {
  const workers = flags.workers === undefined ? 1 : parseIntFlag(flags.workers, "workers", 1, 1024);
  // Before anything is read or evicted: the machine's limit (cores and memory, worker-limit.ts).
  checkWorkerCount(workers);
  if (flags.compare !== undefined && flags.allocator !== undefined) {
    throw new CliError(
      "CLI_CONFLICT",
      "--compare and --allocator cannot be given together: list every policy in --compare.",
    );
  }
  const readMode = scanReadMode(flags);
  // Without --allocator, the version's own allocator (pg14 for the default --pg 14).
  const policies =
    flags.compare !== undefined
      ? splitList(flags.compare, "compare").map((p) => parseAllocator(p, "compare"))
      : [
          flags.allocator === undefined
            ? (defaultAllocator(readMode.pg) as AllocatorPolicy)
            : parseAllocator(flags.allocator),
        ];
  const blockBytes = flags.blockSize === undefined ? 8192 : parseSizeFlag(flags.blockSize, "block-size", 512);
  if (blockBytes > MAX_BLOCK_BYTES) {
    throw new CliError(
      "CLI_BAD_SIZE",
      `--block-size "${flags.blockSize}" is too large: it must be at most ${MAX_BLOCK_BYTES / 2 ** 20}MB.`,
    );
  }
  if (flags.work !== undefined && flags.workModule !== undefined) {
    throw new CliError(
      "CLI_CONFLICT",
      "--work and --work-module cannot be given together: keep one of them.",
    );
  }
  const work: BlockWork =
    flags.workModule !== undefined
      ? { module: flags.workModule }
      : flags.work === undefined
        ? "none"
        : parseChoice(flags.work, "work", ["none", "checksum", "count-bytes"] as const);
  const device = flags.device === undefined ? null : resolveDeviceArg(flags.device);
  const seed = parseSeed(flags.seed);
  const cold = flags.cold === true;

  // One run per policy; a prefetch pattern instead runs without advice, then with it.
  const plan =
    readMode.runs[0]!.label === null
      ? policies.map((policy) => ({
          policy,
          label: formatAllocator(policy),
          options: readMode.runs[0]!.options,
        }))
      : readMode.runs.map((r) => ({ policy: policies[0]!, label: r.label!, options: r.options }));
  const runs: ScanRun[] = [];
  const runPolicies: AllocatorPolicy[] = [];
  ctx.interrupt.catch();
  try {
    for (const { policy, label, options } of plan) {
      if (ctx.interrupt.stopped) break;
      const bars = Bars.start(ctx, "{name} {bar} {value}/{total} blocks {mbps}");
      let updaters: ((v: number, p?: Record<string, string | number>) => void)[] | null = null;
      let result: ScanResult;
      try {
        result = await scanFile(path, {
          ...options,
          workers,
          policy,
          blockBytes,
          evict: cold,
          work,
          recordRuns: false,
          signal: ctx.interrupt.signal,
          onProgress: (p) => {
            if (updaters === null) {
              const share = Math.ceil(p.nblocks / p.workerBlocks.length);
              updaters = [
                bars.add(p.nblocks, { name: `${label.padEnd(10)} all`, mbps: "" }),
                ...p.workerBlocks.map((_, i) =>
                  bars.add(share, { name: `${" ".repeat(10)} w${i}`.padEnd(14), mbps: "" }),
                ),
              ];
            }
            const mbps =
              p.elapsedUs > 0
                ? `${mibPerS(p.blocks * blockBytes, p.elapsedUs / 1e6).toFixed(0)} ${THROUGHPUT_UNIT}`
                : "";
            updaters[0]!(p.blocks, { mbps });
            for (let i = 0; i < p.workerBlocks.length; i++)
              updaters[i + 1]!(p.workerBlocks[i]!, { mbps: "" });
          },
        });
      } finally {
        bars.stop();
      }
      runs.push({ policy: label, result, prediction: null });
      runPolicies.push(policy);
      if (result.aborted) break;
    }
  } finally {
    ctx.interrupt.release();
  }
  const interrupted = ctx.interrupt.stopped || runs.some((r) => r.result.aborted);

  if (device !== null && !interrupted && runs.length > 0) {
    const predictable: number[] = [];
    runs.forEach((r, i) => {
      const gap = predictionGap(r.result);
      if (gap === null) predictable.push(i);
      else r.predictionNote = gap;
    });
    const tasks = predictable.map((i) => {
      const r = runs[i]!;
      const scenario = predictionScenario(
        path,
        r.result,
        runPolicies[i]!,
        device,
        r.result.cache.state !== "warm",
        seed,
        readMode.pg,
      );
      validateScenario(scenario, "prediction");
      // A prefetch reader's prediction carries its device reads and advice calls, from the full result.
      return { kind: "simulate" as const, scenario, full: r.result.mode.kind === "pattern" };
    });
    if (tasks.length > 0) {
      ctx.interrupt.catch();
      try {
        const answers = (await runPool(tasks, { flag: ctx.interrupt.flag })) as (
          | SimulateAnswer
          | undefined
        )[];
        answers.forEach((a, k) => {
          if (a === undefined || a.interrupted) return;
          const run = runs[predictable[k]!]!;
          run.prediction = a.metrics;
          if (a.result !== null) run.predictedIo = predictedIo(a.result);
        });
      } finally {
        ctx.interrupt.release();
      }
    }
  }

  if (ctx.json) {
    printJson(ctx, "scan", {
      path,
      workers,
      cold,
      device: device?.label ?? null,
      pg: readMode.pg,
      interrupted,
      runs: runs.map((r) => ({
        policy: r.policy,
        prediction: r.prediction,
        ...(r.predictedIo === undefined ? {} : { predictedIo: r.predictedIo }),
        ...(r.predictionNote === undefined ? {} : { predictionNote: r.predictionNote }),
        result: jsonForm(r.result),
      })),
    });
    return interrupted ? ctx.interrupt.exitCode : EXIT.ok;
  }
  printScanRuns(ctx, runs, device);
  if (interrupted)
    ctx.out(
      ctx.c.yellow(
        wrap(
          ctx,
          "Interrupted: the figures cover the blocks read before the interruption (Ctrl-C or SIGTERM).",
          2,
        ),
      ),
    );
  return interrupted ? ctx.interrupt.exitCode : EXIT.ok;
}

/** A simulated prefetch reader's device reads and advice calls. */
export function predictedIo(result: SimulationResult): PredictedIo {
  const runs = result.queries.flatMap((q) => q.runs.filter((r) => r.finished));
  return {
    deviceReads: result.device.reads,
    avgRequestKb: result.device.avgReadKb,
    adviceCalls: runs.reduce((a, r) => a + (r.adviceCalls ?? 0), 0),
  };
}

/** The read mode in words, for the header line. */
function describeMode(r: ScanResult): string {
  const m = r.mode;
  if (m.kind === "blocks") return "one read per block";
  if (m.kind === "read-stream") {
    return `read stream: up to ${m.ioCombineLimit} blocks per preadv, ${m.advice ? `advice at effective_io_concurrency ${m.effectiveIoConcurrency}` : "no advice"}`;
  }
  return `prefetch reader: ${m.pattern}, one block per read`;
}

function deviceCells(r: ScanResult): string[] {
  if (!r.device.available) return ["n/a", "n/a"];
  return [
    grouped(r.device.reads),
    r.device.avgRequestBytes === null ? "-" : fixed(r.device.avgRequestBytes / 1024, 0),
  ];
}

/** Prints the result table(s). */
export function printScanRuns(ctx: Ctx, runs: ScanRun[], device: DeviceArg | null): void {
  if (runs.length === 0) return;
  const first = runs[0]!.result;
  ctx.out(
    ctx.c.bold(
      wrap(
        ctx,
        `${first.target.kind === "relation" ? "Relation" : "File"} ${first.target.path}: ${(first.target.bytes / 1e6).toFixed(1)} MB, ${grouped(first.target.nblocks)} blocks of ${first.blockBytes} B, ${first.workers} worker(s), ${describeMode(first)}`,
        2,
      ),
    ),
  );
  const head = [
    first.mode.kind === "pattern" ? "reader" : "policy",
    "cache",
    "time",
    THROUGHPUT_UNIT,
    "read kB",
    "advice calls",
    "device reads",
    "avg request kB",
    "runs per worker",
    "exact cover",
  ];
  const pattern = first.mode.kind === "pattern";
  if (device !== null) {
    head.push(`predicted time (${device.label})`, `predicted ${THROUGHPUT_UNIT}`, "predicted avg read kB");
    if (pattern) head.push("predicted device reads", "predicted advice calls");
  }
  const rows = runs.map(({ policy, result: r, prediction: p, predictedIo: io }) => {
    const runsPerWorker =
      r.perWorker.length > 0 ? r.perWorker.reduce((a, w) => a + w.runs.count, 0) / r.perWorker.length : 0;
    const row = [
      policy + (r.aborted ? " (stopped)" : ""),
      r.cache.method === "device-reads" ? `${r.cache.state} (device reads)` : r.cache.state,
      seconds(r.wallUs / 1e6),
      fixed(r.mibPerS, 0),
      fixed(r.reads.meanBytes / 1024, 0),
      r.advice.requested ? (r.advice.available ? grouped(r.advice.calls) : "unavailable") : "-",
      ...deviceCells(r),
      fixed(runsPerWorker, 0),
      r.aborted ? "-" : r.cover.exact ? "yes" : ctx.c.red("no"),
    ];
    if (device !== null) {
      row.push(p ? seconds(p.timeS) : "-", p ? fixed(p.mibPerS, 0) : "-", p ? fixed(p.avgReadKb, 0) : "-");
      if (pattern) row.push(io ? grouped(io.deviceReads) : "-", io ? grouped(io.adviceCalls) : "-");
    }
    return row;
  });
  // The policy and the cache state are words; the rest are numbers. A table too wide for the
  // output is split (renderTable), each part led by the policy.
  ctx.out(
    renderTable(
      ctx,
      head,
      rows,
      head.map((_, i) => (i < 2 ? "left" : "right")),
    ),
  );
  if (runs.length === 1) {
    const r = first;
    ctx.out(
      renderTable(
        ctx,
        ["worker", "blocks", "claims", "runs", "mean run (blocks)", "longest run"],
        r.perWorker.map((w) => [
          `w${w.worker}`,
          grouped(w.blocks),
          grouped(w.claims),
          grouped(w.runs.count),
          fixed(w.runs.meanBlocks, 1),
          grouped(w.runs.maxBlocks),
        ]),
      ),
    );
  }
  if (runs.length === 2 && first.mode.kind === "pattern" && runs[1]!.result.mode.kind === "pattern") {
    const ratio = runs[1]!.result.mibPerS / first.mibPerS;
    ctx.out(wrap(ctx, `${runs[1]!.policy} / ${runs[0]!.policy}: ${fixed(ratio, 2)}x the throughput.`, 2));
  }
  const notes = new Set(runs.flatMap((r) => (r.predictionNote === undefined ? [] : [r.predictionNote])));
  for (const n of notes) ctx.out(ctx.c.yellow(wrap(ctx, `note: no prediction: ${n}`, 6)));
  const warnings = new Set(runs.flatMap((r) => r.result.warnings));
  if (!first.device.available) warnings.add(`device counters: ${first.device.reason}`);
  for (const w of warnings) ctx.out(ctx.c.yellow(wrap(ctx, `note: ${w}`, 6)));
  if (device === null && runs.length > 1) {
    ctx.out(
      ctx.c.dim(
        wrap(
          ctx,
          "Give --device NAME|FILE (e.g. a profile from scanlab calibrate) to see the simulator's prediction beside each run.",
          2,
        ),
      ),
    );
  }
}
