/**
 * Which processes a query run starts, and with what: the choice PostgreSQL
 * makes by version and plan.
 *
 * | scan | PG | process | block source | I/O |
 * |---|---|---|---|---|
 * | seq | 9.6-16 | SeqScanParticipant | serial order or the allocator | one 8 kB pread per block |
 * | seq | 17+ | ReadStreamParticipant (flag SEQUENTIAL: no advice) | same, asked by the stream | up to io_combine_limit blocks per read |
 * | bitmap | 9.6-17 | BitmapScanParticipant | the bitmap (shared iterator if parallel) | 8 kB pread + PG13 prefetch advice (or `adaptive`) |
 * | bitmap | 18+ | ReadStreamParticipant (default flags) | the bitmap | read stream, advice only with io_method sync |
 * | file | any | FileReaderParticipant (one process) | forward, backward or a seeded permutation | one 8 kB pread per block, WILLNEED d blocks ahead |
 *
 * The models (the bitmap and its prefetch policies, read streams) come from
 * the run's {@link ModelFactories} (seam/ports.ts): this file chooses which
 * and with which PostgreSQL settings, the adapters build them.
 */
import { ScenarioError } from "../../errors.js";
import { type PgModel, pgModel } from "../../scenario/pg-model.js";
import type { QuerySpec } from "../../scenario/schema.js";
import { BLOCK_BYTES } from "../../units.js";
import { BufferRing } from "../seam/buffer-manager.js";
import type {
  AdaptiveInputs,
  AllocatorParticipant,
  BitmapPrefetchSettings,
  BitmapScanPort,
  ModelFactories,
  ReadStreamSettings,
  Renumbering,
  ScanAllocation,
} from "../seam/ports.js";
import { StridingGang } from "../speedups/striding-gang.js";
import { bitmapIndexScanFor } from "./bitmap-index-scan.js";
import { BitmapScanParticipant } from "./bitmap-participant.js";
import { preadUs } from "./cpu-costs.js";
import { FileReaderParticipant } from "./file-reader-participant.js";
import type { MachineRt } from "./machine.js";
import { type CostSink, type IoWorkers, ReadStreamParticipant } from "./read-stream-participant.js";
import type { OpenFiles, ScanRunCtx } from "./scan-run.js";
import { SeqScanParticipant } from "./seqscan-participant.js";

/** io_combine_limit's default (and io_max_combine_limit's, PG18+): 16 blocks = 128 kB (apps/docs/src/reference/read-streams.md#stream-parameters; apps/docs/src/reference/experiments.md#t12-constants-the-simulator-encodes). */
export const DEFAULT_IO_COMBINE_LIMIT = 16;

/** PostgreSQL's effective_io_concurrency default by version: 16 with 18's I/O (ff79b5b2ab), else 1 (guc_tables.c). */
export function defaultEic(pg: QuerySpec["pg"]): number {
  return asyncIo(pgModel(pg)) ? 16 : 1;
}

/** The 18+ I/O layer (asynchronous I/O, io_method, effective_io_concurrency default 16): read streams as 18 or 19. */
function asyncIo(m: PgModel): boolean {
  return m.readStreams === "pg18" || m.readStreams === "pg19";
}

/** read_stream.c's version for a model (17 when the version has no read streams of its own). */
function streamVersion(m: PgModel): ReadStreamSettings["version"] {
  return m.readStreams === "pg19" ? 19 : m.readStreams === "pg18" ? 18 : 17;
}

/** Everything a run needs to start its processes. */
export interface RunSetup {
  ctx: ScanRunCtx;
  spec: QuerySpec;
  machine: MachineRt;
  /** One allocator participant per scanning process (seq scans). */
  allocators: AllocatorParticipant[] | null;
  opens: OpenFiles[];
  roles: ("leader" | "worker")[];
  ioWorkers: IoWorkers;
  /** The models the processes run (bitmaps and their prefetch policies, read streams). */
  models: ModelFactories;
  /** The adaptive bitmap policy's device figures (measured when first asked). */
  adaptive(): AdaptiveInputs;
  syncscan: boolean;
  /** When each process makes its first request (the leader now, workers once launched). */
  startTimes: number[];
  /** The allocation's fixed-size-claim interface, when it has one (pg96, pg11, batch). */
  striding?: ScanAllocation["striding"];
}

