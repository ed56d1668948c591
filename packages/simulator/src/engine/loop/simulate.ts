/**
 * The simulation of one scenario: build the machine, start the clients, run
 * the event loop, collect the results.
 *
 * The machine is one PostgreSQL instance (shared buffers, postmaster, I/O
 * workers, the allocation cache lines) on one OS and device (the models the
 * engine is handed, seam/ports.ts `ModelFactories`). Each query's clients
 * (client.ts) start runs on it; the warp (speedups/warp.ts) and the caller's
 * progress watch (progress.ts) follow the runs as run observers
 * (run-observer.ts). When the loop ends, the figures of every run, the
 * device, the page cache, shared buffers and the allocator are collected.
 */

import { ScenarioError } from "../../errors.js";
import type { ResolvedScenario } from "../../scenario/resolve.js";
import { mibPerSFromBytesPerSecond } from "../../units.js";
import { resolveCpuCosts } from "../pg/cpu-costs.js";
import { CpuShare } from "../pg/cpu-share.js";
import { FILE_ID_STRIDE, fileIdOf, type MachineRt, PAGES_PER_BLOCK, type TableRt } from "../pg/machine.js";
import { Postmaster } from "../pg/postmaster.js";
import { IoWorkers } from "../pg/read-stream-participant.js";
import { type PgInstance, scanStrategy } from "../pg/run-start.js";
import type { SharedLine } from "../pg/shared-memory.js";
import { SharedBuffers } from "../seam/buffer-manager.js";
import { fileAdviceCallUs, machineCpuOverrides } from "../seam/device.js";
import type { ModelFactories } from "../seam/ports.js";
import { Warp, type WarpSummary } from "../speedups/warp.js";
import { Client } from "./client.js";
import { ProgressWatch, type SimulationProgress } from "./progress.js";
import type { RunObserver } from "./run-observer.js";
import { Scheduler } from "./scheduler.js";
import { scanThroughput } from "./throughput.js";

export { POLL_STEPS, type SimulationProgress } from "./progress.js";

/** One execution of one query. */
export interface RunResult {
  /** Which client ran it (0-based). */
  client: number;
  /** Which of the client's runs (0-based). */
  run: number;
  /** Simulated start time, seconds. */
  startS: number;
  /** Duration, seconds (0 if unfinished). */
  durationS: number;
  /** False if the simulation stopped (`until`, or interrupted) before the run ended. */
  finished: boolean;
  /** Blocks processed (the table's size for a finished sequential scan). */
  blocks: number;
  /** Allocation claims made by its processes. */
  claims: number;
  /** Blocks found in shared buffers. */
  sharedHits: number;
  /** First block of the scan (a syncscan location, or 0). */
  startBlock: number;
  /** Per process: role, blocks processed, claims made. */
  participants: ParticipantResult[];
  /** posix_fadvise(WILLNEED) calls of a plain-file reader's run (`kind: "file"` queries only). */
  adviceCalls?: number;
}

/** What one process of a run did. */
export interface ParticipantResult {
  /** The backend that runs the query, or a parallel worker. */
  role: "leader" | "worker";
  /** Blocks it processed. */
  blocks: number;
  /** Allocation claims it made. */
  claims: number;
}

/** A point of a time series. */
export interface SeriesPoint {
  /** Start of the interval, simulated seconds. */
  tS: number;
  /** Rate over the interval, per second. */
  perS: number;
}

/** All runs of one query. */
export interface QueryResult {
  /** The query's name. */
  name: string;
  /** The table it scans. */
  table: string;
  /** Every run, in the order they started. */
  runs: RunResult[];
  /** Mean duration of finished runs, seconds (pgbench's "latency average"). */
  meanDurationS: number;
  /** MiB a finished run read (warp credit included) per second of its duration, averaged over runs (throughput.ts). */
  mibPerS: number;
}

