/**
 * The simulation of one scenario: build the machine, start the clients, run
 * the event loop, collect the results.
 *
 * Query lifecycle. A query has `clients` identical clients (pgbench -c); each
 * runs the query `runs` times back to back (pgbench -t), or until `duration`
 * has passed (pgbench -T). One run is one execution: a serial scan by the
 * backend (workers = 0), or a parallel scan by the workers plus the leader
 * when parallel_leader_participation is on. The run ends when its last
 * participant has nothing left to scan. A client's backend keeps its files
 * open across runs (PostgreSQL's VFD cache, so the leader's readahead state
 * persists); parallel workers are new processes every run, with fresh opens.
 *
 * Eligibility rules taken from PostgreSQL (apps/docs/src/reference/parallel-block-allocation.md#shared-scan-state, apps/docs/src/reference/synchronized-scans.md#serial-scans): a table
 * larger than NBuffers / 4 that is not temporary is read through a
 * BAS_BULKREAD ring and may synchronize (when synchronize_seqscans is on).
 */
import { ScenarioError } from "../../errors.js";
import type { ResolvedScenario } from "../../scenario/resolve.js";
import { resolveCpuCosts } from "../pg/cpu-costs.js";
import { FILE_ID_STRIDE, fileIdOf, type MachineRt, PAGES_PER_BLOCK, type TableRt } from "../pg/machine.js";
import {
  DEFAULT_IO_COMBINE_LIMIT,
  defaultEic,
  type RunProcesses,
  startProcesses,
} from "../pg/participants.js";
import { Postmaster } from "../pg/postmaster.js";
import { IoWorkers } from "../pg/read-stream-participant.js";
import { type OpenFiles, RunStats, type ScanRunCtx } from "../pg/scan-run.js";
import { SerialAllocation } from "../pg/serial-allocation.js";
import { bulkreadRingBuffers, SharedBuffers } from "../pg/shared-buffers.js";
import { SharedLine } from "../pg/shared-memory.js";
import type { AllocatorParticipant, ModelFactories, ScanAllocation, WarpLimits } from "../seam/ports.js";
import { largeScanThresholdBlocks } from "../seam/shared-leaf.js";
import { Warp, type WarpRun, type WarpSummary } from "../speedups/warp.js";
import { type Entity, Scheduler } from "./scheduler.js";
import { scanThroughput } from "./throughput.js";

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
    /** Device throughput, MiB/s. */
    deviceMiBps: SeriesPoint[];
  };
  /** Events the simulation processed (speed diagnostics). */
  events: number;
  /** What the warp skipped (speedups/warp.ts): steady stretches of long scans credited at their measured rates. */
  warp: WarpSummary;
}

