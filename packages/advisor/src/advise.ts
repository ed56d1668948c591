/**
 * Settings advice for one table scan on one machine, each backed by a small
 * simulated sweep against PostgreSQL's defaults.
 *
 * The problem: the settings that decide a scan's I/O (parallel workers,
 * effective_io_concurrency, the kernel's readahead, the PG14+ chunk cap)
 * interact with the device, the OS and the table size, and their defaults
 * are far from the best on many machines, in both directions: more is not
 * always faster (1 concurrent prefetch can be much slower than 0 on nearly
 * sequential bitmap pages; Tomas Vondra, pgsql-hackers, "Re:
 * effective_io_concurrency and NVMe devices", 2022).
 *
 * The insight: sweep one setting at a time in the simulator, in the order in
 * which they depend on each other, and recommend the smallest value within a
 * tolerance of the fastest (pick.ts), so every recommendation comes with the
 * simulated time it saves and the sweep that shows it at full size.
 *
 * The stages:
 * 1. parallel workers (max_parallel_workers_per_gather, or the table's
 *    parallel_workers), seq scans only: 0, 1, 2, 4, ... up to cores - 1,
 *    against PostgreSQL's default of 2; the smallest count within 5% of the
 *    fastest (more workers than that cost CPU for nothing). A bitmap heap
 *    scan runs serially here. The later stages run at the count picked.
 * 2. effective_io_concurrency: 0 ... 256, against the version's default (1 up
 *    to PG17, 16 from PG18); the smallest value within 2% of the best, or the
 *    default when every value is within 2% (the scan does not depend on it).
 * 3. read_ahead_kb (Linux only): 128 kB ... 4 MB and the device's default,
 *    against that default; the smallest within 2% of the best (more
 *    readahead helped "all round" in the PG14 chunk-cap benchmark of the
 *    docs' Published experiments page, T2).
 * 4. the PG14+ chunk cap (PARALLEL_SEQSCAN_MAX_CHUNK_SIZE = 8192 blocks,
 *    src/backend/access/table/tableam.c): it changes anything only from 8193
 *    x 2048 blocks (just over 128 GiB); then capped and uncapped run side by
 *    side (the cap matters with concurrent synchronized scans, T3), and
 *    uncapped is recommended only when faster by more than 2%.
 *
 * Choices:
 * - Tables larger than `simBytes` (default 1 GiB) are simulated scaled down
 *   (scale-down.ts); times are scaled back up, and each row names the
 *   full-size sweep that shows it without scaling.
 * - Simulations run through a caller's runner (worker threads in the CLI, a
 *   Web Worker in the docs playground), one stage at a time; the default
 *   runs @scanlab/simulator in the calling thread.
 * - The whole grid is estimated before anything runs (`onPlan`), so a caller
 *   can refuse advice that would take hours; the later stages are estimated
 *   at the first stage's heaviest cell, an upper bound.
 * - Each simulated scenario is validated by the simulator before it runs,
 *   named `advise STAGE POINT`, so an error names the point.
 */
import { nextPowerOfTwo, PG14_MAX_CHUNK_BLOCKS, PG14_NCHUNKS } from "@scanlab/block-allocator";
import { mibPerSFromBytesPerSecond, THROUGHPUT_UNIT } from "@scanlab/core";
import { createDeviceModel, throughputAt } from "@scanlab/device-profiles";
import {
  type AllocatorSpec,
  estimateWork,
  formatBytes,
  type PgVersion,
  parseBytes,
  pgModel,
  type RowMetrics,
  resolveDeviceProfile,
  resolveScenario,
  rowMetrics,
  ScenarioError,
  type ScenarioInput,
  simulate,
  type WorkEstimate,
} from "@scanlab/simulator";
import { pickWithin, type Timing, timing } from "./pick.js";
import { type AdviceScale, scaleDown } from "./scale-down.js";

