/**
 * A sweep on the queue: its cells are put on the queue under the sweep's id
 * and their hashes, workers anywhere run them, and the sweep collects the
 * results in the order of its cells.
 *
 * Design choices:
 * - One job per distinct cell, with the job id `sweepId-hash`. BullMQ adds a
 *   job only when no job of that id exists, so a sweep started again with
 *   the same id finds its finished cells (their results are kept
 *   {@link RESULT_TTL_S}) and its waiting or running ones, and adds only
 *   the missing ones; two identical cells of one sweep are run once.
 * - A cell that failed for good because of what it holds (an invalid
 *   scenario) stays failed and is reported once. One that failed because
 *   its workers kept dying, or of an internal error, is tried again when its
 *   sweep is started again.
 * - Results are collected by asking the queue for the state of the cells
 *   not yet finished, a few times a second: a sweep may be started, stopped
 *   and started again, or collected from another machine, and the queue's
 *   state is the one record of what is done.
 * - The first failed cell ends the collection with its reason. Its sweep's
 *   other cells go on running on the workers, and their results wait for a
 *   restart.
 * - Cells, results and failures expire: every key a sweep writes carries
 *   an expiry of at most {@link RESULT_TTL_S} (expiry.ts); each sweep also
 *   removes finished cells older than {@link RESULT_TTL_S} and waiting ones
 *   older than {@link CELL_TTL_S} when it starts, and BullMQ removes
 *   finished ones past that age as others finish.
 * - No wait is unbounded: every request to Redis is given up after
 *   {@link OUTAGE_S} (the connection meanwhile reconnects by itself), and
 *   nothing waits for an event that a lost connection could swallow: the
 *   state of every unfinished cell is read again on every look.
 */
import { errorClause } from "@scanlab/core";
import type { RowMetrics } from "@scanlab/simulator";
import { Job, Queue } from "bullmq";
import type { Redis } from "ioredis";
import {
  type CellJobData,
  cellHash,
  cellJobId,
  checkSweepId,
  decodeMetrics,
  defaultSweepId,
} from "./cell.js";
import { describeFailure, lastingOptions, probe } from "./connect.js";
import { QueueError } from "./errors.js";
import { expireKeys } from "./expiry.js";
import { ATTEMPTS, CELL_TTL_S, KEY_PREFIX, OUTAGE_S, QUEUE_NAME, RESULT_TTL_S } from "./settings.js";
import { parseQueueUrl, redactUrls } from "./url.js";
import { INVALID_CELL } from "./worker.js";

/** Options of {@link runSweepOnQueue}. */
export interface SweepOptions {
  /** The queue's URL (`redis://...` or `rediss://...`). */
  url: string;
  /** The sweep's id (default: a hash of its cells, so the same sweep gets the same id). */
  sweepId?: string;
  /** Run cells over the simulator's work budget (the user's `--over-budget`). */
  overBudget?: boolean;
  /** Aborting it stops the collection: what finished is returned, the rest stays on the queue. */
  signal?: AbortSignal;
  /** Called with the counts after every look at the queue. */
  onProgress?: (progress: SweepProgress) => void;
  /** How often the queue is asked about unfinished cells, ms (default 250: a smooth progress line at a few commands per cell a second). */
  pollMs?: number;
}

/** Where a sweep's cells are. */
export interface SweepProgress {
  /** Cells of the sweep (distinct ones). */
  total: number;
  /** Cells with a result, including reused ones. */
  done: number;
  /** Cells whose result was already on the queue when the sweep started. */
  reused: number;
  /** Cells a worker is running. */
  running: number;
  /** Cells that failed for good. */
  failed: number;
  /** Extra runs of the cells finished in this run: a cell run twice because its first worker died counts 1. */
  retried: number;
}

/** What {@link runSweepOnQueue} collected. */
export interface SweepRun {
  /** The sweep's id (given, or derived from its cells). */
  sweepId: string;
  /** Each cell's metrics, in the order of the cells; undefined when not finished (the collection was stopped). */
  metrics: (RowMetrics | undefined)[];
  /** The final counts. */
  progress: SweepProgress;
  /** The collection was stopped (`signal`) before every cell finished. */
  interrupted: boolean;
}

/** Default time between two looks at the queue, ms. */
const POLL_MS = 250;

/** What a request rejects with when the sweep is stopped (`signal`). */
const STOPPED = Symbol("stopped");

/** How long closing the queue may take before its connection is dropped: 5 s. */
const CLOSE_MS = 5_000;

