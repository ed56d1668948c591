/**
 * How much work a simulation will be, before it runs.
 *
 * The problem. A scenario is a few lines of JSON, and a few of them ask for
 * hours of simulation: a thousand clients, an hour of pgbench -T on a table
 * that fits in the page cache, a 10 TB scan with read streams (which the warp
 * cannot renumber), a 16 TB bitmap whose data set alone is 32 GB. Nothing in
 * the scenario says so, and a run that goes quiet for minutes looks hung. A
 * caller (the CLI) needs to know up front: run it, run it with a progress
 * display, or refuse it and say what to change.
 *
 * The insight. The engine's cost is its steps (a wake-up, or a stretch an
 * entity carries on with inside one: scheduler.ts), and the number of steps a
 * run takes follows from its mechanism, not from the figures it will find:
 *
 * - a sequential scan before PG17 takes one step per readahead window on a
 *   cold table (the window is where the OS must decide again:
 *   pg/seqscan-participant.ts) and one per 1024 blocks on a cached one, plus a
 *   few per allocator claim (each claim restarts the readahead ramp of a
 *   parallel scan); one block per claim (PG 9.6-13) runs as a striding gang,
 *   whose steps grow with the number of processes;
 * - read streams (PG17+) and bitmap heap scans take about one and two steps
 *   per block or page;
 * - the warp (speedups/warp.ts) leaves of a long cold scan only what it measures
 *   before its cut (five windows and the way to a segment boundary) and what
 *   it keeps after it (a window, the ramp-down zone, the last segment);
 * - the number of runs is the scenario's, or for `duration` and `until` the
 *   time over a lower bound of a run's time (its CPU work over the processes
 *   that share it; a cold table also its bytes at the device's sequential
 *   rate), so more runs are assumed rather than fewer.
 *
 * Design choices.
 * - A pure function of the resolved scenario: no simulation, no sampling, so
 *   a sweep can estimate its whole grid before anything runs.
 * - The per-mechanism step counts are engine figures, measured on the
 *   simulator itself (scanlab's own, not a PostgreSQL, OS or device figure):
 *   each coefficient below says what it was measured on. The estimate aims
 *   at the right order of magnitude, erring high (tests hold it between 0.7x
 *   and 4x of the steps actually taken on each path); a budget needs no more.
 * - The warp is assumed to cut whenever it structurally can (every scan one
 *   it can renumber, all on one table). Scans that drift apart are not cut
 *   and take longer than estimated: the progress display covers that case.
 * - Memory is estimated too, for what grows with the scenario rather than
 *   with the machine's cache: bitmap data sets (2 bytes per table block and
 *   a run record per matching page) and the shared-buffer pool's arrays.
 *
 * The budget ({@link WORK_BUDGET_STEPS}, {@link MEMORY_BUDGET_BYTES}) is a
 * documented limit of ours: the CLI refuses a scenario over it unless asked
 * to run it, and shows progress for one over {@link PROGRESS_STEPS}.
 */
import { pgModel } from "../../scenario/pg-model.js";
import type { ResolvedScenario } from "../../scenario/resolve.js";
import type { QuerySpec } from "../../scenario/schema.js";
import { BLOCK_BYTES } from "../../units.js";
import { pageWorkUs, preadUs, resolveCpuCosts } from "../pg/cpu-costs.js";
import { defaultAllocator, deviceSequentialBytesPerS } from "../seam/adapters.js";
import { machineCpuOverrides } from "../seam/device.js";

/**
 * Steps a simulation may take without being asked for: 25 million, about a
 * minute and a half at {@link STEP_US} (our choice: long enough for every
 * built-in target row and every reference scenario, which take at most a
 * few million, short enough that a refused scenario would have been a
 * surprise).
 */
export const WORK_BUDGET_STEPS = 25_000_000;
/** Steps above which a caller shows progress: about four seconds at {@link STEP_US} (our choice). */
export const PROGRESS_STEPS = 1_000_000;
/**
 * Memory a simulation may need beyond the machine's baseline: 1 GiB (our
 * choice: a quarter of a small machine's memory, several times what the
 * largest built-in target needs).
 */