/** PostgreSQL's default max_parallel_workers_per_gather (guc_tables.c). */
export const DEFAULT_WORKERS = 2;
/** Tolerances for "as good as the best": simulated differences below these are noise-level choices (scanlab's choice). */
export const WORKERS_WITHIN = 0.05;
/** See {@link WORKERS_WITHIN}: the tolerance of every other setting. */
export const SETTING_WITHIN = 0.02;
/** effective_io_concurrency swept for bitmap scans: 0 and every power of two up to 256 (scanlab's choice; 0 and 1 side by side). */
export const EIC_VALUES: readonly number[] = [0, 1, 2, 4, 8, 16, 32, 64, 128, 256];
/** effective_io_concurrency swept for seq scans: a coarser subset of {@link EIC_VALUES} (scanlab's choice). */
export const EIC_VALUES_SEQSCAN: readonly number[] = [0, 1, 16, 64, 256];
/** read_ahead_kb swept: from Linux's default 128 kB (VM_READAHEAD_PAGES, include/linux/mm.h) up to 4 MB in powers of two (scanlab's choice). */
export const READ_AHEAD_VALUES_KB: readonly number[] = [128, 256, 512, 1024, 2048, 4096];
/** Tables larger than this are simulated scaled down unless told otherwise: 1 GiB (scanlab's choice, to keep advice quick). */
export const DEFAULT_SIM_BYTES = 1024 ** 3;
/** The smallest simulated size: 64 MiB, one full-size PG14 chunk of 8192 blocks (scanlab's choice: the scaled table stays thousands of blocks long). */
export const MIN_SIM_BYTES = 64 * 1024 ** 2;

/** The settings advice sweeps, by the names `scanlab sweep --vary` takes. */
export type AdviceSetting = "workers" | "effective-io-concurrency" | "read-ahead-kb" | "chunk-cap";

/** The stages, in the order they run. */
export type AdviceStageName = "parallel workers" | "effective_io_concurrency" | "read_ahead_kb" | "chunk cap";

/** One stage's simulations, as handed to the runner. */
export interface AdviceStage {
  /** Which stage. */
  name: AdviceStageName;
  /** One label per scenario (`workers=4`, `eic=16`, `capped`). */
  points: readonly string[];
}

/**
 * Runs one stage's scenarios and returns their metrics in the same order;
 * null for a scenario that did not finish (the caller stopped it).
 */
export type AdviceRunner = (
  scenarios: readonly ScenarioInput[],
  stage: AdviceStage,
) => Promise<readonly (RowMetrics | null)[]> | readonly (RowMetrics | null)[];

/** Options of {@link advise}. */
export interface AdviceOptions {
  /** Tables larger than this many bytes are simulated scaled down (default {@link DEFAULT_SIM_BYTES}). */
  simBytes?: number;
  /** Runs the simulations (default: {@link runInProcess}, in the calling thread). */
  run?: AdviceRunner;
  /**
   * Called once before anything runs, with the work estimate of each
   * simulation the advice may run (the later stages at the first stage's
   * heaviest cell). Throw to refuse.
   */
  onPlan?: (estimates: readonly WorkEstimate[]) => void;
  /** Asked after each stage: true stops there, and the advice holds the rows so far (`interrupted`). */
  stopped?: () => boolean;
  /** How the caller names the simulated-size option in advice text (default `simBytes`; the CLI's is `--sim-size`). */
  simSizeOption?: string;
}

/** One simulated value of a row's sweep. */
export interface AdviceSweepPoint {
  /** The value as written (`16`, `none (65536)`). */
  value: string;
  /** Simulated time, scaled back to full size, in seconds; null when not finished. */
  timeS: number | null;
}

/**
 * One recommendation. Every row follows one convention ({@link timing}):
 * the default's time, the recommended value's time, and gain =
 * time(default) / time(recommended) - 1 (+25%: the default takes 25%
 * longer; 0 when the default is what is recommended).
 */
export interface AdviceRow extends Timing {
  /** Which setting, by its `sweep --vary` name. */
  key: AdviceSetting;
  /** The setting as a DBA names it. */
  setting: string;
  /** PostgreSQL's (or the kernel's) default. */
  defaultValue: string;
  /** The recommendation, in words when it is not a value. */
  recommended: string;
  /** Why, in one sentence without the final full stop. */
  why: string;
  /** What was simulated (empty when nothing needed to be). */
  sweep: AdviceSweepPoint[];
  /** The full-size sweep that shows it: `key` varied over `values`, at `workers`. */
  fullSizeSweep: {
    /** The parallel workers it runs at; null for the workers row, which varies them. */
    workers: number | null;
    /** The values of `key` it varies. */
    values: string[];
  };
}

/** The recommended settings, for the rows that were simulated. */
export interface AdvisedSettings {
  /** Parallel workers (seq scans). */
  workers?: number;
  /** effective_io_concurrency. */
  effectiveIoConcurrency?: number;
  /** read_ahead_kb (Linux). */
  readAheadKb?: number;
  /** Whether the PG14+ chunk cap should go (true only when uncapped is faster by more than the tolerance). */
  uncappedChunks?: boolean;
}