/**
 * Runs cells (complete scenarios, seeds included) on the queue at `url` and
 * collects their row metrics in order. Workers (`runWorker`, or
 * `scanlab worker`) must serve the same queue.
 *
 * @throws QueueError for a bad URL or sweep id, an unreachable queue, refused
 * credentials, a queue lost for longer than it waits, or a cell that failed
 * @example
 * ```ts
 * import { runSweepOnQueue } from "@scanlab/queue";
 * const cells = [1, 2, 4].map((workers) => ({
 *   name: `workers=${workers}`,
 *   seed: 1,
 *   machine: { cores: 4, ram: "2GB", os: "linux-5.4", device: "intel-ssd-320-120gb" },
 *   tables: [{ name: "t", size: "64MB", tuplesPerPage: 226 }],
 *   queries: [{ name: "q", table: "t", pg: "14", workers }],
 * }));
 * const run = await runSweepOnQueue(cells, { url: "redis://127.0.0.1:6379/0", sweepId: "workers-1" });
 * console.log(run.metrics.map((m) => m?.timeS), run.progress.retried);
 * ```
 */
export async function runSweepOnQueue(
  scenarios: readonly unknown[],
  options: SweepOptions,
): Promise<SweepRun> {
  const conn = parseQueueUrl(options.url);
  const hashes = scenarios.map(cellHash);
  const sweepId = checkSweepId(options.sweepId ?? defaultSweepId(hashes));
  const ids = hashes.map((h) => cellJobId(sweepId, h));
  const unique = [...new Set(ids)];
  const metricsById = new Map<string, RowMetrics>();
  const progress: SweepProgress = {
    total: unique.length,
    done: 0,
    reused: 0,
    running: 0,
    failed: 0,
    retried: 0,
  };
  const finish = (interrupted: boolean): SweepRun => ({
    sweepId,
    metrics: ids.map((id) => metricsById.get(id)),
    progress: { ...progress },
    interrupted,
  });
  if (options.signal?.aborted) return finish(true);
  await probe(conn);
  const queue = new Queue<CellJobData>(QUEUE_NAME, { connection: lastingOptions(conn), prefix: KEY_PREFIX });
  let queueError: unknown = null;
  queue.on("error", (e) => {
    queueError = e;
  });
  // A stop ends a request at once: a queue that is away does not hold up Ctrl-C.
  const stopped = new Promise<never>((_, reject) => {
    options.signal?.addEventListener("abort", () => reject(STOPPED), { once: true });
  });
  stopped.catch(() => undefined);
  const guarded = <T>(what: Promise<T>): Promise<T> =>
    withDeadline(Promise.race([what, stopped]), OUTAGE_S * 1000, () =>
      lost(conn.display, conn.secrets, queueError),
    );
  try {
    await guarded(expire(queue));
    const indexOf = new Map(ids.map((id, i) => [id, i]));
    /** The job of cell `id`, as BullMQ's add takes it. */
    const cellJob = (id: string, enqueuedAt: number) => {
      const i = indexOf.get(id)!;
      const data: CellJobData = {
        v: 1,
        sweep: sweepId,
        hash: hashes[i]!,
        scenario: scenarios[i],
        overBudget: options.overBudget === true,
        enqueuedAt,
      };
      return {
        name: "cell",
        data,
        opts: {
          jobId: id,
          attempts: ATTEMPTS,
          backoff: { type: "fixed", delay: 1000 },
          removeOnComplete: { age: RESULT_TTL_S },
          removeOnFail: { age: RESULT_TTL_S },
        },
      };
    };
    const existing = await guarded(Promise.all(unique.map((id) => Job.fromId<CellJobData>(queue, id))));
    const states = await guarded(Promise.all(existing.map((job) => job?.getState())));
    const toAdd: string[] = [];
    for (let k = 0; k < unique.length; k++) {
      const id = unique[k]!;
      const job = existing[k];
      if (job === undefined) toAdd.push(id);
      else if (states[k] === "completed") {
        const m = decodeMetrics(job.returnvalue);
        if (m === null) {
          // Not a result scanlab wrote: run the cell again.
          await guarded(job.remove());
          toAdd.push(id);
        } else {
          metricsById.set(id, m);
          progress.reused++;
          progress.done++;
        }
      } else if (states[k] === "failed" && !job.failedReason?.startsWith(INVALID_CELL)) {
        // Lost with its workers, or an internal error: worth another try now.
        await guarded(job.retry("failed"));
      }
    }
    const now = Date.now();
    await guarded(queue.addBulk(toAdd.map((id) => cellJob(id, now))));
    const client = (await guarded(queue.client)) as unknown as Redis;
    await guarded(expireKeys(client, queue, toAdd, CELL_TTL_S));
    options.onProgress?.({ ...progress });
    const pollMs = options.pollMs ?? POLL_MS;
    while (metricsById.size < unique.length) {
      if (options.signal?.aborted) return finish(true);
      const pending = unique.filter((id) => !metricsById.has(id));
      const states = await guarded(Promise.all(pending.map((id) => queue.getJobState(id))));
      let running = 0;
      for (let k = 0; k < pending.length; k++) {
        const id = pending[k]!;
        const state = states[k]!;
        if (state === "active") running++;
        else if (state === "completed" || state === "failed") {
          const job = await guarded(Job.fromId<CellJobData>(queue, id));
          if (job === undefined) continue;
          if (state === "failed") {
            progress.failed++;
            options.onProgress?.({ ...progress, running });
            const cell = indexOf.get(id)!;
            const reason = redactUrls(job.failedReason ?? "no reason given", conn.secrets).replace(
              /[.\s]+$/,
              "",
            );
            throw new QueueError(`Cell ${cell + 1} of sweep ${sweepId} failed on a worker: ${reason}.`, {
              code: "QUEUE_CELL_FAILED",
              runtime: true,
              cell,
              reason,
            });
          }
          const m = decodeMetrics(job.returnvalue);
          if (m === null)
            throw new QueueError(
              `Cell ${indexOf.get(id)! + 1} of sweep ${sweepId} has a result that is not row metrics.`,
              {
                code: "QUEUE_CELL_FAILED",
                runtime: true,
                cell: indexOf.get(id)!,
                reason: "its result is not row metrics",
              },
            );
          metricsById.set(id, m);
          progress.done++;
          progress.retried += Math.max(0, (job.attemptsStarted ?? 1) - 1);
        } else if (state === "unknown") {
          // Removed under us (expired, lost with a Redis that keeps no data, or by hand): put it back.
          const job = cellJob(id, Date.now());
          await guarded(queue.add(job.name, job.data, job.opts));
          await guarded(expireKeys(client, queue, [id], CELL_TTL_S));
        }
      }
      progress.running = running;
      options.onProgress?.({ ...progress });
      if (metricsById.size < unique.length) await sleep(pollMs, options.signal);
    }
    progress.running = 0;
    // The results are kept RESULT_TTL_S from their sweep's last use.
    await guarded(expireKeys(client, queue, unique, RESULT_TTL_S));
    return finish(false);
  } catch (e) {
    if (e === STOPPED) return finish(metricsById.size < unique.length);
    if (e instanceof QueueError) throw e;
    throw describeFailure(conn, e);
  } finally {
    await closeQueue(queue);
  }
}

