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
  type ScanResult,
  scanFile,
} from "@scanlab/file-scan";
import { blockQueueLimits, deviceNumbers } from "@scanlab/host";
import type { RowMetrics, ScenarioInput } from "@scanlab/simulator";
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
}

/** A measured run and, when a device was given, the simulator's prediction. */
export interface ScanRun {
  policy: string;
  result: ScanResult;
  prediction: RowMetrics | null;
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
  return {
    name: `prediction: ${formatAllocator(policy)} scan of ${path}`,
    ...(seed === undefined ? {} : { seed }),
    machine: {
      cores: availableParallelism(),
      ram: ramBytes,
      // PostgreSQL's default shared_buffers; file-scan has none, so the scan
      // below reads through it once like any cold buffer pool.
      sharedBuffers: Math.min(128 * 1024 * 1024, Math.floor(ramBytes / 4)),
      os: process.platform === "linux" ? linuxLine(release()) : "linux-5.4",
      osOptions,
      device: device.device,
      // file-scan does no per-page or per-tuple work (work "none"): only the
      // read system call and the copy, at the simulator's default costs.
      cpu: { perPageUs: 0, perTupleUs: 0 },
    },
    tables: [{ name: "file", blocks: result.target.nblocks, tuplesPerPage: 1, cached: cold ? "none" : "os" }],
    queries: [
      {
        name: "scan",
        table: "file",
        pg: "14",
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
  const policies =
    flags.compare !== undefined
      ? splitList(flags.compare, "compare").map((p) => parseAllocator(p, "compare"))
      : [
          flags.allocator === undefined
            ? ({ kind: "pg14" } as AllocatorPolicy)
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

  const runs: ScanRun[] = [];
  ctx.interrupt.catch();
  try {
    for (const policy of policies) {
      if (ctx.interrupt.stopped) break;
      const label = formatAllocator(policy);
      const bars = Bars.start(ctx, "{name} {bar} {value}/{total} blocks {mbps}");
      let updaters: ((v: number, p?: Record<string, string | number>) => void)[] | null = null;
      let result: ScanResult;
      try {
        result = await scanFile(path, {
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
      if (result.aborted) break;
    }
  } finally {
    ctx.interrupt.release();
  }
  const interrupted = ctx.interrupt.stopped || runs.some((r) => r.result.aborted);

  if (device !== null && !interrupted && runs.length > 0) {
    const tasks = runs.map((r, i) => {
      const scenario = predictionScenario(
        path,
        r.result,
        policies[i]!,
        device,
        r.result.cache.state !== "warm",
        seed,
      );
      validateScenario(scenario, "prediction");
      return { kind: "simulate" as const, scenario, full: false };
    });
    ctx.interrupt.catch();
    try {
      const answers = (await runPool(tasks, { flag: ctx.interrupt.flag })) as (SimulateAnswer | undefined)[];
      answers.forEach((a, i) => {
        if (a !== undefined && !a.interrupted) runs[i]!.prediction = a.metrics;
      });
    } finally {
      ctx.interrupt.release();
    }
  }

  if (ctx.json) {
    printJson(ctx, "scan", {
      path,
      workers,
      cold,
      device: device?.label ?? null,
      interrupted,
      runs: runs.map((r) => ({ policy: r.policy, prediction: r.prediction, result: jsonForm(r.result) })),
    });
    return interrupted ? ctx.interrupt.exitCode : EXIT.ok;
  }
  printScanRuns(ctx, runs, device);
  if (interrupted)
    ctx.out(
      ctx.c.yellow(
        "Interrupted: the figures cover the blocks read before the interruption (Ctrl-C or SIGTERM).",
      ),
    );
  return interrupted ? ctx.interrupt.exitCode : EXIT.ok;
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
      `${first.target.kind === "relation" ? "Relation" : "File"} ${first.target.path}: ${(first.target.bytes / 1e6).toFixed(1)} MB, ${grouped(first.target.nblocks)} blocks of ${first.blockBytes} B, ${first.workers} worker(s)`,
    ),
  );
  const head = [
    "policy",
    "cache",
    "time",
    THROUGHPUT_UNIT,
    "device reads",
    "avg request kB",
    "runs per worker",
    "exact cover",
  ];
  if (device !== null)
    head.push(`predicted time (${device.label})`, `predicted ${THROUGHPUT_UNIT}`, "predicted avg read kB");
  const rows = runs.map(({ policy, result: r, prediction: p }) => {
    const runsPerWorker =
      r.perWorker.length > 0 ? r.perWorker.reduce((a, w) => a + w.runs.count, 0) / r.perWorker.length : 0;
    const row = [
      policy + (r.aborted ? " (stopped)" : ""),
      r.cache.method === "device-reads" ? `${r.cache.state} (device reads)` : r.cache.state,
      seconds(r.wallUs / 1e6),
      fixed(r.mibPerS, 0),
      ...deviceCells(r),
      fixed(runsPerWorker, 0),
      r.aborted ? "-" : r.cover.exact ? "yes" : ctx.c.red("no"),
    ];
    if (device !== null) {
      row.push(p ? seconds(p.timeS) : "-", p ? fixed(p.mibPerS, 0) : "-", p ? fixed(p.avgReadKb, 0) : "-");
    }
    return row;
  });
  ctx.out(renderTable(ctx, head, rows));
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
  const warnings = new Set(runs.flatMap((r) => r.result.warnings));
  if (!first.device.available) warnings.add(`device counters: ${first.device.reason}`);
  for (const w of warnings) ctx.out(ctx.c.yellow(`note: ${w}`));
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