/** A remark on the advice as a whole. */
export interface AdviceNote {
  /** `scaled`: the scan was simulated scaled down; `throughput`: the scan's rate at the defaults against the device's. */
  kind: "scaled" | "throughput";
  /** One or two sentences. */
  text: string;
}

/** What {@link advise} returns. */
export interface Advice {
  /** The scan advised on. */
  workload: "seqscan" | "bitmap";
  /** Its PostgreSQL version. */
  pg: PgVersion;
  /** How the scenario was scaled down, or null when it ran at full size. */
  scale: AdviceScale | null;
  /** True when `stopped` said so before every stage had run: the rows are those finished. */
  interrupted: boolean;
  /** One row per setting, in stage order. */
  rows: AdviceRow[];
  /** The recommended settings. */
  settings: AdvisedSettings;
  /** The scan at PostgreSQL's defaults (seq scans: the first stage's 2-worker point), or null. */
  atDefaults: RowMetrics | null;
  /** Remarks, in the order a report shows them. */
  notes: AdviceNote[];
}

/**
 * Runs each scenario with @scanlab/simulator in the calling thread, one
 * after the other: the default runner of {@link advise}.
 *
 * @example
 * ```ts
 * import { runInProcess } from "@scanlab/advisor";
 * const [m] = await runInProcess(
 *   [
 *     {
 *       name: "one",
 *       machine: { cores: 4, ram: "2GB", os: "linux-6.1", device: "samsung-990-pro-1tb" },
 *       tables: [{ name: "t", size: "64MB", tuplesPerPage: 226 }],
 *       queries: [{ name: "scan", table: "t", pg: "17", workers: 2 }],
 *     },
 *   ],
 *   { name: "parallel workers", points: ["workers=2"] },
 * );
 * console.log(m?.timeS.toFixed(3), "s");
 * ```
 */
export function runInProcess(
  scenarios: readonly ScenarioInput[],
  _stage: AdviceStage,
): Promise<(RowMetrics | null)[]> {
  return Promise.resolve(scenarios.map((s) => rowMetrics(simulate(s), s)));
}

/** effective_io_concurrency's default: 16 with PG18's asynchronous I/O (commit ff79b5b2ab), else 1 (guc_tables.c). */
function defaultEic(pg: PgVersion): number {
  const streams = pgModel(pg).readStreams;
  return streams === "pg18" || streams === "pg19" ? 16 : 1;
}

/** The settings one simulated point writes over the scenario. */
interface PointSettings {
  readAheadKb?: number;
  workers?: number;
  allocator?: AllocatorSpec;
  effectiveIoConcurrency?: number;
}

/** One point of a stage. */
interface Point {
  label: string;
  settings: PointSettings;
}

/**
 * Advice for the scan of `scenario`'s first query (see the file header):
 * one row per setting, each with its simulated sweep, the default's and the
 * recommended value's times and the gain between them.
 *
 * @example
 * ```ts
 * import { advise } from "@scanlab/advisor";
 * const advice = await advise(
 *   {
 *     name: "my scan",
 *     machine: { cores: 4, ram: "16GB", os: "linux-6.1", device: "intel-ssd-320-120gb" },
 *     tables: [{ name: "t", size: "20GB", tuplesPerPage: 226 }],
 *     queries: [{ name: "scan", table: "t", pg: "17" }],
 *   },
 *   { simBytes: 64 * 1024 ** 2 },
 * );
 * for (const r of advice.rows) console.log(r.setting, r.defaultValue, "->", r.recommended, r.gain);
 * ```
 */