export const MEMORY_BUDGET_BYTES = 1024 ** 3;
/**
 * Wall time of one step, for turning steps into seconds in messages: 4 us.
 * Measured on the simulator (Node 20, a loaded 2-core machine) over its
 * paths: 0.8-2.6 us for the quiet steps that dominate long runs (read
 * streams, many clients), 4 us for cached reruns and bitmap pages, 7-15 us
 * for cold readahead windows. Only an order of magnitude for messages.
 */
export const STEP_US = 4;

/**
 * The warp's window, in blocks per scan (speedups/warp.ts WINDOW_BLOCKS): it measures
 * five of them before a cut and keeps one after it.
 */
const WARP_WINDOW_BLOCKS = 32_768;
/** Steps per allocator claim of a parallel scan on a cold table (measured: PG14 chunks of 64-1024 blocks, 1-16 GB). */
const COLD_STEPS_PER_CLAIM = 6.3;
/** Steps per allocator claim on a cached table (measured: PG14 chunks of 64 blocks, 1 GB cached). */
const WARM_STEPS_PER_CLAIM = 2.4;
/** The longest stretch one step of a sequential scan covers (pg/seqscan-participant.ts MAX_STRETCH_BLOCKS). */
const MAX_STRETCH_BLOCKS = 1024;
/**
 * Steps per block of a striding gang (one block per claim, PG 9.6-13, and
 * batches): 0.1 + 0.07 per process (measured: 0.35 with 3 processes, 0.64
 * with 8, 0.28 for batches of 10 with 3; 1 GB cold).
 */
const stridingStepsPerBlock = (processes: number) => 0.1 + 0.07 * processes;
/** Steps per block of a read stream (measured: 1.06 serial, 1.06 with 3 processes; PG17 and PG18). */
const READ_STREAM_STEPS_PER_BLOCK = 1.1;
/** Steps per page of a bitmap heap scan (measured: 2.0 at 10% and 50%, random and sequential layouts). */
const BITMAP_STEPS_PER_PAGE = 2;
/**
 * Steps per block of a plain-file reader (pg/file-reader-participant.ts): one
 * per read (a wake-up or a step inside one), one more per read that advises.
 */
const fileStepsPerBlock = (adviseDistance: number) => (adviseDistance > 0 ? 2 : 1);
/** Memory of a random plain-file reader's permutation: one uint32 a block. */
const FILE_ORDER_BYTES_PER_BLOCK = 4;
/** The pgbench bitmap of the 2022 eic benchmark (T7 b): aid 1000 to 50,000,000 of 300 M rows, one sixth of the pages (@scanlab/bitmap-prefetch). */
const PGBENCH_BITMAP_SHARE = 1 / 6;
/** Memory of a shared buffer: tag, valid-at time, usage count, and two slots of the mapping table (@scanlab/buffer-manager, through seam/buffer-manager.ts). */
const BYTES_PER_SHARED_BUFFER = 8 + 8 + 1 + 2 * (8 + 4);
/** Memory of a generated bitmap data set: its page values (2 bytes a block) and a run record per page (12 bytes, doubled while it grows). */
const DATASET_BYTES_PER_BLOCK = 2;
const BITMAP_BYTES_PER_PAGE = 24;

/** What a caller can change to make a simulation smaller, the largest effect first. */
export type WorkLever =
  | "exact"
  | "clients"
  | "runs"
  | "duration"
  | "until"
  | "table-size"
  | "read-stream"
  | "selectivity"
  | "shared-buffers";

/** The estimate for one query. */
export interface QueryWork {
  /** The query's name. */
  name: string;
  /** Runs over all its clients (for `duration` and `until`: an upper estimate). */
  runs: number;
  /** Blocks each run processes (a bitmap scan: pages). */
  blocksPerRun: number;
  /** Of those, the blocks the engine walks on a cold run (the rest the warp credits). */
  simulatedBlocksPerRun: number;
  /** Whether the warp is expected to cut its cold runs. */
  warped: boolean;
  /** Steps over all its runs (Infinity: its runs take no simulated time, so its `duration` never ends). */
  steps: number;
}

