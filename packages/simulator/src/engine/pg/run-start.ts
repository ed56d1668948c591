/**
 * What PostgreSQL does to start one run of a query: how the scan reads (a
 * ring, syncscan), where its blocks come from (a serial scan's order from the
 * syncscan location, or the parallel allocator every process joins), when
 * its parallel workers are there (the postmaster forks them one at a time),
 * and the processes that scan (participants.ts).
 *
 * A run is one execution: a serial scan by the backend (workers = 0), or a
 * parallel scan by the workers plus the leader when
 * parallel_leader_participation is on. It ends when its last process has
 * nothing left to scan. The backend keeps its files open across runs
 * (PostgreSQL's VFD cache, so the leader's readahead state persists);
 * parallel workers are new processes every run, with fresh opens.
 *
 * Eligibility rules taken from PostgreSQL (apps/docs/src/reference/parallel-block-allocation.md#shared-scan-state, apps/docs/src/reference/synchronized-scans.md#serial-scans): a table
 * larger than NBuffers / 4 that is not temporary is read through a
 * BAS_BULKREAD ring and may synchronize (when synchronize_seqscans is on).
 */
import type { QuerySpec } from "../../scenario/schema.js";
import type { Scheduler } from "../loop/scheduler.js";
import { bulkReadRingFor } from "../seam/buffer-manager.js";
import type { AdaptiveInputs, AllocatorParticipant, ModelFactories, ScanAllocation } from "../seam/ports.js";
import { largeScanThresholdBlocks } from "../seam/shared-leaf.js";
import type { CpuShare } from "./cpu-share.js";
import type { MachineRt, TableRt } from "./machine.js";
import { DEFAULT_IO_COMBINE_LIMIT, defaultEic, type RunProcesses, startProcesses } from "./participants.js";
import type { Postmaster } from "./postmaster.js";
import type { IoWorkers } from "./read-stream-participant.js";
import type { OpenFiles, RunStats, ScanRunCtx } from "./scan-run.js";
import { SerialAllocation } from "./serial-allocation.js";
import type { SharedLine } from "./shared-memory.js";

/** The PostgreSQL instance every client connects to, and the loop it runs in. */
export interface PgInstance {
  readonly machine: MachineRt;
  readonly scheduler: Scheduler;
  readonly models: ModelFactories;
  readonly postmaster: Postmaster;
  readonly ioWorkers: IoWorkers;
  /** Processes busy on the machine's cores. */
  readonly cpuShare: CpuShare;
  /** The adaptive bitmap policy's device figures (measured when first asked). */
  adaptive(): AdaptiveInputs;
  /** The scenario's seed (per-process random streams derive from it). */
  readonly seed: number;
  /** Process striding scans claim by claim, without the striding gang (for tests). */
  readonly exactStriding: boolean;
}

/** How a query's scans read its table: the same for every run. */
export interface ScanStrategy {
  /** Synchronized: start where other scans are, report where this one is. */
  syncscan: boolean;
  /** BAS_BULKREAD ring size in buffers, or 0 for normal replacement. */
  ringBuffers: number;
}

/** The strategy of a query's scans of `table` (see the header). */
export function scanStrategy(spec: QuerySpec, table: TableRt, machine: MachineRt): ScanStrategy {
  const bigTable = !table.temp && table.nblocks > largeScanThresholdBlocks(machine.nbuffers);
  // Bitmap heap scans never use a ring or synchronize (apps/docs/src/reference/synchronized-scans.md#which-scans-synchronize).
  const syncscan = bigTable && spec.synchronizeSeqscans && spec.kind === "seqscan";
  const ringBuffers =
    bigTable && spec.kind === "seqscan"
      ? bulkReadRingFor(spec.pg, {
          nbuffers: machine.nbuffers,
          maxConnections: machine.maxConnections,
          ioCombineLimit: spec.ioCombineLimit ?? DEFAULT_IO_COMBINE_LIMIT,
          effectiveIoConcurrency: spec.effectiveIoConcurrency ?? defaultEic(spec.pg),
        })
      : 0;
  return { syncscan, ringBuffers };
}

/** One run to start. */
export interface RunRequest {
  spec: QuerySpec;
  table: TableRt;
  strategy: ScanStrategy;
  /** The client's backend's open files (kept across runs). */
  leaderOpens: OpenFiles;
  stats: RunStats;
  line: SharedLine;
  /** Told the scan's first block once it is known (a syncscan location, or 0). */
  onStartBlock(block: number): void;
  /** Told when the run's last process has finished. */
  onEnd(nowUs: number): void;
}

/** A started run: its processes and block sources, as the warp needs them. */
export interface StartedRun {
  processes: RunProcesses;
  serial: SerialAllocation | null;
  allocation: ScanAllocation | null;
  /** The open files of its parallel workers. */
  workerOpens: OpenFiles[];
}

/** Starts a run at `nowUs` (see the header). */
export function startRun(pg: PgInstance, r: RunRequest, nowUs: number): StartedRun {
  const { machine, scheduler, cpuShare } = pg;
  const { spec, table, leaderOpens } = r;
  const { syncscan } = r.strategy;
  const workers = spec.workers;
  const participants = workers === 0 ? 1 : workers + (spec.parallelLeaderParticipation ? 1 : 0);
  let remaining = participants;
  cpuShare.active += participants;
  const ctx: ScanRunCtx = {
    machine,
    table,
    scheduler,
    line: r.line,
    syncReport: syncscan,
    ringBuffers: r.strategy.ringBuffers,
    stats: r.stats,
    seed: pg.seed,
    cpuFactor: (nowUs) => cpuShare.cpuFactor(nowUs),
    participantDone(t: number) {
      cpuShare.active--;
      if (--remaining > 0) return;
      r.onEnd(t);
    },
  };
  const roles: ("leader" | "worker")[] = [];
  const opens: OpenFiles[] = [];
  for (let i = 0; i < participants; i++) {
    const isLeader = workers === 0 || (spec.parallelLeaderParticipation && i === 0);
    roles.push(isLeader ? "leader" : "worker");
    opens.push(isLeader ? leaderOpens : new Map());
  }
  let allocators: AllocatorParticipant[] | null = null;
  let striding: ScanAllocation["striding"];
  let serial: SerialAllocation | null = null;
  let allocation: ScanAllocation | null = null;
  if (spec.kind === "seqscan") {
    if (workers === 0) {
      const start = syncscan ? machine.syncscan.getLocation(table.syncKey, table.nblocks) : 0;
      r.onStartBlock(start);
      serial = new SerialAllocation(table.nblocks, start, (sb) => {
        if (syncscan) machine.syncscan.report(table.syncKey, sb);
      });
      allocators = [serial];
    } else {
      const parallel = pg.models.parallelScan(spec, table.nblocks, syncscan, {
        getStartBlock: (n) => {
          const b = machine.syncscan.getLocation(table.syncKey, n);
          r.onStartBlock(b);
          return b;
        },
        onScanEnd: (b) => machine.syncscan.report(table.syncKey, b),
      });
      allocation = parallel;
      allocators = roles.map(() => parallel.join());
      striding = parallel.striding;
    }
  }
  const launched = pg.postmaster.launch(nowUs, workers);
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
    ioWorkers: pg.ioWorkers,
    models: pg.models,
    adaptive: () => pg.adaptive(),
    syncscan,
    striding: pg.exactStriding ? undefined : striding,
  });
  return { processes, serial, allocation, workerOpens: opens.filter((o) => o !== leaderOpens) };
}