export async function advise(scenario: ScenarioInput, options: AdviceOptions = {}): Promise<Advice> {
  const simBytes = options.simBytes ?? DEFAULT_SIM_BYTES;
  const run = options.run ?? runInProcess;
  const stopped = options.stopped ?? (() => false);
  const simSizeOption = options.simSizeOption ?? "simBytes";
  const full = resolveScenario(scenario, "the scenario to advise on").scenario;
  const query = full.queries[0]!;
  if (query.kind === "file") {
    throw new ScenarioError(
      'The advisor tunes the PostgreSQL settings of a scan, and a plain-file reader (kind "file") has none: simulate it instead.',
    );
  }
  const workload = query.kind;
  const pg = query.pg;
  const cores = full.machine.cores;
  const profile = resolveDeviceProfile(full.machine.device);
  const deviceDefaultRa = createDeviceModel(profile).readAheadKbDefault;
  const linux = full.machine.os.startsWith("linux");
  const eicDefault = defaultEic(pg);
  // The chunk cap is the PG14+ allocator's: nothing to scale or compare for an older one.
  const allocator: AllocatorSpec = query.allocator ?? ({ kind: pgModel(pg).allocator } as AllocatorSpec);
  const pg14Options = allocator.kind === "pg14" ? allocator : null;
  /** The pg14 allocator with a cap (null: uncapped), keeping the scenario's other pg14 options. */
  const pg14 = (cap: number | null): AllocatorSpec => ({ ...pg14Options, kind: "pg14", maxChunkBlocks: cap });

  const scaled = scaleDown(scenario, simBytes);
  const { factor, chunkCapBlocks: scaledCap } = scaled;
  const base = scaled.scenario;
  // At full size the scenario's cap applies (PostgreSQL's unless it sets one); scaled, the cap shrinks
  // with the table.
  const givenCap = pg14Options?.maxChunkBlocks;
  const defaultAlloc: PointSettings =
    factor > 1 && pg14Options !== null
      ? {
          allocator: pg14(
            givenCap === undefined
              ? scaledCap
              : givenCap === null
                ? null
                : Math.max(1, Math.round(givenCap / factor)),
          ),
        }
      : {};

  const scenarioOf = (p: Point, stage: string): ScenarioInput => {
    const s = structuredClone(base);
    const set = { ...defaultAlloc, ...p.settings };
    // In the order the CLI's scenario flags apply them: machine first, then the queries' fields.
    if (set.readAheadKb !== undefined) {
      s.machine.osOptions ??= {};
      s.machine.osOptions.readAheadKb = set.readAheadKb;
    }
    for (const q of s.queries) {
      if (set.workers !== undefined) q.workers = set.workers;
      if (set.allocator !== undefined) q.allocator = set.allocator;
      if (set.effectiveIoConcurrency !== undefined) q.effectiveIoConcurrency = set.effectiveIoConcurrency;
    }
    s.name = `advise ${stage} ${p.label}`;
    const resolved = resolveScenario(s, s.name);
    resolveDeviceProfile(resolved.scenario.machine.device);
    return s;
  };
  const estimate = (s: ScenarioInput) => estimateWork(resolveScenario(s), { exact: false });

  // The whole grid's work, before anything runs.
  const workerCounts =
    workload === "seqscan"
      ? [...new Set([0, 1, 2, 4, 8, 16, 32, 64].filter((w) => w <= cores - 1).concat(cores - 1))].sort(
          (a, b) => a - b,
        )
      : [];
  const workersPoint = (w: number): Point => ({ label: `workers=${w}`, settings: { workers: w } });
  const stage1 = workerCounts.map((w) => estimate(scenarioOf(workersPoint(w), "")));
  let heaviest = stage1[0];
  for (const e of stage1) if (heaviest === undefined || e.steps > heaviest.steps) heaviest = e;
  const laterCells =
    (workload === "bitmap" ? EIC_VALUES : EIC_VALUES_SEQSCAN).length +
    (linux ? new Set([deviceDefaultRa, ...READ_AHEAD_VALUES_KB]).size : 0) +
    (workload === "seqscan" && pg14Options !== null ? 2 : 0);
  const heavy = heaviest ?? estimate(scenarioOf({ label: "", settings: {} }, ""));
  options.onPlan?.([...stage1, ...Array<WorkEstimate>(laterCells).fill(heavy)]);

  /** Runs one stage; its metrics, and its times scaled back to full size. */
  const runStage = async (
    name: AdviceStageName,
    points: Point[],
  ): Promise<{ metrics: (RowMetrics | null)[]; times: (number | null)[] }> => {
    const scenarios = points.map((p) => scenarioOf(p, name));
    const ms = await run(scenarios, { name, points: points.map((p) => p.label) });
    const metrics = points.map((_, i) => ms[i] ?? null);
    return { metrics, times: metrics.map((m) => (m === null ? null : m.timeS * factor)) };
  };
  const rows: AdviceRow[] = [];
  const settings: AdvisedSettings = {};
  let atDefaults: RowMetrics | null = null;

  // 1. workers (seq scans; a bitmap heap scan is run serially here).
  let workers = 0;
  if (workload === "seqscan") {
    const counts = workerCounts;
    const { metrics: ms, times } = await runStage("parallel workers", counts.map(workersPoint));
    const defIdx = counts.indexOf(Math.min(DEFAULT_WORKERS, cores - 1));
    atDefaults = ms[defIdx] ?? null;
    const best = pickWithin(times, WORKERS_WITHIN);
    workers = counts[best] ?? DEFAULT_WORKERS;
    settings.workers = workers;
    rows.push({
      key: "workers",
      setting: "max_parallel_workers_per_gather (or ALTER TABLE ... SET (parallel_workers = N))",
      defaultValue: String(DEFAULT_WORKERS),
      recommended: String(workers),
      ...timing(times, defIdx, best),
      why: `the fewest workers within ${WORKERS_WITHIN * 100}% of the fastest scan`,
      sweep: counts.map((w, i) => ({ value: String(w), timeS: times[i] ?? null })),
      fullSizeSweep: { workers: null, values: counts.map(String) },
    });
  }
  if (stopped()) return finishAdvice();

  // 2. effective_io_concurrency.
  {
    const values = workload === "bitmap" ? EIC_VALUES : EIC_VALUES_SEQSCAN;
    const { times } = await runStage(
      "effective_io_concurrency",
      values.map((v) => ({ label: `eic=${v}`, settings: { workers, effectiveIoConcurrency: v } })),
    );
    const finite = times.filter((x): x is number => x !== null);
    const flat = finite.length > 0 && Math.max(...finite) <= Math.min(...finite) * (1 + SETTING_WITHIN);
    const best = flat ? values.indexOf(eicDefault) : pickWithin(times, SETTING_WITHIN);
    const defIdx = values.indexOf(eicDefault);
    if (values[best] !== undefined) settings.effectiveIoConcurrency = values[best];
    rows.push({
      key: "effective-io-concurrency",
      setting: "effective_io_concurrency",
      defaultValue: String(eicDefault),
      recommended: flat ? `${eicDefault} (no effect here)` : String(values[best]),
      ...timing(times, defIdx, best),
      why: flat
        ? `every value within ${SETTING_WITHIN * 100}%: this ${workload} does not depend on it`
        : `the smallest value within ${SETTING_WITHIN * 100}% of the best (apps/docs/src/reference/experiments.md#t7-effective-io-concurrency-on-sata-ssds: 1 can be slower than 0 on nearly sequential pages)`,
      sweep: values.map((v, i) => ({ value: String(v), timeS: times[i] ?? null })),
      fullSizeSweep: { workers, values: values.map(String) },
    });
  }
  if (stopped()) return finishAdvice();

  // 3. read_ahead_kb. A readahead window larger than the (scaled) machine's memory is refused by the
  // scenario schema: such values are left out, and the row says so.
  const scaledRamBytes = parseBytes(base.machine.ram);
  const fits = (kb: number) => kb * 1024 <= scaledRamBytes;
  const raLeftOut = READ_AHEAD_VALUES_KB.filter((v) => !fits(v));
  const raNote =
    raLeftOut.length === 0
      ? ""
      : `; ${raLeftOut.join(", ")} kB not simulated: more than the ${formatBytes(scaledRamBytes)} of RAM of the scaled machine (give a larger ${simSizeOption})`;
  if (linux && fits(deviceDefaultRa)) {
    const values = [...new Set([deviceDefaultRa, ...READ_AHEAD_VALUES_KB.filter(fits)])].sort(
      (a, b) => a - b,
    );
    const { times } = await runStage(
      "read_ahead_kb",
      values.map((v) => ({ label: `read_ahead_kb=${v}`, settings: { workers, readAheadKb: v } })),
    );
    const best = pickWithin(times, SETTING_WITHIN);
    const defIdx = values.indexOf(deviceDefaultRa);
    if (values[best] !== undefined) settings.readAheadKb = values[best];
    rows.push({
      key: "read-ahead-kb",
      setting: "read_ahead_kb (blockdev --setra = 2 x this)",
      defaultValue: String(deviceDefaultRa),
      recommended: String(values[best]),
      ...timing(times, defIdx, best),
      why: `the smallest readahead within ${SETTING_WITHIN * 100}% of the best (T2: more readahead helped "all round")${raNote}`,
      sweep: values.map((v, i) => ({ value: String(v), timeS: times[i] ?? null })),
      fullSizeSweep: { workers, values: values.map(String) },
    });
  }
  if (stopped()) return finishAdvice();

  // 4. chunk cap.
  const capWorkers = Math.max(workers, Math.min(DEFAULT_WORKERS, cores - 1));
  const capSweep = { workers: capWorkers, values: [String(PG14_MAX_CHUNK_BLOCKS), "none"] };
  const capSetting = "chunk cap (PARALLEL_SEQSCAN_MAX_CHUNK_SIZE, compiled in)";
  if (workload === "seqscan" && pg14Options !== null && capWorkers > 0) {
    const uncapped = nextPowerOfTwo(Math.max(1, Math.floor(scaled.fullTableBlocks / PG14_NCHUNKS)));
    if (uncapped <= PG14_MAX_CHUNK_BLOCKS) {
      const from = (PG14_MAX_CHUNK_BLOCKS + 1) * PG14_NCHUNKS;
      rows.push({
        key: "chunk-cap",
        setting: capSetting,
        defaultValue: String(PG14_MAX_CHUNK_BLOCKS),
        recommended: "does not matter",
        gain: null,
        defaultTimeS: null,
        recommendedTimeS: null,
        why: `chunks of this table are ${uncapped} blocks (nblocks / 2048 rounded up to a power of two), at or below the cap: it applies only from ${grouped(from)} blocks (${formatBytes(from * 8192)})`,
        sweep: [],
        fullSizeSweep: capSweep,
      });
    } else {
      const capped = factor > 1 ? scaledCap : PG14_MAX_CHUNK_BLOCKS;
      const none = factor > 1 ? Math.max(1, Math.round(uncapped / factor)) : null;
      const { times } = await runStage("chunk cap", [
        { label: "capped", settings: { workers: capWorkers, allocator: pg14(capped) } },
        { label: "uncapped", settings: { workers: capWorkers, allocator: pg14(none) } },
      ]);
      const [tc, tu] = times;
      // PostgreSQL's default is the cap (index 0); uncapped is recommended only when it is faster by more
      // than the noise tolerance, and then the row reads like every other: default -> recommended.
      const uncappedFaster = tc && tu ? tc / tu - 1 > SETTING_WITHIN : false;
      const differs = tc && tu ? Math.abs(tc / tu - 1) > SETTING_WITHIN : false;
      settings.uncappedChunks = uncappedFaster;
      rows.push({
        key: "chunk-cap",
        setting: capSetting,
        defaultValue: String(PG14_MAX_CHUNK_BLOCKS),
        recommended: uncappedFaster
          ? "uncapped is faster here"
          : differs
            ? "keep the cap"
            : "makes no difference here",
        ...timing(times, 0, uncappedFaster ? 1 : 0),
        why: `uncapped chunks would be ${uncapped} blocks (T3: the cap matters most with concurrent synchronized scans; try --clients)`,
        sweep: [
          { value: String(PG14_MAX_CHUNK_BLOCKS), timeS: tc ?? null },
          { value: `none (${uncapped})`, timeS: tu ?? null },
        ],
        fullSizeSweep: capSweep,
      });
    }
  }
  return finishAdvice();

  function finishAdvice(): Advice {
    const notes: AdviceNote[] = [];
    if (scaled.scale !== null) {
      notes.push({
        kind: "scaled",
        text: `Simulated scaled down ${factor.toFixed(1)}x to stay fast: a ${(scaled.scale.simulatedTableBytes / 1024 ** 3).toFixed(2)} GiB table with RAM, shared_buffers and the chunk cap scaled by the same factor; times are scaled back up.`,
      });
    }
    if (atDefaults !== null) {
      // The device model's sequential rate: 128 kB reads (Linux's default readahead), 8 in flight.
      const seqMibPerS = mibPerSFromBytesPerSecond(
        throughputAt(profile, { queueDepth: 8, requestBytes: 131072, pattern: "sequential" }).bytesPerSecond,
      );
      const scanMibPerS = atDefaults.mibPerS;
      notes.push({
        kind: "throughput",
        text:
          `At the defaults the scan reads ${scanMibPerS.toFixed(0)} ${THROUGHPUT_UNIT}; the device model's sequential rate (128 kB reads, 8 in flight) is ${seqMibPerS.toFixed(0)} ${THROUGHPUT_UNIT}` +
          (scanMibPerS >= 0.9 * seqMibPerS
            ? ": the scan is device-bound, and no setting here makes it much faster."
            : "."),
      });
    }
    return { workload, pg, scale: scaled.scale, interrupted: stopped(), rows, settings, atDefaults, notes };
  }
}

/** 1234567 -> "1,234,567". */
function grouped(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}