/** What a simulation is expected to cost. */
export interface WorkEstimate {
  /**
   * Steps (wake-ups plus in-wake-up stretches) over the whole simulation;
   * Infinity when it never ends (a query whose runs take no simulated time
   * repeats them forever under `duration`: an empty table, CPU costs of 0).
   */
  steps: number;
  /** `steps` at {@link STEP_US}: an order of magnitude of the wall time, seconds. */
  seconds: number;
  /** Memory that grows with the scenario (bitmap data sets, shared-buffer arrays), bytes. */
  memoryBytes: number;
  /** Per query. */
  queries: QueryWork[];
  /**
   * What a progress display counts towards: simulated seconds up to the
   * scenario's end (`until`, or the last `duration`), or blocks processed
   * over every run (SimulationProgress).
   */
  progressTotal:
    | {
        /** Simulated seconds up to the scenario's end. */
        simulatedS: number;
      }
    | {
        /** Blocks processed over every run. */
        blocks: number;
      };
  /** What would shrink it most, the largest effect first (for a refusal's advice). */
  levers: WorkLever[];
}

/** Options of {@link estimateWork}: the ones of `simulate` that change its work. */
export interface EstimateOptions {
  /** The warp is off (SimulateOptions.exact). */
  exact?: boolean;
}

/** Blocks one step covers on a cold table: the OS's readahead window (where it must decide again). */
function coldBlocksPerStep(resolved: ResolvedScenario): number {
  const m = resolved.scenario.machine;
  if (m.os.startsWith("linux")) {
    // Linux's default window is 128 kB (VM_READAHEAD_PAGES); a device default can be larger, which
    // only makes the estimate high.
    const kb = m.osOptions.readAheadKb ?? 128;
    return Math.max(1, Math.floor(kb / 8));
  }
  // FreeBSD's clusters reach MAXPHYS (128 kB) and more (measured: 24 blocks a step, 4 GB parallel);
  // Windows reads 64 kB views (measured: 8); "none" reads every block on its own.
  if (m.os.startsWith("freebsd")) return 16;
  if (m.os === "windows") return 8;
  return 1;
}

/** Processes of one run of a query. */
function processesOf(spec: QuerySpec): number {
  return spec.workers === 0 ? 1 : spec.workers + (spec.parallelLeaderParticipation ? 1 : 0);
}

function nextPowerOfTwo(x: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(1, x)));
}

/** Blocks per claim of a chunked parallel scan, and its ramp-down zone (blocks simulated near the end). */
function chunking(
  spec: QuerySpec,
  nblocks: number,
): { chunk: number; rampBlocks: number; striding: boolean } {
  if (spec.workers === 0) return { chunk: nblocks, rampBlocks: 0, striding: false };
  const a = spec.allocator ?? defaultAllocator(spec.pg);
  if (a.kind === "pg14") {
    const nchunks = a.nchunks ?? 2048;
    const uncapped = nextPowerOfTwo(Math.floor(nblocks / nchunks));
    const cap = a.maxChunkBlocks === null ? Number.POSITIVE_INFINITY : (a.maxChunkBlocks ?? 8192);
    const chunk = Math.max(1, Math.min(uncapped, cap));
    return { chunk, rampBlocks: chunk * (a.rampdownChunks ?? 64), striding: false };
  }
  if (a.kind === "munro2020") {
    const chunk = a.maxChunkBlocks ?? 64;
    return { chunk, rampBlocks: chunk * 64, striding: false };
  }
  return { chunk: a.kind === "batch" ? a.blocksPerClaim : 1, rampBlocks: 0, striding: true };
}

/**
 * Estimates the work of a resolved scenario (see the header): steps, an
 * order of magnitude of the wall time, the memory that grows with it, and
 * what a progress display should count.
 *
 * @example
 * ```ts
 * import { estimateWork, resolveScenario, WORK_BUDGET_STEPS } from "@scanlab/simulator";
 * const w = estimateWork(resolveScenario({
 *   name: "1000 clients",
 *   machine: { cores: 8, ram: "16GB", os: "linux-5.4", device: "samsung-990-pro-1tb" },
 *   tables: [{ name: "t", size: "1GB", tuplesPerPage: 226 }],
 *   queries: [{ name: "q", table: "t", workers: 2, clients: 1000 }],
 * }));
 * w.steps > WORK_BUDGET_STEPS; // true: about 20 million steps per 1000 cold 1 GB scans
 * ```
 */