/** The outcome of one scenario. */
export interface SimulationResult {
  /** Scenario name. */
  scenario: string;
  /** Seed it ran with. */
  seed: number;
  /** Simulated time at the end, seconds. */
  simulatedS: number;
  /** Per query. */
  queries: QueryResult[];
  /** What the device did. */
  device: {
    /** Device reads. */
    reads: number;
    /** Bytes read. */
    bytes: number;
    /** Average read size, KiB. */
    avgReadKb: number;
    /** Share of reads a process waited for synchronously (0..1). */
    syncShare: number;
    /** Reads per simulated second. */
    iops: number;
    /** Busy fraction (0..1). */
    utilisation: number;
    /** Mean number of reads in the device. */
    meanQueueDepth: number;
  };
  /** What the OS page cache did. */
  os: {
    /** Bytes processes asked the OS for (shared-buffer misses). */
    requestedBytes: number;
    /** Bytes read from the device. */
    deviceBytes: number;
    /** 1 - device bytes / requested bytes. */
    hitRatio: number;
    /** The readahead model's confidence ("low" for Windows). */
    confidence: "high" | "medium" | "low";
  };
  /** Shared buffers. */
  sharedBuffers: {
    /** Blocks found in shared buffers. */
    hits: number;
    /** Blocks read into shared buffers. */
    misses: number;
    /** hits / (hits + misses). */
    hitRatio: number;
  };
  /** The shared allocation step (the contended cache line). */
  allocator: {
    /** Operations (lock acquisitions or atomic adds). */
    ops: number;
    /** Time processes waited for the line, seconds (summed). */
    waitS: number;
    /** Time the line was held, seconds. */
    busyS: number;
  };
  /** Time series for charts. */
  series: {
    /** Device throughput over simulated time, MiB/s (2^20 bytes per second: `THROUGHPUT_UNIT` of @scanlab/core). */
    deviceMibPerS: SeriesPoint[];
  };
  /** Events the simulation processed (speed diagnostics). */
  events: number;
  /** What the warp skipped (speedups/warp.ts): steady stretches of long scans credited at their measured rates. */
  warp: WarpSummary;
}

/** Options of a simulation run. */
export interface SimulateOptions {
  /**
   * Polled every {@link POLL_STEPS} steps; return true to stop early, between
   * two steps (results are then partial: unfinished runs are marked so).
   */
  shouldStop?: () => boolean;
  /** Called every {@link POLL_STEPS} steps with how far the simulation has come (for progress displays). */
  onProgress?: (progress: SimulationProgress) => void;
  /** Process striding scans claim by claim, without the gang's bulk emulation (for tests). */
  exactStriding?: boolean;
  /** Simulate every block: no warp over steady stretches (speedups/warp.ts). */
  exact?: boolean;
}