/** How far a running simulation has come (SimulateOptions.onProgress). */
export interface SimulationProgress {
  /** Steps taken so far: wake-ups plus in-wake-up stretches, the unit of {@link estimateWork}. */
  steps: number;
  /** Simulated time reached, seconds (what the warp skipped included). */
  simulatedS: number;
  /** Blocks processed by every run so far, finished or not (a bitmap scan: its pages; the warp's credit included). */
  blocks: number;
  /** Runs finished so far. */
  runsFinished: number;
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

/**
 * Steps between two polls of `shouldStop` and `onProgress`: a few tens of
 * milliseconds of wall time (steps cost about 1-40 us), so Ctrl-C is heard
 * promptly and a progress display moves, while the poll costs nothing
 * measurable (it rides on the warp's poll, every 1024 steps).
 */
export const POLL_STEPS = 65_536;

class MachineState {
  active = 0;
  constructor(readonly cores: number) {}
  cpuFactor(): number {
    return this.active > this.cores ? this.active / this.cores : 1;
  }
}

/** Runs a resolved scenario with the given model factories. */
export function simulateWith(
  resolved: ResolvedScenario,
  models: ModelFactories,
  options: SimulateOptions = {},
): SimulationResult {
  const s = resolved.scenario;
  const cpu = resolveCpuCosts(s.machine.cpu);
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
  }));
  if (tables.length >= FILE_ID_STRIDE) throw new ScenarioError("A scenario holds at most 65535 tables.");
  const sharedBuffers = new SharedBuffers(
    resolved.nbuffers,
    tables.map((t) => t.nblocks),
  );
  const machine: MachineRt = {
    cores: s.machine.cores,
    cpu,
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
  /** PostgreSQL 18's io_workers default (apps/docs/src/reference/read-streams.md#io-method-and-i-o-workers): 3 I/O worker processes, each with its own open files. */
  const ioWorkers = new IoWorkers(3);
  const postmaster = new Postmaster(cpu.workerForkUs, cpu.workerInitUs);
  const state = new MachineState(machine.cores);
  const lines: SharedLine[] = [];
  const queryResults: QueryResult[] = [];
  const warp = new Warp(options.exact !== true, scheduler, sharedBuffers, builtOs.port, machine.syncscan);
  let finishedRuns = 0;
  let finishedBlocks = 0;
  const progress = (): SimulationProgress => {
    let blocks = finishedBlocks;
    for (const r of warp.runs) blocks += r.stats.blocks;
    return {
      steps: scheduler.stepCount,
      simulatedS: (scheduler.nowUs + warp.skippedUs) / 1e6,
      blocks,
      runsFinished: finishedRuns,
    };
  };
  const { shouldStop, onProgress } = options;
  const watched = shouldStop !== undefined || onProgress !== undefined;
  if (warp.possible || watched) {
    const warping = warp.possible;
    const pollsPerWatch = POLL_STEPS / 1024;
    let polls = 0;
    let stopped = false;
    scheduler.onPoll = (t) => {
      if (stopped) return;
      if (warping) warp.poll(t);
      if (!watched || ++polls < pollsPerWatch) return;
      polls = 0;
      onProgress?.(progress());
      if (shouldStop?.() === true) {
        stopped = true;
        scheduler.stop();
      }
    };
  }

  resolved.queries.forEach((q, queryIndex) => {
    const spec = q.spec;
    const table = tables[q.tableIndex]!;
    const result: QueryResult = {
      name: spec.name,
      table: table.name,
      runs: [],
      meanDurationS: 0,
      mibPerS: 0,
    };
    queryResults.push(result);
    const bigTable = !table.temp && table.nblocks > largeScanThresholdBlocks(resolved.nbuffers);
    // Bitmap heap scans never use a ring or synchronize (apps/docs/src/reference/synchronized-scans.md#which-scans-synchronize).
    const syncscan = bigTable && spec.synchronizeSeqscans && spec.kind === "seqscan";
    const ringBuffers =
      bigTable && spec.kind === "seqscan"
        ? bulkreadRingBuffers({
            pg: spec.pg,
            nbuffers: resolved.nbuffers,
            maxConnections: s.machine.maxConnections,
            ioCombineLimit: spec.ioCombineLimit ?? DEFAULT_IO_COMBINE_LIMIT,
            effectiveIoConcurrency: spec.effectiveIoConcurrency ?? defaultEic(spec.pg),
          })
        : 0;

    for (let c = 0; c < spec.clients; c++) {
      const leaderOpens: OpenFiles = new Map();
      warp.openMaps.set(leaderOpens, table);
      warp.pendingClients++;
      let runIndex = 0;
      const clientStartUs = q.startUs + c * q.clientStaggerUs;
      const client: Entity = {
        fire(nowUs: number) {
          if (runIndex === 0) warp.pendingClients--;
          if (runIndex >= spec.runs && q.durationUs === null) return;
          // Reported time includes what the warp skipped.
          if (q.durationUs !== null && nowUs + warp.skippedUs >= clientStartUs + q.durationUs) return;
          warp.beforeRunStart(nowUs);
          const run = runIndex++;
          const stats = new RunStats();
          const line = new SharedLine(cpu.spinlockHoldUs, cpu.atomicOpUs);
          lines.push(line);
          const record: RunResult = {
            client: c,
            run,
            startS: (nowUs + warp.skippedUs) / 1e6,
            durationS: 0,
            finished: false,
            blocks: 0,
            claims: 0,
            sharedHits: 0,
            startBlock: 0,
            participants: stats.perParticipant,
          };
          result.runs.push(record);
          const workers = spec.workers;
          const participants = workers === 0 ? 1 : workers + (spec.parallelLeaderParticipation ? 1 : 0);
          let remaining = participants;
          state.active += participants;
          let warpRun: WarpRun | null = null;
          const ctx: ScanRunCtx = {
            machine,
            table,
            scheduler,
            line,
            syncReport: syncscan,
            ringBuffers,
            stats,
            seed: s.seed,
            cpuFactor: () => state.cpuFactor(),
            participantDone(t: number) {
              state.active--;
              if (--remaining > 0) return;
              if (warpRun !== null) warp.runs.delete(warpRun);
              finishedRuns++;
              finishedBlocks += stats.blocks;
              for (const o of opens) if (o !== leaderOpens) warp.openMaps.delete(o);
              record.durationS = (t + warp.skippedUs) / 1e6 - record.startS;
              // pgbench -T repeats a run until its time is up: a run that takes no simulated time
              // (nothing to read: an empty table, an empty bitmap) would repeat forever at one instant.
              if (q.durationUs !== null && !(record.durationS > 0)) {
                throw new ScenarioError(
                  `query "${spec.name}": a run takes no simulated time (it has nothing to read), so its duration is never reached; give it runs instead of a duration.`,
                  { field: `queries.${queryIndex}.duration` },
                );
              }
              record.finished = true;
              record.blocks = stats.blocks;
              record.claims = stats.claims;
              record.sharedHits = stats.sharedHits;
              scheduler.schedule(clientId, t);
            },
          };
          const roles: ("leader" | "worker")[] = [];
          const opens: OpenFiles[] = [];
          for (let i = 0; i < participants; i++) {
            const isLeader = workers === 0 || (spec.parallelLeaderParticipation && i === 0);
            roles.push(isLeader ? "leader" : "worker");
            opens.push(isLeader ? leaderOpens : new Map());
          }
          for (const o of opens) if (o !== leaderOpens) warp.openMaps.set(o, table);
          let allocators: AllocatorParticipant[] | null = null;
          let striding: ScanAllocation["striding"];
          let serial: SerialAllocation | null = null;
          let allocation: ScanAllocation | null = null;
          if (spec.kind === "seqscan") {
            if (workers === 0) {
              const start = syncscan ? machine.syncscan.getLocation(table.syncKey, table.nblocks) : 0;
              record.startBlock = start;
              serial = new SerialAllocation(table.nblocks, start, (sb) => {
                if (syncscan) machine.syncscan.report(table.syncKey, sb);
              });
              allocators = [serial];
            } else {
              allocation = models.parallelScan(spec, table.nblocks, syncscan, {
                getStartBlock: (n) => {
                  const b = machine.syncscan.getLocation(table.syncKey, n);
                  record.startBlock = b;
                  return b;
                },
                onScanEnd: (b) => machine.syncscan.report(table.syncKey, b),
              });
              allocators = roles.map(() => allocation!.join());
              striding = allocation.striding;
            }
          }
          const launched = postmaster.launch(nowUs, workers);
          const startTimes = roles.map((role, i) =>
            role === "leader" ? nowUs : launched[i - (spec.parallelLeaderParticipation ? 1 : 0)]!,
          );
          const processes = startProcesses({
            startTimes,
            ctx,
            spec,
            machine,
            allocators,
            opens,
            roles,
            ioWorkers,
            models,
            adaptive: () => builtOs.adaptive(),
            syncscan,
            striding: options.exactStriding ? undefined : striding,
          });
          if (remaining > 0) {
            warpRun = warpRunOf(table, stats, line, processes, serial, allocation);
            warp.runs.add(warpRun);
          }
        },
      };
      const clientId = scheduler.add(client);
      scheduler.schedule(clientId, clientStartUs);
    }
  });

  scheduler.run(resolved.untilUs ?? Number.POSITIVE_INFINITY);
  onProgress?.(progress());

  const simulatedUs = scheduler.nowUs + warp.skippedUs;
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
    series: { deviceMiBps: os.series.points().map((p) => ({ tS: p.tS, perS: p.perS / 1048576 })) },
    events: scheduler.events,
    warp: warp.summary(),
  };
}

