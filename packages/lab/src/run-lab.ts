/**
 * A lab run: start a throwaway cluster per PostgreSQL version, create the
 * tables, run every cell cold and warm a few times, keep the medians, then
 * simulate every cell with the same settings and put the two side by side.
 *
 * Problem. The simulator is only as good as its figures on a real machine,
 * and a real measurement is easy to get wrong: a "cold" run that found the
 * table in the page cache, a parallel query the planner ran serially, a device
 * setting left changed after a crash, a cluster left running after Ctrl-C.
 *
 * Choices.
 * - Every run restarts the server (`pg_ctl restart -m fast`), so shared
 *   buffers are empty at the start of every run, cold or warm, which is what
 *   the simulator assumes. A cold run then drops the table's and its indexes'
 *   files from the page cache (posix_fadvise DONTNEED through
 *   @scanlab/host) and measures residency with fincore; a run that was not
 *   cold (more than 1 % resident) or a warm run that was not warm is marked,
 *   not hidden. Residency is checked on the heap's files, the table the model
 *   scans (a bitmap query reads only part of its index, so a warm index is
 *   never whole).
 * - A cold table was evicted long ago: where the kernel hands freed memory
 *   back to a hypervisor (`settleFreedMemory`, @scanlab/host), a cold run
 *   waits for the eviction's memory to be reported before the query, so the
 *   read pays the host's fault on each new page as a table cold in
 *   production does, and every run pays it alike rather than as much as was
 *   reported by chance during the query.
 * - Cold means a cold table, not a cold machine. Dropping every cache
 *   (/proc/sys/vm/drop_caches) also drops the server's own executable and
 *   libraries, and the run would then time and count the page faults that
 *   read them back (13.2 MiB for Debian's PostgreSQL 15.20 on x86-64: the
 *   device bytes of a cold 128 MiB seq scan with every cache dropped, less
 *   the heap). A running server has its code cached, so drop_caches is
 *   only the fallback, as root, when DONTNEED left the heap resident, and the
 *   run says so.
 * - A warm cell first reads its whole table with a serial seq scan and runs
 *   its query once, unrecorded, to fill the page cache.
 * - The plan's node types are checked: a cell whose plan lacks its scan node,
 *   or launched fewer workers than asked, is marked.
 * - Device figures are /proc/diskstats deltas of the device holding PGDATA
 *   around the query; other programs' reads on that device show up in them,
 *   which is why the median of several runs is kept. A fit cell runs at
 *   least MIN_FIT_RUNS times: its median feeds every prediction.
 * - io_method is a server-start setting: it is set with ALTER SYSTEM and
 *   takes effect at the restart before the run.
 * - Stopping: the AbortSignal is checked between steps; whatever happens, the
 *   `finally` blocks stop the server, remove the cluster directory (tables
 *   included) and restore read_ahead_kb.
 */