export function estimateWork(resolved: ResolvedScenario, options: EstimateOptions = {}): WorkEstimate {
  const s = resolved.scenario;
  const cpu = resolveCpuCosts(machineCpuOverrides(s.machine.device, s.machine.cpu));
  const cacheBytes = Math.max(0, resolved.ramBytes - resolved.sharedBuffersBytes);
  const cold = coldBlocksPerStep(resolved);
  // The warp cuts only scans it can renumber, all on one table (speedups/warp.ts step 2a).
  const oneTable = new Set(resolved.queries.map((q) => q.tableIndex)).size === 1;
  const lone = resolved.queries.length === 1 && resolved.queries[0]!.spec.clients === 1;
  let memoryBytes = resolved.nbuffers * BYTES_PER_SHARED_BUFFER;
  const bitmaps = new Set<string>();
  let endUs = resolved.untilUs ?? 0;
  let timed = resolved.untilUs !== null;
  const queries: QueryWork[] = [];
  const levers = new Map<WorkLever, number>();
  const lever = (l: WorkLever, steps: number) => levers.set(l, (levers.get(l) ?? 0) + steps);

  for (const q of resolved.queries) {
    const spec = q.spec;
    const table = resolved.tables[q.tableIndex]!;
    const n = table.nblocks;
    const processes = processesOf(spec);
    const model = pgModel(spec.pg);
    const readStream =
      spec.kind === "seqscan" ? model.readStreams !== "none" : model.bitmapPrefetch === "pg18";
    let pages = n;
    if (spec.kind === "bitmap" && spec.bitmap !== undefined) {
      if ("pgbench" in spec.bitmap) pages = Math.ceil(n * PGBENCH_BITMAP_SHARE);
      else {
        pages = Math.ceil(n * spec.bitmap.selectivity);
        const key = JSON.stringify([spec.bitmap, n]);
        if (!bitmaps.has(key)) {
          bitmaps.add(key);
          memoryBytes += n * DATASET_BYTES_PER_BLOCK + pages * BITMAP_BYTES_PER_PAGE;
        }
      }
    }

    if (spec.kind === "file" && spec.file?.pattern === "random")
      memoryBytes += n * FILE_ORDER_BYTES_PER_BLOCK * spec.clients;

    // Runs: the scenario's, or what fits in its time at a lower bound of a run's time.
    const fits = n * BLOCK_BYTES <= cacheBytes;
    // A run's CPU work over the processes that share it, after its workers are launched
    // (pg/postmaster.ts): a run of an empty table by a lone backend takes no simulated time at all.
    const launchUs = spec.workers > 0 ? cpu.workerForkUs + cpu.workerInitUs : 0;
    const cpuUs =
      launchUs +
      (pages * (preadUs(cpu, BLOCK_BYTES) + pageWorkUs(cpu, table.tuplesPerPage))) /
        Math.min(processes, s.machine.cores);
    const coldUs = Math.max(
      cpuUs,
      ((pages * BLOCK_BYTES) / deviceSequentialBytesPerS(s.machine.device)) * 1e6,
    );
    const firstUs = table.cached === "os" && fits ? cpuUs : coldUs;
    const laterUs = fits ? cpuUs : coldUs;
    let runsPerClient = spec.runs;
    const limitUs =
      q.durationUs !== null
        ? resolved.untilUs === null
          ? q.durationUs
          : Math.min(q.durationUs, resolved.untilUs - q.startUs)
        : resolved.untilUs === null
          ? null
          : resolved.untilUs - q.startUs;
    if (q.durationUs !== null) {
      timed = true;
      endUs = Math.max(endUs, q.startUs + (spec.clients - 1) * q.clientStaggerUs + q.durationUs);
    }
    if (limitUs !== null) {
      // Runs that take no time never reach the end: endless (Infinity), which is over any budget.
      const fit = limitUs <= firstUs ? 1 : 1 + Math.ceil((limitUs - firstUs) / laterUs);
      runsPerClient = q.durationUs !== null ? fit : Math.min(spec.runs, fit);
    }
    const runs = runsPerClient * spec.clients;

    // Steps per run, cold and cached.
    const { chunk, rampBlocks, striding } = chunking(spec, n);
    const warpable =
      options.exact !== true &&
      oneTable &&
      !readStream &&
      spec.kind !== "file" &&
      (spec.kind === "seqscan" ||
        (lone &&
          spec.workers === 0 &&
          (model.bitmapPrefetch === "pg13" || model.bitmapPrefetch === "pg18") &&
          spec.prefetch !== "adaptive" &&
          spec.prefetch !== "read-stream"));
    const seg = table.segmentBlocks;
    // The warp's walk: five windows measured and the way to a segment boundary before the cut;
    // a window, the ramp-down zone and the last (partial) segment after it.
    // (A bitmap scan's windows are of its pages; the segments are of the table, its pages there.)
    const density = pages / Math.max(1, n);
    const warpWalk = 6 * WARP_WINDOW_BLOCKS + Math.ceil(density * (2 * seg + rampBlocks));
    const simulatedCold = warpable ? Math.min(pages, warpWalk) : pages;
    const stepsFor = (blocks: number, coldRun: boolean): number => {
      if (spec.kind === "bitmap") return BITMAP_STEPS_PER_PAGE * blocks;
      if (spec.kind === "file") return fileStepsPerBlock(spec.file?.adviseDistance ?? 0) * blocks;
      if (readStream) return READ_STREAM_STEPS_PER_BLOCK * blocks;
      if (striding) return stridingStepsPerBlock(processes) * blocks;
      const claims = spec.workers === 0 ? 1 : blocks / chunk + 64 * Math.log2(Math.max(2, chunk));
      return coldRun
        ? blocks / cold + COLD_STEPS_PER_CLAIM * claims
        : blocks / MAX_STRETCH_BLOCKS + WARM_STEPS_PER_CLAIM * claims;
    };
    const firstCold = !(table.cached === "os" && fits);
    const firstSteps = stepsFor(firstCold ? simulatedCold : pages, firstCold);
    const laterSteps = stepsFor(fits ? pages : simulatedCold, !fits);
    // At least one step a run: the client's wake-up that starts it.
    const steps = spec.clients * (Math.max(1, firstSteps) + (runsPerClient - 1) * Math.max(1, laterSteps));
    queries.push({
      name: spec.name,
      runs,
      blocksPerRun: pages,
      simulatedBlocksPerRun: simulatedCold,
      warped: warpable && simulatedCold < pages,
      steps,
    });

    // What would shrink it: each lever's share of these steps.
    if (options.exact === true && !readStream && n > 2 * seg) lever("exact", steps);
    if (spec.clients > 1) lever("clients", steps * (1 - 1 / spec.clients));
    if (runsPerClient > 1)
      lever(
        q.durationUs !== null ? "duration" : resolved.untilUs !== null ? "until" : "runs",
        steps * (1 - 1 / runsPerClient),
      );
    if (readStream && spec.kind === "seqscan" && options.exact !== true) lever("read-stream", steps / 2);
    if (spec.kind === "bitmap" && "dataset" in (spec.bitmap ?? {})) lever("selectivity", steps / 2);
    lever("table-size", steps / 2);
  }

  let steps = 0;
  let blocks = 0;
  for (const w of queries) {
    steps += w.steps;
    blocks += w.runs * w.blocksPerRun;
  }
  if (memoryBytes > MEMORY_BUDGET_BYTES) {
    if (resolved.nbuffers * BYTES_PER_SHARED_BUFFER > MEMORY_BUDGET_BYTES / 2)
      lever("shared-buffers", Number.MAX_VALUE);
    if (bitmaps.size > 0) lever("table-size", Number.MAX_VALUE / 2);
  }
  return {
    steps: Math.ceil(steps),
    seconds: (steps * STEP_US) / 1e6,
    memoryBytes,
    queries,
    progressTotal: timed ? { simulatedS: endUs / 1e6 } : { blocks },
    levers: [...levers].sort((a, b) => b[1] - a[1]).map(([l]) => l),
  };
}

/** Why a scenario is over the budget, or null when it is within it. */
export function overBudget(estimate: WorkEstimate): "steps" | "memory" | null {
  if (estimate.memoryBytes > MEMORY_BUDGET_BYTES) return "memory";
  if (estimate.steps > WORK_BUDGET_STEPS) return "steps";
  return null;
}
