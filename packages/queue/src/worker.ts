/**
 * A queue worker: takes cells from the queue, runs each on a thread, and
 * stores its result on the queue under the cell's job id (sweep id and cell
 * hash). Any number of workers may serve one queue from any number of
 * machines; BullMQ hands each cell to one of them at a time.
 *
 * What a worker trusts: nothing in a cell. A cell is data (a scenario, its
 * hash, its sweep id and two flags), checked field by field here and by the
 * simulator's schema on the thread; it names no code, no file and no
 * command, and the worker runs none. A cell that fails the checks fails for
 * good at once (BullMQ's UnrecoverableError): it would fail the same way on
 * every worker. Any other failure (a thread that crashed) is tried again, at
 * most {@link ATTEMPTS} times in all, and a cell whose worker died is handed
 * on at most {@link MAX_LOST} times.
 *
 * Stopping: when `signal` aborts, the worker takes no new cell, lets the
 * cells it is running finish and store their results, and closes. No step
 * of the stop waits for ever: the cells on its threads finish within the
 * simulator's work budget; storing their results may wait {@link OUTAGE_S}
 * for a queue that is away; the connections are then dropped without waiting
 * on them (BullMQ's own close waits for a connection's end, which a
 * connection that is between two attempts to reconnect never reaches).
 *
 * Expiry: each finished cell (result or failure) and the queue's own keys
 * are given {@link RESULT_TTL_S} as soon as the cell is stored (expiry.ts).
 */