import { existsSync, statfsSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { errorClause } from "@scanlab/core";
import {
  blockQueueLimits,
  type DeviceProbe,
  deviceNumbers,
  evictFromPageCache,
  freePageReporting,
  measureResidency,
  probeDevice,
  REPORTING_SETTLE_MS,
  resolveBlockDevice,
  settleFreedMemory,
} from "@scanlab/host";
import { type Cluster, cachedPostgres, ensurePostgres, startCluster } from "@scanlab/pg-harness";
import { DEFAULT_CPU_COSTS } from "@scanlab/simulator";
import { type Cell, type LabPlan, type LabTable, MIN_FIT_RUNS, planLab, type RefusedCell } from "./cells.js";
import { type ComparisonResult, judgeComparisons } from "./comparisons.js";
import { assertFitDisjoint, type CpuFit, fitBitmapCosts, fitCpuCosts } from "./cpu-fit.js";
import { probeTableDevice } from "./device-probe.js";
import { LabError } from "./errors.js";
import { parseExplain } from "./explain.js";
import { median } from "./median.js";
import { defaultPreadBlockUs, kernelLine, type LabMachine, type Prediction, predictCell } from "./predict.js";
import { probedDevice, type TableDeviceProbe } from "./probed-device.js";
import { type ReadAheadControl, readAheadControl } from "./read-ahead.js";
import { cellQuerySql, createTableSql, expectedNode, sessionSettingsSql, warmUpSql } from "./tables.js";

/** A PostgreSQL server a lab run used. */
export interface LabServer {
  /** Major version. */
  readonly pg: number;
  /** Directory of its binaries. */
  readonly bin: string;
  /** What the server reported (`SHOW server_version`). */
  readonly version: string;
}

/** The machine a lab run measured, with the device named. */
export interface LabReportMachine extends LabMachine {
  /** The device as the user named it (profile file or built-in profile). */
  readonly deviceLabel: string;
  /** The block device holding the work directory, when it was found. */
  readonly deviceName: string | null;
}

/** One measured cell: its runs and what was noted about them. */
export interface MeasuredCell {
  /** The cell. */
  cell: Cell;
  /** Every run of it. */
  runs: RunRecord[];
  /** Notes on runs that were not what the cell asked for (not cold, fewer workers...). */
  notes: string[];
}

/** The predictions of a lab run. */
export interface LabPredictions {
  /** Every cell, measured beside predicted. */
  cells: CellResult[];
  /** Every pairwise comparison and whether it points the same way. */
  comparisons: ComparisonResult[];
  /** The CPU costs used per version, fitted or default. */
  cpu: CpuUsed[];
}

/** Version of the JSON document; bumped when a field changes meaning or goes away. */
export const LAB_REPORT_VERSION = 1;

/** shared_buffers of every lab cluster: small, so every table is bigger than a quarter of it and scans go through the ring (freelist.c, GetAccessStrategy). */
export const LAB_SHARED_BUFFERS_BYTES = 32 << 20;

/** max_connections of every lab cluster (it sizes PG18's pin limit in the model too). */
export const LAB_MAX_CONNECTIONS = 20;

/** Time within this fraction of the measured median counts as a hit (scanlab's choice for a first instrument). */
export const TIME_TOLERANCE = 0.2;
/** Device bytes within this fraction count as a hit (scanlab's choice). */
export const BYTES_TOLERANCE = 0.1;
/** Below this many device bytes on both sides, measured and predicted both read "nothing" and agree. */
export const NOTHING_READ_BYTES = 1 << 20;

/** One measured run. */
export interface RunRecord {
  /** EXPLAIN's Execution Time (mean over the clients of a multi-client cell), ms. */
  readonly executionMs: number;
  /** Client-side time around psql (start, connect, plan, execute, print), ms. */
  readonly clientMs: number;
  /** Device bytes read during the run (null: no device counters). */
  readonly deviceBytes: number | null;
  /** Device read requests during the run. */
  readonly deviceReads: number | null;
  /** Shared buffer hits (all clients). */
  readonly sharedHitBlocks: number;
  /** Shared buffer reads (all clients). */
  readonly sharedReadBlocks: number;
  /** Fraction of the table's heap files resident in the page cache before the run (null: fincore unavailable). */
  readonly residentBefore: number | null;
  /** Parallel workers launched (all clients). */
  readonly workersLaunched: number;
}

/** A cell's medians. */
export interface MeasuredSummary {
  /** Median execution time, ms. */
  readonly timeMs: number;
  /** Median client-side time, ms. */
  readonly clientMs: number;
  /** Median device bytes (null: no counters). */
  readonly deviceBytes: number | null;
  /** Median average request size over runs that read the device, bytes. */
  readonly avgRequestBytes: number | null;
  /** Median shared hits. */
  readonly sharedHitBlocks: number;
  /** Median shared reads. */
  readonly sharedReadBlocks: number;
}

/** A cell's result. */
export interface CellResult {
  /** The cell. */
  readonly cell: Cell;
  /** Every run, in order. */
  readonly runs: readonly RunRecord[];
  /** Medians (null: no run finished). */
  readonly measured: MeasuredSummary | null;
  /** The simulator's figures (for a fit cell: with the fit it fed). */
  readonly predicted: Prediction | null;
  /** predicted / measured time. */
  readonly timeRatio: number | null;
  /** predicted / measured device bytes (null when either side read less than 1 MiB). */
  readonly bytesRatio: number | null;
  /** Time within ±20 % (null for fit cells and unfinished cells). */
  readonly timeWithin: boolean | null;
  /** Device bytes within ±10 %, or both under 1 MiB (null when unknown). */
  readonly bytesWithin: boolean | null;
  /**
   * A predicted time outside ±20 % of the median that still lies between the
   * cell's fastest and slowest run: the machine itself spread that far, so the
   * miss is at least partly the cell's own noise (null for fit cells, cells
   * within tolerance and unfinished cells).
   */
  readonly missWithinRuns?: boolean | null;
  /** Marks: runs that were not cold, plans that were not the asked-for scan. */
  readonly notes: readonly string[];
}

/** CPU costs used for one version's predictions. */
export interface CpuUsed {
  /** PostgreSQL major. */
  readonly pg: number;
  /** "fit": from the fit cells; "default": the simulator's documented defaults. */
  readonly source: "fit" | "default";
  /** Per-page cost, us. */
  readonly perPageUs: number;
  /** Per-tuple cost, us. */
  readonly perTupleUs: number;
  /** Extra cost per tuple a bitmap scan matches, us (the simulator's bitmapTupleUs). */
  readonly bitmapTupleUs: number;
  /** A shared buffer's first use since the server started, us (the simulator's bufferFirstUseUs). */
  readonly bufferFirstUseUs: number;
  /** Cells fitted on (never predicted). */
  readonly fitCells: readonly string[];
  /** Fitted minus measured per-block time of each sequential fit cell, us. */
  readonly residualsUs: readonly number[];
  /** Fitted minus measured time of each bitmap fit cell, us. */
  readonly bitmapResidualsUs: readonly number[];
  /**
   * Why the fit cannot be trusted, one sentence (its sequential fit cells have
   * one tuple density, so all CPU work went to the page); absent when sound.
   */
  readonly warning?: string;
}

/** The whole result: the JSON document of `scanlab lab --json`. */
export interface LabReport {
  /** {@link LAB_REPORT_VERSION}. */
  readonly version: number;
  /** When the run started and ended (ISO 8601). */
  readonly startedAt: string;
  /** End time. */
  readonly finishedAt: string;
  /** True when a signal stopped the run: `cells` holds the finished ones. */
  readonly interrupted: boolean;
  /** The quick cell set. */
  readonly quick: boolean;
  /** Runs per cell. */
  readonly runsPerCell: number;
  /** PostgreSQL majors and their server directories. */
  readonly servers: readonly LabServer[];
  /** The modelled machine. */
  readonly machine: LabReportMachine;
  /** Where the time comes from. */
  readonly timeSource: string;
  /** How cold runs were made cold. */
  readonly coldMethod: string;
  /** CPU costs per version. */
  readonly cpu: readonly CpuUsed[];
  /** Tables (as built). */
  readonly tables: readonly LabTable[];
  /** Cells with results. */
  readonly cells: readonly CellResult[];
  /** Comparisons. */
  readonly comparisons: readonly ComparisonResult[];
  /** Cells left out. */
  readonly refused: readonly RefusedCell[];
  /**
   * The device as each server's tables saw it (`device-probe.ts`): the cells of a server with a probe are
   * predicted on the queue fitted to it. Empty when fio was missing or the probe was turned off.
   */
  readonly deviceProbes: readonly TableDeviceProbe[];
  /** Counts. */
  readonly summary: LabSummary;
}

/** How many predictions land. */
export interface LabSummary {
  /** Predicted cells with a measurement. */
  readonly predicted: number;
  /** Of them, time within ±20 %. */
  readonly timeWithin: number;
  /** Of the others, predicted between the cell's fastest and slowest run ({@link CellResult.missWithinRuns}). */
  readonly missesWithinRuns?: number;
  /** Cells with device counters on both sides. */
  readonly bytesJudged: number;
  /** Of them, bytes within ±10 %. */
  readonly bytesWithin: number;
  /** Comparisons judged. */
  readonly comparisons: number;
  /** Of them, pointing the same way. */
  readonly agree: number;
}

/** Options of {@link runLab}. */
export interface LabOptions {
  /** PostgreSQL majors. */
  readonly pgMajors: readonly number[];
  /** The quick cell set. */
  readonly quick: boolean;
  /** Runs per cell (default 3). */
  readonly runs?: number;
  /** Directory the clusters are made in (default os.tmpdir()): its device is the one measured. */
  readonly workDir: string;
  /** A built-in device profile name, or a parsed profile. */
  readonly device: string | Record<string, unknown>;
  /** How the device was chosen, for the output ("profile my-disk.json", "built-in default ..."). */
  readonly deviceLabel: string;
  /** Fit CPU costs from the warm fit cells (default true). */
  readonly fit?: boolean;
  /** Measure the device through a table's file once it is built (`device-probe.ts`; default true). */
  readonly probe?: boolean;
  /** Stops the run between steps. */
  readonly signal?: AbortSignal;
  /** Progress lines. */
  readonly onProgress?: (line: string) => void;
  /** Caps every table at this many blocks (a smoke test). */
  readonly maxTableBlocks?: number;
  /** Keeps only the cells this returns true for, and the fit cells of their versions when fitting. */
  readonly only?: (cell: Cell) => boolean;
}

/** A server's bin directory: Debian's, else the pinned npm build (fetched once). */
export function serverBin(major: number): string {
  const debian = `/usr/lib/postgresql/${major}/bin`;
  if (existsSync(join(debian, "postgres")) && existsSync(join(debian, "initdb"))) return debian;
  const cached = cachedPostgres(major);
  if (cached !== null) return cached;
  try {
    return ensurePostgres(major);
  } catch (e) {
    throw new LabError(
      "LAB_NO_POSTGRES",
      `PostgreSQL ${major} is not installed and could not be fetched (${String((e as Error).message).split("\n")[0]}).`,
    );
  }
}

/** Bytes a run needs free in the work directory: each table twice (heap + WAL of its load) plus 512 MiB for the cluster. */
export function spaceNeededBytes(tables: readonly LabTable[]): number {
  return tables.reduce((a, t) => a + 2 * t.blocks * 8192, 0) + (512 << 20);
}

/** Counts the hits. */
export function summarize(
  cells: readonly CellResult[],
  comparisons: readonly ComparisonResult[],
): LabSummary {
  const predicted = cells.filter((c) => c.cell.role === "predict" && c.timeWithin !== null);
  const bytes = predicted.filter((c) => c.bytesWithin !== null);
  return {
    predicted: predicted.length,
    timeWithin: predicted.filter((c) => c.timeWithin).length,
    missesWithinRuns: predicted.filter((c) => c.missWithinRuns === true).length,
    bytesJudged: bytes.length,
    bytesWithin: bytes.filter((c) => c.bytesWithin).length,
    comparisons: comparisons.length,
    agree: comparisons.filter((c) => c.agrees).length,
  };
}

/** The medians of a cell's runs. */
export function summarizeRuns(runs: readonly RunRecord[]): MeasuredSummary | null {
  if (runs.length === 0) return null;
  const dev = runs.filter((r) => r.deviceBytes !== null);
  const avg = dev.filter((r) => (r.deviceReads ?? 0) > 0).map((r) => r.deviceBytes! / r.deviceReads!);
  return {
    timeMs: median(runs.map((r) => r.executionMs)),
    clientMs: median(runs.map((r) => r.clientMs)),
    deviceBytes: dev.length === 0 ? null : median(dev.map((r) => r.deviceBytes!)),
    avgRequestBytes: avg.length === 0 ? null : median(avg),
    sharedHitBlocks: median(runs.map((r) => r.sharedHitBlocks)),
    sharedReadBlocks: median(runs.map((r) => r.sharedReadBlocks)),
  };
}

/** Compares a cell's medians with its prediction. */
export function judgeCell(
  cell: Cell,
  runs: readonly RunRecord[],
  predicted: Prediction | null,
  notes: readonly string[],
): CellResult {
  const measured = summarizeRuns(runs);
  let timeRatio: number | null = null;
  let bytesRatio: number | null = null;
  let timeWithin: boolean | null = null;
  let bytesWithin: boolean | null = null;
  let missWithinRuns: boolean | null = null;
  if (measured !== null && predicted !== null) {
    timeRatio = predicted.timeMs / measured.timeMs;
    if (measured.deviceBytes !== null) {
      const both = Math.max(measured.deviceBytes, predicted.deviceBytes);
      if (both < NOTHING_READ_BYTES) bytesWithin = cell.role === "predict" ? true : null;
      else if (Math.min(measured.deviceBytes, predicted.deviceBytes) >= NOTHING_READ_BYTES) {
        bytesRatio = predicted.deviceBytes / measured.deviceBytes;
      }
      if (bytesWithin === null && cell.role === "predict") {
        bytesWithin = bytesRatio !== null && Math.abs(bytesRatio - 1) <= BYTES_TOLERANCE;
      }
    }
    if (cell.role === "predict") {
      timeWithin = Math.abs(timeRatio - 1) <= TIME_TOLERANCE;
      if (!timeWithin) {
        const times = runs.map((r) => r.executionMs);
        missWithinRuns = predicted.timeMs >= Math.min(...times) && predicted.timeMs <= Math.max(...times);
      }
    }
  }
  return {
    cell,
    runs,
    measured,
    predicted,
    timeRatio,
    bytesRatio,
    timeWithin,
    bytesWithin,
    missWithinRuns,
    notes,
  };
}

/** Fits CPU costs per version from the fit cells' medians (null entries: no fit possible). */
export function fitPerVersion(
  results: readonly CellResult[],
  tables: readonly LabTable[],
  pgMajors: readonly number[],
  baseUsPerBlock?: (cell: Cell, table: LabTable) => number,
): Map<number, CpuFit | null> {
  const out = new Map<number, CpuFit | null>();
  for (const pg of pgMajors) {
    const samples = results
      .filter(
        (r) => r.cell.pg === pg && r.cell.role === "fit" && r.cell.scan === "seqscan" && r.measured !== null,
      )
      .map((r) => {
        const t = tables.find((x) => x.name === r.cell.table)!;
        return {
          cellId: r.cell.id,
          timeUs: r.measured!.timeMs * 1000,
          blocks: t.blocks,
          tuplesPerPage: t.tuplesPerPage,
          ...(baseUsPerBlock === undefined ? {} : { baseUsPerBlock: baseUsPerBlock(r.cell, t) }),
        };
      });
    out.set(pg, fitCpuCosts(samples, defaultPreadBlockUs()));
  }
  return out;
}

/** Predicts every measured cell and judges cells and comparisons. */
export function predictAll(
  measured: readonly MeasuredCell[],
  plan: LabPlan,
  tables: readonly LabTable[],
  shared: LabMachine,
  fit: boolean,
  probes: readonly TableDeviceProbe[] = [],
): LabPredictions {
  const pgs = [...new Set(measured.map((m) => m.cell.pg))];
  // Each server's cells run on the device its tables saw, when it was probed.
  const machines = new Map(
    pgs.map((pg) => {
      const probe = probes.find((p) => p.pg === pg);
      return [pg, probe === undefined ? shared : { ...shared, device: probedDevice(shared.device, probe) }];
    }),
  );
  const machineOf = (pg: number) => machines.get(pg) ?? shared;
  const bare = measured.map((m) => judgeCell(m.cell, m.runs, null, m.notes));
  // The simulator's own time for a fit cell with no page or tuple work: what the fit must not absorb.
  const base = (cell: Cell, table: LabTable) =>
    (predictCell(cell, table, machineOf(cell.pg), { perPageUs: 0, perTupleUs: 0 }).timeMs * 1000) /
    table.blocks;
  const fits = fit ? fitPerVersion(bare, tables, pgs, base) : new Map<number, CpuFit | null>();
  const cpu: CpuUsed[] = pgs.map((pg) => {
    const f = fits.get(pg) ?? null;
    if (f === null) {
      return {
        pg,
        source: "default",
        perPageUs: DEFAULT_CPU_COSTS.perPageUs,
        perTupleUs: DEFAULT_CPU_COSTS.perTupleUs,
        bitmapTupleUs: DEFAULT_CPU_COSTS.bitmapTupleUs,
        bufferFirstUseUs: DEFAULT_CPU_COSTS.bufferFirstUseUs,
        fitCells: [],
        residualsUs: [],
        bitmapResidualsUs: [],
      };
    }
    // The page and tuple costs first (sequential fit cells), then what a bitmap scan's matched tuple adds.
    const costs = { perPageUs: f.perPageUs, perTupleUs: f.perTupleUs };
    const samples = bare
      .filter(
        (r) => r.cell.pg === pg && r.cell.role === "fit" && r.cell.scan === "bitmap" && r.measured !== null,
      )
      .map((r) => {
        const t = tables.find((x) => x.name === r.cell.table)!;
        const at = (bitmapTupleUs: number, bufferFirstUseUs: number) =>
          predictCell(r.cell, t, machineOf(pg), { ...costs, bitmapTupleUs, bufferFirstUseUs }).timeMs * 1000;
        const baseUs = at(0, 0);
        return {
          cellId: r.cell.id,
          timeUs: r.measured!.timeMs * 1000,
          baseUs,
          perTupleSlopeUs: at(1, 0) - baseUs,
          perFirstUseSlopeUs: at(0, 1) - baseUs,
        };
      });
    const b = fitBitmapCosts(samples);
    return {
      pg,
      source: "fit",
      ...costs,
      bitmapTupleUs: b?.bitmapTupleUs ?? DEFAULT_CPU_COSTS.bitmapTupleUs,
      bufferFirstUseUs: b?.bufferFirstUseUs ?? DEFAULT_CPU_COSTS.bufferFirstUseUs,
      fitCells: [...f.fitCells, ...(b?.fitCells ?? [])],
      residualsUs: f.residualsUs,
      bitmapResidualsUs: b?.residualsUs ?? [],
      // Kept, not replaced by the defaults: its cost of a block at that density is still the measured one.
      ...(f.degenerate === null ? {} : { warning: f.degenerate }),
    };
  });
  // Never predict a cell the fit used.
  assertFitDisjoint(
    cpu.flatMap((c) => c.fitCells),
    measured.filter((m) => m.cell.role === "predict").map((m) => m.cell.id),
  );
  const cells = measured.map((m) => {
    const t = tables.find((x) => x.name === m.cell.table)!;
    const c = cpu.find((x) => x.pg === m.cell.pg)!;
    const costs =
      c.source === "fit"
        ? {
            perPageUs: c.perPageUs,
            perTupleUs: c.perTupleUs,
            bitmapTupleUs: c.bitmapTupleUs,
            bufferFirstUseUs: c.bufferFirstUseUs,
          }
        : {};
    return judgeCell(m.cell, m.runs, predictCell(m.cell, t, machineOf(m.cell.pg), costs), m.notes);
  });
  const times = new Map(
    cells
      .filter((c) => c.measured !== null && c.predicted !== null)
      .map((c) => [c.cell.id, { measuredMs: c.measured!.timeMs, predictedMs: c.predicted!.timeMs }]),
  );
  return { cells, comparisons: judgeComparisons(plan.comparisons, times), cpu };
}

/** The device holding `dir`, its read_ahead_kb control, and a diskstats probe. */
function deviceOf(dir: string): {
  probe: DeviceProbe;
  name: string | null;
  control: ReadAheadControl | null;
} {
  const dev = statSync(dir, { bigint: true }).dev;
  const probe = probeDevice(dev);
  const numbers = deviceNumbers(dev);
  const r = resolveBlockDevice(numbers);
  if (!r.available) return { probe, name: null, control: null };
  const queue = blockQueueLimits(numbers);
  return {
    probe,
    name: r.device.name,
    control: queue === null ? null : readAheadControl(join(queue.queueDir, "read_ahead_kb")),
  };
}

/**
 * As root, the server runs as an unprivileged user (pg-harness), who must be able to enter every
 * directory above the cluster: refused up front with a sentence rather than as initdb's failure.
 */
function checkEnterable(dir: string): void {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return;
  for (let d = dir; ; d = dirname(d)) {
    const mode = statSync(d).mode;
    if ((mode & 0o001) === 0) {
      throw new LabError(
        "LAB_BAD_OPTION",
        `PostgreSQL runs as an unprivileged user, who cannot enter ${d} (mode ${(mode & 0o777).toString(8)}): pass a --work-dir that every user may enter, such as /tmp.`,
      );
    }
    if (dirname(d) === d) return;
  }
}

function canDropCaches(): boolean {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return false;
  try {
    statSync("/proc/sys/vm/drop_caches");
    return true;
  } catch {
    return false;
  }
}

/** Segment files of a relation: path, path.1, path.2, ... */
function segments(dataDir: string, relPath: string): string[] {
  const out: string[] = [];
  const base = join(dataDir, relPath);
  for (let i = 0; ; i++) {
    const p = i === 0 ? base : `${base}.${i}`;
    if (!existsSync(p)) break;
    out.push(p);
  }
  return out;
}

/**
 * Runs the lab: plans, measures, predicts. Resolves with what finished when
 * `signal` aborts (with `interrupted: true`); always stops the clusters,
 * removes their directories and restores read_ahead_kb.
 *
 * @throws LabError for bad input (unknown version, no space, a server that cannot be had)
 */
export async function runLab(options: LabOptions): Promise<LabReport> {
  const startedAt = new Date().toISOString();
  const log = options.onProgress ?? (() => {});
  const stopped = () => options.signal?.aborted === true;
  if (!existsSync(options.workDir) || !statSync(options.workDir).isDirectory()) {
    throw new LabError(
      "LAB_BAD_OPTION",
      `the work directory ${options.workDir} does not exist or is not a directory.`,
    );
  }
  checkEnterable(options.workDir);
  const device = deviceOf(options.workDir);
  try {
    const plan = planLab({
      pgMajors: options.pgMajors,
      quick: options.quick,
      deviceReadAheadKb: device.control?.originalKb ?? null,
      readAheadRefusal: device.control?.refusal ?? null,
      ...(options.runs === undefined ? {} : { runs: options.runs }),
      ...(options.maxTableBlocks === undefined ? {} : { maxTableBlocks: options.maxTableBlocks }),
      ...(options.only === undefined ? {} : { only: options.only }),
      fit: options.fit ?? true,
    });
    const need = spaceNeededBytes(plan.tables);
    const fs = statfsSync(options.workDir);
    const free = Number(fs.bavail) * Number(fs.bsize);
    if (free < need) {
      throw new LabError(
        "LAB_NO_SPACE",
        `${options.workDir} has ${(free / 2 ** 30).toFixed(1)} GiB free but the lab's tables need about ${(need / 2 ** 30).toFixed(1)} GiB: free some space or pass --work-dir on a larger file system.`,
      );
    }
    const servers = options.pgMajors.map((pg) => ({ pg, bin: serverBin(pg) }));
    const machine: LabMachine = {
      cores: availableParallelism(),
      ramBytes: totalmem(),
      sharedBuffersBytes: LAB_SHARED_BUFFERS_BYTES,
      maxConnections: LAB_MAX_CONNECTIONS,
      os: kernelLine(),
      readAheadKb: device.control?.originalKb ?? null,
      device: options.device,
    };
    const dropCaches = canDropCaches();
    const reporting = freePageReporting();
    const settle = () => settleFreedMemory(options.signal, reporting);
    const coldMethod =
      (dropCaches
        ? "server restarted; relation files dropped with posix_fadvise(DONTNEED), the server's code left cached (/proc/sys/vm/drop_caches = 1 only where a heap stayed resident)"
        : "server restarted; relation files dropped with posix_fadvise(DONTNEED), the server's code left cached (not root: no drop_caches fallback)") +
      (reporting.active
        ? `; then ${REPORTING_SETTLE_MS / 1000} s for the freed memory to go back to the hypervisor (${reporting.why})`
        : "");
    const measured: MeasuredCell[] = [];
    const versions: LabServer[] = [];
    const probes: TableDeviceProbe[] = [];
    let tables: LabTable[] = [...plan.tables];
    for (const server of servers) {
      if (stopped()) break;
      const cells = plan.cells.filter((c) => c.pg === server.pg);
      log(`PostgreSQL ${server.pg}: starting a cluster in ${options.workDir} ...`);
      const cluster = await startCluster({
        pgBin: server.bin,
        parentDir: options.workDir,
        settings: {
          shared_buffers: `${LAB_SHARED_BUFFERS_BYTES >> 20}MB`,
          max_connections: LAB_MAX_CONNECTIONS,
          max_worker_processes: 16,
          max_parallel_workers: 8,
          ...(server.pg >= 18 ? { io_max_combine_limit: "256kB" } : {}),
        },
      });
      try {
        versions.push({ ...server, version: await cluster.psql("show server_version") });
        tables = await createTables(cluster, plan.tables, log, stopped);
        const probeTable = tables.find((t) => t.kind === "bitmap") ?? tables[0];
        if (!stopped() && options.probe !== false && probeTable !== undefined) {
          log(
            `PostgreSQL ${server.pg}: measuring the device through ${probeTable.name}'s file (fio, read-only) ...`,
          );
          const relPath = await cluster.psql(`SELECT pg_relation_filepath('${probeTable.name}')`);
          try {
            const probe = await probeTableDevice(
              server.pg,
              probeTable.name,
              join(cluster.dataDir, relPath),
              options.signal,
            );
            if (probe === null)
              log("fio is not installed: the cells are predicted on the profile's device as it is.");
            else probes.push(probe);
          } catch (e) {
            if (stopped()) throw e;
            log(
              `the device could not be measured through ${probeTable.name}'s file (${errorClause(e)}): the cells are predicted on the profile's device as it is.`,
            );
          }
        }
        if (!stopped()) {
          await runCells(
            cluster,
            cells,
            tables,
            plan.runs,
            device,
            dropCaches,
            log,
            stopped,
            settle,
            measured,
          );
        }
      } catch (e) {
        // Ctrl-C in a terminal reaches the server and psql too (one process group): their failure is the
        // stop itself, not an error. The finished cells are kept.
        if (!stopped()) throw e;
      } finally {
        log(`PostgreSQL ${server.pg}: stopping the cluster and removing it ...`);
        await cluster.stop();
      }
    }
    device.control?.restore();
    log("simulating every cell ...");
    return assembleReport({
      startedAt,
      interrupted: stopped(),
      quick: options.quick,
      plan,
      tables,
      measured,
      servers: versions,
      machine,
      deviceLabel: options.deviceLabel,
      deviceName: device.name,
      coldMethod,
      fit: options.fit ?? true,
      deviceProbes: probes,
    });
  } finally {
    device.control?.restore();
  }
}

/** Everything {@link assembleReport} puts together. */
export interface ReportParts {
  /** Start time (ISO 8601). */
  readonly startedAt: string;
  /** A signal stopped the run. */
  readonly interrupted: boolean;
  /** The quick set. */
  readonly quick: boolean;
  /** The plan. */
  readonly plan: LabPlan;
  /** Tables as built. */
  readonly tables: readonly LabTable[];
  /** Finished cells with their runs. */
  readonly measured: readonly MeasuredCell[];
  /** Servers used. */
  readonly servers: readonly LabServer[];
  /** The modelled machine. */
  readonly machine: LabMachine;
  /** How the device model was chosen. */
  readonly deviceLabel: string;
  /** Kernel name of the measured device. */
  readonly deviceName: string | null;
  /** How cold runs were made cold. */
  readonly coldMethod: string;
  /** Fit CPU costs. */
  readonly fit: boolean;
  /** The device as each server's tables saw it (none: every cell on the profile's device). */
  readonly deviceProbes?: readonly TableDeviceProbe[];
}

/** Predicts the measured cells and builds the report (the JSON document). */
export function assembleReport(parts: ReportParts): LabReport {
  const { cells, comparisons, cpu } = predictAll(
    parts.measured,
    parts.plan,
    parts.tables,
    parts.machine,
    parts.fit,
    parts.deviceProbes ?? [],
  );
  return {
    version: LAB_REPORT_VERSION,
    startedAt: parts.startedAt,
    finishedAt: new Date().toISOString(),
    interrupted: parts.interrupted,
    quick: parts.quick,
    runsPerCell: parts.plan.runs,
    servers: parts.servers,
    machine: { ...parts.machine, deviceLabel: parts.deviceLabel, deviceName: parts.deviceName },
    timeSource: "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) Execution Time, median of the runs",
    coldMethod: parts.coldMethod,
    cpu,
    tables: parts.tables,
    cells,
    comparisons,
    refused: parts.plan.refused,
    deviceProbes: parts.deviceProbes ?? [],
    summary: summarize(cells, comparisons),
  };
}

async function createTables(
  cluster: Cluster,
  planned: readonly LabTable[],
  log: (line: string) => void,
  stopped: () => boolean,
): Promise<LabTable[]> {
  const out: LabTable[] = [];
  for (const t of planned) {
    if (stopped()) return [...planned];
    log(`  creating ${t.name} (${((t.blocks * 8192) / 2 ** 20).toFixed(0)} MiB) ...`);
    await cluster.psql(createTableSql(t));
    const [pages, tuples] = (
      await cluster.psql(
        `SELECT pg_relation_size('${t.name}') / 8192, reltuples FROM pg_class WHERE relname = '${t.name}'`,
      )
    )
      .split("|")
      .map(Number);
    const blocks = pages ?? 0;
    if (t.kind === "bitmap" && blocks !== t.blocks) {
      throw new Error(
        `${t.name} has ${blocks} pages, not the ${t.blocks} its data set has: rows per page differ from 27.`,
      );
    }
    // The index a bitmap scan reads first (bitmap-index-scan.ts in @scanlab/simulator): its size as built.
    const indexBlocks =
      t.kind === "bitmap"
        ? Number(
            await cluster.psql(
              `SELECT coalesce(sum(pg_relation_size(indexrelid)), 0) / 8192 FROM pg_index WHERE indrelid = '${t.name}'::regclass`,
            ),
          )
        : 0;
    out.push({
      ...t,
      blocks,
      tuplesPerPage: blocks > 0 ? Math.round((tuples ?? 0) / blocks) : t.tuplesPerPage,
      ...(indexBlocks > 0 ? { indexBlocks } : {}),
    });
  }
  return out;
}

async function relationFiles(cluster: Cluster, table: string): Promise<string[]> {
  const rows = await cluster.psql(
    `SELECT pg_relation_filepath('${table}') UNION ALL SELECT pg_relation_filepath(indexrelid) FROM pg_index WHERE indrelid = '${table}'::regclass`,
  );
  return rows
    .split("\n")
    .filter((l) => l !== "")
    .flatMap((rel) => segments(cluster.dataDir, rel));
}

async function runCells(
  cluster: Cluster,
  cells: readonly Cell[],
  tables: readonly LabTable[],
  runs: number,
  device: { probe: DeviceProbe; control: ReadAheadControl | null },
  dropCaches: boolean,
  log: (line: string) => void,
  stopped: () => boolean,
  settle: () => Promise<boolean>,
  out: { cell: Cell; runs: RunRecord[]; notes: string[] }[],
): Promise<void> {
  let ioMethod: string | null = null;
  const heapPaths = new Map<string, string>();
  for (const t of tables)
    heapPaths.set(t.name, await cluster.psql(`SELECT pg_relation_filepath('${t.name}')`));
  for (const [i, cell] of cells.entries()) {
    if (stopped()) return;
    const table = tables.find((t) => t.name === cell.table)!;
    const files = await relationFiles(cluster, table.name);
    // What the model scans is the heap: warm and cold are checked on its files (indexes are evicted too).
    const heapFiles = segments(cluster.dataDir, heapPaths.get(table.name)!);
    const sql = `${sessionSettingsSql(cell)}\n${cellQuerySql(cell, table)}`;
    if (device.control !== null) {
      if (cell.readAheadKb === null) device.control.reset();
      else device.control.set(cell.readAheadKb);
    }
    if (cell.pg >= 18 && cell.ioMethod !== ioMethod) {
      await cluster.psql(
        cell.ioMethod === null
          ? "ALTER SYSTEM RESET io_method"
          : `ALTER SYSTEM SET io_method = '${cell.ioMethod}'`,
      );
      ioMethod = cell.ioMethod;
    }
    log(`  [${i + 1}/${cells.length}] ${cell.id}`);
    const notes: string[] = [];
    const records: RunRecord[] = [];
    const cellRuns = cell.role === "fit" ? Math.max(runs, MIN_FIT_RUNS) : runs;
    if (cell.cache === "warm") {
      // Fills the page cache, not recorded: a serial seq scan reads every heap page (a bitmap query alone
      // would read only the pages it matches), then the cell's own query reads the index pages it needs.
      await cluster.restart();
      await cluster.psql(warmUpSql(table));
      await cluster.psql(sql);
    }
    for (let r = 0; r < cellRuns && !stopped(); r++) {
      await cluster.restart();
      if (cell.cache === "cold") {
        evictFromPageCache(files);
        const left = measureResidency(heapFiles);
        if (dropCaches && left.known && left.fraction > 0.01) {
          try {
            writeFileSync("/proc/sys/vm/drop_caches", "1\n");
            notes.push(
              `run ${r + 1}: DONTNEED left ${(left.fraction * 100).toFixed(1)}% of the heap cached, so every cache was dropped; the run also reads the server's code back.`,
            );
          } catch {
            // Residency below tells whether the run is cold.
          }
        }
      }
      if (cell.cache === "cold") await settle();
      const residency = measureResidency(heapFiles);
      const residentBefore = residency.known ? residency.fraction : null;
      if (residentBefore !== null) {
        if (cell.cache === "cold" && residentBefore > 0.01) {
          notes.push(
            `run ${r + 1} was not cold: ${(residentBefore * 100).toFixed(1)}% of the files were cached.`,
          );
        }
        if (cell.cache === "warm" && residentBefore < 0.99) {
          notes.push(
            `run ${r + 1} was not warm: ${(residentBefore * 100).toFixed(1)}% of the files were cached.`,
          );
        }
      }
      const before = device.probe.sample();
      const t0 = performance.now();
      const outputs = await Promise.all(Array.from({ length: cell.clients }, () => cluster.psql(sql)));
      const clientMs = performance.now() - t0;
      const after = device.probe.sample();
      const dev = device.probe.report(before, after);
      const figures = outputs.map(parseExplain);
      const expected = expectedNode(cell);
      if (!figures.every((f) => f.nodeTypes.includes(expected))) {
        notes.push(`run ${r + 1}: the plan has no ${expected} (${figures[0]!.nodeTypes.join(" > ")}).`);
      }
      const launched = figures.reduce((a, f) => a + f.workersLaunched, 0);
      if (launched < cell.workers * cell.clients) {
        notes.push(`run ${r + 1}: ${launched} of ${cell.workers * cell.clients} parallel workers launched.`);
      }
      records.push({
        executionMs: figures.reduce((a, f) => a + f.executionMs, 0) / figures.length,
        clientMs,
        deviceBytes: dev.available ? dev.readBytes : null,
        deviceReads: dev.available ? dev.reads : null,
        sharedHitBlocks: figures.reduce((a, f) => a + f.sharedHitBlocks, 0),
        sharedReadBlocks: figures.reduce((a, f) => a + f.sharedReadBlocks, 0),
        residentBefore,
        workersLaunched: launched,
      });
    }
    // An interrupted cell is dropped: its median would rest on fewer runs than the others'.
    if (records.length === cellRuns) out.push({ cell, runs: records, notes });
  }
}