/**
 * The run's processes as the warp (speedups/warp.ts) sees them: the ones whose state it
 * can renumber when it cuts blocks out of the table (sequential scans, a
 * serial bitmap heap scan), or null when the run has state it cannot (read
 * streams' queues, a parallel bitmap scan's shared iterators).
 */
export type RunProcesses =
  | {
      readonly members: SeqScanParticipant[];
      renumber(change: Renumbering): void;
    }
  | { readonly bitmapScan: BitmapScanParticipant }
  | null;

/** Creates and starts the run's processes at `nowUs`. */
export function startProcesses(setup: RunSetup): RunProcesses {
  const { ctx, spec, machine } = setup;
  const model = pgModel(spec.pg);
  const n = setup.roles.length;
  if (spec.kind === "seqscan") {
    // Seq scans run on read streams (and report syncscan positions at their look-ahead) from 17.
    const streamed = model.readStreams !== "none";
    if (!streamed && setup.striding !== undefined && n > 1) {
      const members = setup.allocators!.map(
        (a, i) => new SeqScanParticipant(ctx, a, setup.opens[i]!, setup.roles[i]!),
      );
      const gang = new StridingGang(ctx, members, setup.striding);
      gang.start(setup.startTimes);
      return gang;
    }
    if (!streamed) {
      const members: SeqScanParticipant[] = [];
      for (let i = 0; i < n; i++) {
        const m = new SeqScanParticipant(ctx, setup.allocators![i]!, setup.opens[i]!, setup.roles[i]!);
        m.start(setup.startTimes[i]!);
        members.push(m);
      }
      return {
        members,
        renumber(change) {
          for (const m of members) m.renumber(change);
        },
      };
    }
    for (let i = 0; i < n; i++) {
      const alloc = setup.allocators![i]!;
      const costs: CostSink = { debtUs: 0 };
      let cur = 0;
      let left = 0;
      const key = ctx.table.syncKey;
      const reportEvery = machine.syncscan.reportIntervalBlocks;
      const source = (): number | null => {
        if (left === 0) {
          const c = alloc.next();
          if (c === null) return null;
          cur = c.startBlock;
          left = c.blocks;
          const t = ctx.scheduler.nowUs;
          costs.debtUs += ctx.line.acquire(c.op, t) - t;
          ctx.stats.claims++;
        }
        const b = cur++;
        left--;
        if (setup.syncscan && b % reportEvery === 0) machine.syncscan.report(key, b);
        return b;
      };
      const stream = setup.models.readStream(source, {
        version: streamVersion(model),
        effectiveIoConcurrency: spec.effectiveIoConcurrency ?? defaultEic(spec.pg),
        ioCombineLimit: spec.ioCombineLimit ?? DEFAULT_IO_COMBINE_LIMIT,
        ioMaxCombineLimit: asyncIo(model)
          ? Math.max(DEFAULT_IO_COMBINE_LIMIT, spec.ioCombineLimit ?? DEFAULT_IO_COMBINE_LIMIT)
          : undefined,
        ioMethod: asyncIo(model) ? (spec.ioMethod ?? "worker") : "sync",
        sequential: true,
        bulkread: ctx.ringBuffers > 0,
        nbuffers: machine.nbuffers,
        maxConnections: machine.maxConnections,
      });
      const ring = ctx.ringBuffers > 0 ? new BufferRing(ctx.ringBuffers) : null;
      const io = asyncIo(model) && (spec.ioMethod ?? "worker") === "worker" ? setup.ioWorkers : null;
      new ReadStreamParticipant(ctx, stream, setup.opens[i]!, ring, costs, io, setup.roles[i]!).start(
        setup.startTimes[i]!,
      );
    }
    return null;
  }

  if (spec.kind === "file") {
    // A plain-file reader: one process (resolve.ts refuses workers), no stream, nothing to warp.
    const file = spec.file!;
    new FileReaderParticipant(
      ctx,
      {
        pattern: file.pattern,
        adviseDistance: file.adviseDistance ?? 0,
        seed: file.seed ?? 1,
        adviceCallUs: machine.fileAdviceCallUs,
      },
      setup.opens[0]!,
      setup.roles[0]!,
    ).start(setup.startTimes[0]!);
    return null;
  }

  // Bitmap heap scan: the Bitmap Index Scan first, when the table has an index relation.
  const bitmaps = setup.models.bitmapScans;
  const nblocks = ctx.table.nblocks;
  const indexScan = () =>
    ctx.table.indexRelation === null
      ? null
      : bitmapIndexScanFor(ctx, bitmaps.matchedShare(spec, nblocks, ctx.table.tuplesPerPage), n);
  const eic = spec.effectiveIoConcurrency ?? defaultEic(spec.pg);
  // Up to 12 effective_io_concurrency counts spindles ("pg84"); 13 made it the distance.
  const bitmapModel = model.bitmapPrefetch;
  const prefetch =
    spec.prefetch ?? (bitmapModel === "pg18" ? "read-stream" : bitmapModel === "pg13" ? "pg13" : "pg84");
  if (prefetch === "read-stream") {
    if (bitmapModel !== "pg18")
      throw new ScenarioError(
        `query "${spec.name}": bitmap heap scans use read streams from PG18 on (pg is ${spec.pg}).`,
      );
    const source = bitmaps.pageSource(spec, nblocks);
    for (let i = 0; i < n; i++) {
      const stream = setup.models.readStream(source, {
        version: streamVersion(model),
        effectiveIoConcurrency: eic,
        ioCombineLimit: spec.ioCombineLimit ?? DEFAULT_IO_COMBINE_LIMIT,
        ioMaxCombineLimit: Math.max(
          DEFAULT_IO_COMBINE_LIMIT,
          spec.ioCombineLimit ?? DEFAULT_IO_COMBINE_LIMIT,
        ),
        ioMethod: spec.ioMethod ?? "worker",
        perBufferData: true,
        bulkread: false,
        nbuffers: machine.nbuffers,
        maxConnections: machine.maxConnections,
      });
      const io = (spec.ioMethod ?? "worker") === "worker" ? setup.ioWorkers : null;
      const scan = new ReadStreamParticipant(
        ctx,
        stream,
        setup.opens[i]!,
        null,
        { debtUs: 0 },
        io,
        setup.roles[i]!,
        true,
      );
      if (i === 0) scan.indexScan = indexScan();
      scan.start(setup.startTimes[i]!);
    }
    return null;
  }
  let policies: BitmapScanPort[];
  if (prefetch === "adaptive") {
    if (n > 1)
      throw new ScenarioError(
        `query "${spec.name}": the adaptive prefetch policy is serial only; set workers to 0.`,
      );
    const cpu = machine.cpu;
    policies = [
      bitmaps.adaptive(spec, nblocks, {
        ...setup.adaptive(),
        cpuPerPageUs: cpu.perPageUs + preadUs(cpu, BLOCK_BYTES),
        cpuPerTupleUs: cpu.perTupleUs + cpu.bitmapTupleUs,
        adviceCallUs: cpu.fadviseUs,
      }),
    ];
  } else {
    const settings: BitmapPrefetchSettings = {
      effectiveIoConcurrency: eic,
      eicFormula: prefetch === "pg84" ? "pg84" : "pg13",
      // Up to 11 the tuple-fetch iteration that ends a page does not prefetch (see @scanlab/bitmap-prefetch's Pg13PrefetchOptions).
      prefetchOnExhaustedIteration: bitmapModel !== "pg96",
    };
    policies = bitmaps.prefetch(spec, nblocks, settings, n);
  }
  const scans = policies.map((p, i) => {
    const scan = new BitmapScanParticipant(ctx, p, setup.opens[i]!, setup.roles[i]!);
    if (i === 0) scan.indexScan = indexScan();
    scan.start(setup.startTimes[i]!);
    return scan;
  });
  return scans.length === 1 ? { bitmapScan: scans[0]! } : null;
}