import { availableParallelism } from "node:os";
import { errorClause } from "@scanlab/core";
import { type Job, UnrecoverableError, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { type CellJobData, cellJobId } from "./cell.js";
import { lastingOptions, probe } from "./connect.js";
import { expireKeys } from "./expiry.js";
import {
  ATTEMPTS,
  CELL_TTL_S,
  KEY_PREFIX,
  LOCK_MS,
  MAX_CELL_BYTES,
  MAX_LOST,
  OUTAGE_S,
  QUEUE_NAME,
  RESULT_TTL_S,
  RETRY_MS,
  STALL_CHECK_MS,
} from "./settings.js";
import { CellThreads } from "./threads.js";
import { parseQueueUrl, redactUrls } from "./url.js";

/** The start of the reason of a cell that failed for good because of what it holds. */
export const INVALID_CELL = "invalid cell";

/** Options of {@link runWorker}. */
export interface WorkerOptions {
  /** The queue's URL (`redis://...` or `rediss://...`). */
  url: string;
  /** Cells run at once, each on its own thread (default: the machine's available parallelism). */
  jobs?: number;
  /** Where the worker's log lines go (one line each, passwords redacted); default: nowhere. */
  log?: (line: string) => void;
  /** Aborting it stops the worker: no new cell, the running ones finish, then it closes. */
  signal?: AbortSignal;
  /** Called once the worker is connected and waiting for cells. */
  onReady?: () => void;
}

/** What a worker did before it stopped. */
export interface WorkerSummary {
  /** Cells run to a result. */
  done: number;
  /** Cells that failed on this worker (invalid, or an internal error). */
  failed: number;
}

/**
 * Checks the data of a job as a cell and returns it; throws
 * UnrecoverableError naming the first problem.
 */
export function checkCell(data: unknown, jobId: string | undefined, now = Date.now()): CellJobData {
  const bad = (why: string): never => {
    throw new UnrecoverableError(`${INVALID_CELL}: ${why}`);
  };
  if (data === null || typeof data !== "object" || Array.isArray(data)) bad("its data is not an object");
  const d = data as Record<string, unknown>;
  let size = 0;
  try {
    size = JSON.stringify(d).length;
  } catch {
    bad("its data is not JSON");
  }
  if (size > MAX_CELL_BYTES) bad(`it is ${size} bytes of JSON, over the ${MAX_CELL_BYTES} a cell may take`);
  const keys = Object.keys(d).sort().join(",");
  if (keys !== "enqueuedAt,hash,overBudget,scenario,sweep,v")
    bad(`its fields are ${keys}, not those of a cell`);
  if (d.v !== 1) bad(`its format ${String(d.v)} is not 1`);
  if (typeof d.sweep !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(d.sweep)) bad("its sweep id is not one");
  if (typeof d.hash !== "string" || !/^[0-9a-f]{64}$/.test(d.hash)) bad("its hash is not a SHA-256 in hex");
  if (typeof d.overBudget !== "boolean") bad("its overBudget is not true or false");
  if (typeof d.enqueuedAt !== "number" || !Number.isFinite(d.enqueuedAt)) bad("its enqueuedAt is not a time");
  if (d.scenario === null || typeof d.scenario !== "object" || Array.isArray(d.scenario))
    bad("its scenario is not an object");
  if (jobId !== cellJobId(d.sweep as string, d.hash as string))
    bad("its job id is not its sweep id and hash");
  if (now - (d.enqueuedAt as number) > CELL_TTL_S * 1000)
    bad(`it waited on the queue longer than ${CELL_TTL_S / 86400} days`);
  return d as unknown as CellJobData;
}

/**
 * Serves cells from the queue until `signal` aborts; resolves with what it
 * did once it has closed.
 *
 * @throws QueueError when the queue cannot be reached or refuses the credentials
 * @example
 * ```ts
 * import { runWorker } from "@scanlab/queue";
 * const stop = new AbortController();
 * process.once("SIGTERM", () => stop.abort()); // finish the running cells, then close
 * const done = await runWorker({ url: "redis://127.0.0.1:6379/0", signal: stop.signal, log: console.error });
 * console.log(done); // { done: 48, failed: 0 }
 * ```
 */
export async function runWorker(options: WorkerOptions): Promise<WorkerSummary> {
  const conn = parseQueueUrl(options.url);
  const log = (line: string) => options.log?.(redactUrls(line, conn.secrets));
  if (options.signal?.aborted) return { done: 0, failed: 0 };
  await probe(conn);
  const jobs = Math.max(1, options.jobs ?? availableParallelism());
  const threads = new CellThreads(jobs);
  const summary: WorkerSummary = { done: 0, failed: 0 };
  /** Cells taken whose result is not stored yet. */
  const unstored = new Set<string>();
  /** Cells on the threads now, and a wake-up for the stop waiting for them. */
  let onThreads = 0;
  let threadsIdle: (() => void) | null = null;
  const worker = new Worker<CellJobData>(
    QUEUE_NAME,
    async (job) => {
      if (job.id !== undefined) unstored.add(job.id);
      onThreads++;
      try {
        return await runCell(job, threads, log);
      } finally {
        onThreads--;
        if (onThreads === 0) threadsIdle?.();
      }
    },
    {
      connection: lastingOptions(conn),
      prefix: KEY_PREFIX,
      concurrency: jobs,
      lockDuration: LOCK_MS,
      stalledInterval: STALL_CHECK_MS,
      maxStalledCount: MAX_LOST,
      runRetryDelay: RETRY_MS,
      // Run below, each check bounded: BullMQ's own loop waits on each check, so a reply lost
      // with a connection would end its checks for good and leave a lost cell claimed for ever.
      skipStalledCheck: true,
      autorun: false,
    },
  );
  // A renewal of claims lost with a connection must not end the renewals: each is bounded.
  const extend = worker.extendJobLocks.bind(worker);
  worker.extendJobLocks = (ids, tokens, duration) =>
    withDeadline(extend(ids, tokens, duration), LOCK_MS / 2, "the renewal of claims timed out");
  /** The stalled-job checks: one every STALL_CHECK_MS, each given up after LOCK_MS. */
  let checking = true;
  let checkTimer: NodeJS.Timeout | undefined;
  const checkStalled = () => {
    if (!checking) return;
    const check = (worker as unknown as StallChecks).moveStalledJobsToWait();
    void withDeadline(check, LOCK_MS, "the stalled-cell check timed out")
      .catch((e: unknown) => worker.emit("error", e as Error))
      .then(() => {
        if (checking) checkTimer = setTimeout(checkStalled, STALL_CHECK_MS);
      });
  };
  let lastError = "";
  worker.on("error", (e) => {
    // A lost connection repeats its error on every reconnection attempt: one line per change.
    const text = errorClause(e);
    if (text !== lastError) log(`queue error on ${conn.display} (${text}); reconnecting.`);
    lastError = text;
  });
  /** Expiries being set, awaited by the stop. */
  const expiring = new Set<Promise<void>>();
  /** Gives a stored cell, and the queue's keys, their expiry; a failure here is made up for by the next cell's. */
  const expire = (id: string | undefined) => {
    if (id === undefined) return;
    unstored.delete(id);
    const setting = worker.client
      .then((c) => expireKeys(c as unknown as Redis, worker, [id], RESULT_TTL_S))
      .catch(() => undefined)
      .finally(() => expiring.delete(setting));
    expiring.add(setting);
  };
  worker.on("completed", (job) => {
    summary.done++;
    lastError = "";
    expire(job.id);
  });
  worker.on("failed", (job, e) => {
    summary.failed++;
    log(`cell ${job?.id ?? "?"} failed: ${errorClause(e)}.`);
    expire(job?.id);
  });
  const stopped = new Promise<void>((resolve) => {
    if (options.signal === undefined) return;
    options.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  log(
    `serving ${conn.display} (queue ${QUEUE_NAME}) as worker ${worker.id} with ${jobs} thread${jobs === 1 ? "" : "s"}.`,
  );
  const running = worker.run();
  running.catch(() => undefined);
  /** The connection that waits for cells, once the worker is ready. */
  let waiting: Redis | undefined;
  try {
    // A queue lost between the probe and here is waited for, until stopped.
    const ready = await Promise.race([
      worker.waitUntilReady().then((c) => {
        waiting = c as unknown as Redis;
        return true;
      }),
      stopped.then(() => false),
      running.then(() => false),
    ]);
    if (ready) {
      checkStalled();
      options.onReady?.();
      await Promise.race([stopped, running]);
    }
  } finally {
    // Take no new cell. The wait for one ends at once when its connection is up (or within
    // BullMQ's block of 10 s when it is not): it is closed under it.
    checking = false;
    clearTimeout(checkTimer);
    await worker.pause(true).catch(() => undefined);
    if (waiting?.status === "ready") waiting.disconnect();
    // The cells on the threads finish (they are bounded by the simulator's work budget).
    if (onThreads > 0) await new Promise<void>((resolve) => (threadsIdle = resolve));
    // Their results are stored, within OUTAGE_S of a queue that is away.
    const limit = unstored.size > 0 ? OUTAGE_S * 1000 : CLOSE_MS;
    if (!(await settles(running, limit)) && unstored.size > 0)
      log(
        `the queue at ${conn.display} did not take the result of ${unstored.size} cell${unstored.size === 1 ? "" : "s"} within ${OUTAGE_S} s; ${unstored.size === 1 ? "it goes" : "they go"} back to the queue when the claim lapses.`,
      );
    await settles(Promise.all(expiring), CLOSE_MS);
    // Force: drop the connections without waiting for them.
    await settles(worker.close(true), CLOSE_MS);
    await threads.close();
  }
  log(`stopped: ${summary.done} cell${summary.done === 1 ? "" : "s"} done, ${summary.failed} failed.`);
  return summary;
}

/** How long the last steps of a stop may take (the wait for a cell ending, closing): 15 s. */
const CLOSE_MS = 15_000;

/** BullMQ's stalled-job check of a worker (moves cells whose claim lapsed back to the queue). */
interface StallChecks {
  moveStalledJobsToWait(): Promise<void>;
}

/** `what`, or a rejection with `why` when it takes longer than `ms`. */
function withDeadline<T>(what: Promise<T>, ms: number, why: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(why)), ms);
  });
  return Promise.race([what, late]).finally(() => clearTimeout(timer));
}

/** True when `what` settles within `ms`. */
async function settles(what: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const done = what.then(
    () => true,
    () => true,
  );
  try {
    return await Promise.race([done, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs one job: the cell checked, simulated on a thread, its metrics returned for BullMQ to store. */
async function runCell(job: Job<CellJobData>, threads: CellThreads, log: (line: string) => void) {
  const cell = checkCell(job.data, job.id);
  // The thread checks the scenario (as a scenario file is checked), then that it is the one the hash names.
  const answer = await threads.run({ scenario: cell.scenario, hash: cell.hash, overBudget: cell.overBudget });
  if (answer.ok) return answer.metrics;
  if (answer.invalid) throw new UnrecoverableError(`${INVALID_CELL}: ${answer.message}`);
  log(`cell ${job.id} hit an internal error (${answer.message}); it is tried at most ${ATTEMPTS} times.`);
  throw new Error(answer.message);
}
