/**
 * A scan's workers: started, set up, and heard from.
 *
 * Problem. Starting a thread, opening the target's files, loading the
 * per-block work and attaching to the shared state takes tens of
 * milliseconds or more (`setupUs`), and none of it is reading: a
 * PostgreSQL worker's fork and relation open are not part of what `iostat`
 * showed either. And a worker can fail at any moment (a work module that
 * does not load, a read the device refuses, a crash); the main thread must
 * hear that as one error, whatever it is waiting for at the time, and never
 * wait forever.
 *
 * Design choices.
 * - N worker_threads run worker.ts with everything they need in their
 *   workerData (worker-protocol.ts). Each says "ready" once set up and then
 *   waits on the start flag, so set-up stays outside the timed window; its
 *   length is reported apart, from just before the first thread starts
 *   ({@link ScanWorkers.setupStartUs}).
 * - Each worker is followed through three promises: ready, done (with its
 *   totals) and exited. An "error" message, an uncaught error or an exit
 *   before "done" rejects both ready and done, so whichever the main thread
 *   is awaiting hears it.
 * - The workers run with no execArgv: they are plain JavaScript, and the
 *   loaders the caller may run under (tsx, vitest) are not needed there.
 *
 * Interface: {@link startWorkers}.
 */
import { Worker } from "node:worker_threads";
import { FileScanError } from "./errors.js";
import type { ScanRequest } from "./scan-options.js";
import type { SettledTarget } from "./scan-target.js";
import type { SharedMemory } from "./shared-memory.js";
import { nowUs, type WorkerData, type WorkerMessage, type WorkerTotals } from "./worker-protocol.js";

/** worker.js next to this module's bundle in dist/ (tsup.config.ts). */
const WORKER_URL = new URL("./worker.js", import.meta.url);

/** The running workers of one scan. */
export interface ScanWorkers {
  /** The process-wide monotonic clock (nowUs) just before the first worker started. */
  readonly setupStartUs: number;
  /** Resolves when every worker is set up and waiting for the start flag; rejects with the first failure. */
  allReady(): Promise<void>;
  /** Every worker's totals, in worker order; rejects with the first failure. */
  allDone(): Promise<WorkerTotals[]>;
  /** Resolves when every worker thread has exited. */
  allExited(): Promise<void>;
  /** Stops every worker thread and resolves when all have exited. */
  terminate(): Promise<void>;
}

interface RunningWorker {
  worker: Worker;
  ready: Promise<void>;
  done: Promise<WorkerTotals>;
  exited: Promise<void>;
}

/** Starts `request.workers` workers on the settled target and the shared memory; they wait for the start flag. */
export function startWorkers(
  request: ScanRequest,
  settled: SettledTarget,
  shared: SharedMemory,
): ScanWorkers {
  const { target, allocator, syncKey } = settled;
  const setupStartUs = nowUs();
  const running: RunningWorker[] = [];
  for (let i = 0; i < request.workers; i++) {
    running.push(
      startWorker({
        index: i,
        allocator: allocator.buffer,
        control: shared.control,
        cover: shared.cover,
        tracker: request.tracker,
        syncKey,
        segments: target.segments.map((s) => ({ path: s.path })),
        segmentBlocks: target.segmentBlocks,
        blockBytes: request.blockBytes,
        nblocks: target.nblocks,
        lastBlockBytes: target.lastBlockBytes,
        work: request.work.code,
        workModule: request.work.module,
        recordRuns: request.recordRuns,
        pg96: request.policy.kind === "pg96",
        mode: request.mode,
        recordReads: request.recordReads,
      }),
    );
  }
  return {
    setupStartUs,
    allReady: async () => {
      await Promise.all(running.map((r) => r.ready));
    },
    allDone: () => Promise.all(running.map((r) => r.done)),
    allExited: async () => {
      await Promise.all(running.map((r) => r.exited));
    },
    terminate: async () => {
      await Promise.all(running.map((r) => r.worker.terminate().then(() => r.exited)));
    },
  };
}

function startWorker(data: WorkerData): RunningWorker {
  const worker = new Worker(WORKER_URL, { workerData: data, execArgv: [] });
  let readyResolve!: () => void;
  let readyReject!: (e: unknown) => void;
  let doneResolve!: (t: WorkerTotals) => void;
  let doneReject!: (e: unknown) => void;
  const ready = new Promise<void>((res, rej) => {
    readyResolve = res;
    readyReject = rej;
  });
  const done = new Promise<WorkerTotals>((res, rej) => {
    doneResolve = res;
    doneReject = rej;
  });
  // Both may be rejected without anyone awaiting one of them yet.
  ready.catch(() => {});
  done.catch(() => {});
  const failWith = (e: unknown): void => {
    readyReject(e);
    doneReject(e);
  };
  worker.on("message", (m: WorkerMessage) => {
    if (m.type === "ready") readyResolve();
    else if (m.type === "done") doneResolve(m.totals);
    else failWith(new FileScanError(m.code, m.message));
  });
  worker.on("error", failWith);
  const exited = new Promise<void>((res) => {
    worker.on("exit", (code) => {
      failWith(new Error(`scan worker ${data.index} exited (code ${code}) before finishing.`));
      res();
    });
  });
  return { worker, ready, done, exited };
}