/** Runs a resolved scenario with the given model factories. */
export function simulateWith(
  resolved: ResolvedScenario,
  models: ModelFactories,
  options: SimulateOptions = {},
): SimulationResult {
  const s = resolved.scenario;
  const cpu = resolveCpuCosts(machineCpuOverrides(s.machine.device, s.machine.cpu));
  const builtOs = models.buildOs(resolved);
  const tables: TableRt[] = resolved.tables.map((t, i) => ({
    index: i,
    name: t.name,
    nblocks: t.nblocks,
    tuplesPerPage: t.tuplesPerPage,
    segmentBlocks: t.segmentBlocks,
    temp: t.temp,
    // FirstNormalObjectId (src/include/access/transam.h): the first OID a user relation can get.
    syncKey: 16384 + i,
    indexRelation: null,
  }));
  resolved.tables.forEach((t, i) => {
    if (t.indexRelation !== null) tables[i]!.indexRelation = tables[t.indexRelation]!;
  });
  if (tables.length >= FILE_ID_STRIDE) throw new ScenarioError("A scenario holds at most 65535 tables.");
  const sharedBuffers = new SharedBuffers({
    nBuffers: resolved.nbuffers,
    relationBlocks: tables.map((t) => t.nblocks),
  });
  const machine: MachineRt = {
    cores: s.machine.cores,
    cpu,
    fileAdviceCallUs: fileAdviceCallUs(s.machine.device, s.machine.cpu, cpu.fadviseUs),
    nbuffers: resolved.nbuffers,
    maxConnections: s.machine.maxConnections,
    sharedBuffers,
    os: builtOs.port,
    syncscan: models.syncscan(),
    tables,
  };
  resolved.tables.forEach((t, i) => {
    if (t.cached !== "os") return;
    const table = tables[i]!;
    for (let seg = 0; seg * table.segmentBlocks < table.nblocks; seg++) {
      const blocks = Math.min(table.segmentBlocks, table.nblocks - seg * table.segmentBlocks);
      builtOs.port.warm(fileIdOf(table, seg), blocks * PAGES_PER_BLOCK);
    }
  });

  const scheduler = new Scheduler();
  const cpuShare = new CpuShare(machine.cores);
  const pg: PgInstance = {
    machine,
    scheduler,
    models,
    postmaster: new Postmaster(cpu.workerForkUs, cpu.workerInitUs),
    /** PostgreSQL 18's io_workers default (apps/docs/src/reference/read-streams.md#io-method-and-i-o-workers): 3 I/O worker processes, each with its own open files. */
    ioWorkers: new IoWorkers(3, cpuShare),
    cpuShare,
    adaptive: () => builtOs.adaptive(),
    seed: s.seed,
    exactStriding: options.exactStriding === true,
  };

  // The run observers, the warp first (run-observer.ts): it renumbers only when the OS and
  // syncscan models can follow, and the progress watch only when the caller watches.
  const warp = new Warp(options.exact !== true, scheduler, sharedBuffers, builtOs.port, machine.syncscan);
  const { shouldStop, onProgress } = options;
  const watch =
    shouldStop !== undefined || onProgress !== undefined
      ? new ProgressWatch(scheduler, { shouldStop, onProgress })
      : null;
  const observers: RunObserver[] = [];
  if (warp.possible) observers.push(warp);
  if (watch !== null) observers.push(watch);
  const polled = observers.filter((o) => o.poll !== undefined);
  if (polled.length > 0)
    scheduler.onPoll = (t) => {
      for (const o of polled) o.poll!(t);
    };

  const lines: SharedLine[] = [];
  const queryResults: QueryResult[] = resolved.queries.map((q, index) => {
    const spec = q.spec;
    const table = tables[q.tableIndex]!;
    const result: QueryResult = {
      name: spec.name,
      table: table.name,
      runs: [],
      meanDurationS: 0,
      mibPerS: 0,
    };
    const query = { query: q, index, table, strategy: scanStrategy(spec, table, machine), result };
    for (let c = 0; c < spec.clients; c++)
      new Client(pg, observers, lines, query, c, q.startUs + c * q.clientStaggerUs);
    return result;
  });

  scheduler.run(resolved.untilUs ?? Number.POSITIVE_INFINITY);
  watch?.report();

  const simulatedUs = scheduler.reportedUs(scheduler.nowUs);
  for (const r of queryResults) {
    const tp = scanThroughput(r.runs);
    r.meanDurationS = tp.meanDurationS;
    r.mibPerS = tp.mibPerS;
  }
  const os = builtOs.stats();
  const allocatorOps = lines.reduce((a, l) => a + l.ops, 0);
  return {
    scenario: s.name,
    seed: s.seed,
    simulatedS: simulatedUs / 1e6,
    queries: queryResults,
    device: {
      reads: os.deviceReads,
      bytes: os.deviceBytes,
      avgReadKb: os.deviceReads > 0 ? os.deviceBytes / os.deviceReads / 1024 : 0,
      syncShare: os.deviceReads > 0 ? os.syncReads / os.deviceReads : 0,
      iops: simulatedUs > 0 ? os.deviceReads / (simulatedUs / 1e6) : 0,
      utilisation: os.utilisation,
      meanQueueDepth: os.meanQueueDepth,
    },
    os: {
      requestedBytes: os.requestedBytes,
      deviceBytes: os.deviceBytes,
      hitRatio: os.requestedBytes > 0 ? Math.max(0, 1 - os.deviceBytes / os.requestedBytes) : 0,
      confidence: builtOs.confidence,
    },
    sharedBuffers: {
      hits: sharedBuffers.hits,
      misses: sharedBuffers.misses,
      hitRatio:
        sharedBuffers.hits + sharedBuffers.misses > 0
          ? sharedBuffers.hits / (sharedBuffers.hits + sharedBuffers.misses)
          : 0,
    },
    allocator: {
      ops: allocatorOps,
      waitS: lines.reduce((a, l) => a + l.waitUs, 0) / 1e6,
      busyS: lines.reduce((a, l) => a + l.busyUs, 0) / 1e6,
    },
    series: {
      deviceMibPerS: os.series.points().map((p) => ({ tS: p.tS, perS: mibPerSFromBytesPerSecond(p.perS) })),
    },
    events: scheduler.events,
    warp: warp.summary(),
  };
}