/**
 * Closes the sweep's queue within {@link CLOSE_MS}, or drops its connection:
 * a queue whose connection is lost (or reconnecting) would wait for it.
 */
async function closeQueue(queue: Queue): Promise<void> {
  const closing = queue.close();
  closing.catch(() => undefined);
  const closed = await withDeadline(closing, CLOSE_MS, () => new Error("close timed out")).then(
    () => true,
    () => false,
  );
  // Not awaited: the client of a connection that never came up is never handed out.
  if (!closed)
    void queue.client.then(
      (c) => c.disconnect(),
      () => undefined,
    );
}

/** Removes finished cells older than {@link RESULT_TTL_S} and waiting ones older than {@link CELL_TTL_S}. */
async function expire(queue: Queue): Promise<void> {
  await queue.clean(RESULT_TTL_S * 1000, 1000, "completed");
  await queue.clean(RESULT_TTL_S * 1000, 1000, "failed");
  await queue.clean(CELL_TTL_S * 1000, 1000, "wait");
}

function lost(display: string, secrets: readonly string[], cause: unknown): QueueError {
  const why = cause === null ? "" : ` (${redactUrls(errorClause(cause), secrets)})`;
  return new QueueError(
    `Lost the queue at ${display} for more than ${OUTAGE_S} s${why}; start the sweep again with the same --sweep-id to reuse the finished cells.`,
    { code: "QUEUE_LOST", runtime: true, cause },
  );
}

/** `what`, or the error of `onTimeout` when it takes longer than `ms`. */
function withDeadline<T>(what: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([what, deadline]).finally(() => clearTimeout(timer));
}

/** Waits `ms`, or less when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