/** What a scan whose claims never change size forbids a cut: nothing. */
const NO_LIMITS: WarpLimits = { tailBlocks: 0, minNblocks: 0, halvesBelow: 0, blocksPerClaim: 0 };

/** A run as the warp sees it (speedups/warp.ts): warpable when its processes and allocation can be renumbered. */
function warpRunOf(
  table: TableRt,
  stats: RunStats,
  line: SharedLine,
  processes: RunProcesses,
  serial: SerialAllocation | null,
  allocation: ScanAllocation | null,
): WarpRun {
  if (processes !== null && "bitmapScan" in processes) {
    const scan = processes.bitmapScan;
    return {
      table,
      stats,
      line,
      warpable: scan.warpable,
      limits: () => NO_LIMITS,
      position: () => ({
        counter: scan.frontier(),
        startBlock: 0,
        nblocks: table.nblocks,
        end: scan.pathEnd(),
      }),
      lowestPending: () => scan.lowestPending(),
      relabel: (change) => scan.relabel(change),
      blocksIn: (at, blocks) => scan.pagesIn(at, blocks),
    };
  }
  const parallel =
    allocation !== null && allocation.position !== undefined && allocation.relabel !== undefined;
  const warpable = processes !== null && (serial !== null || parallel);
  return {
    table,
    stats,
    line,
    warpable,
    limits: () => allocation?.warpLimits?.() ?? NO_LIMITS,
    position() {
      if (serial !== null) return serial.position(processes!.members[0]!.cur);
      return allocation?.position?.() ?? null;
    },
    lowestPending() {
      const pos = this.position();
      if (pos === null) return 0;
      let lowest = pos.counter;
      for (const m of processes?.members ?? []) {
        if (m.remaining === 0) continue;
        const c = (m.cur - pos.startBlock + pos.nblocks) % pos.nblocks;
        if (c < lowest) lowest = c;
      }
      return lowest;
    },
    relabel(change, counterShift) {
      if (serial !== null) serial.relabel(change.newNblocks, change.map);
      else allocation!.relabel!(change.newNblocks, change.map, counterShift);
      processes?.relabel(change);
    },
  };
}
