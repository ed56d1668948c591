/**
 * A small pool of simulator worker threads (see protocol.ts): tasks are
 * handed out in the order they are queued to at most `jobs` workers; answers
 * come back in any order. `runPool` runs a fixed list and returns the answers
 * in task order; `SimPool` takes tasks as they come (reproduce queues a
 * target's rows once its calibration is done). After Ctrl-C no new task
 * starts, and the running ones stop at their next poll of the stop flag.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { ScanlabError } from "@scanlab/core";
import { parseIntFlag } from "../options.js";
import {
  type Answer,
  PROGRESS_SLOT,
  type Task,
  type TaskMessage,
  type WireError,
  type WorkerMessage,
} from "./protocol.js";

/** Most threads `--jobs` accepts (scanlab's bound: far above any core count it is run on). */
const MAX_JOBS = 256;

/** Parses `--jobs` (1 to {@link MAX_JOBS}); undefined when not given (then: one per core). */
export function parseJobs(raw: string | undefined): number | undefined {
  return raw === undefined ? undefined : parseIntFlag(raw, "jobs", 1, MAX_JOBS);
}

/** Options of {@link runPool}. */
export interface PoolOptions {
  /** Threads at most (default: the machine's available parallelism). */
  jobs?: number;
  /** The shared stop flag (Interrupt.flag). */
  flag: Int32Array;
  /**
   * A pool made (and perhaps warmed) by the caller, used instead of a new
   * one; it is closed when the tasks are done, like the pool runPool makes.
   */
  pool?: SimPool;
  /** A task finished. */
  onDone?(task: number, answer: Answer): void;
  /**
   * Called every {@link PROGRESS_TICK_MS} with each task's progress slot
   * (PROGRESS_SLOT layout; zeros until its worker reports): given, every
   * task carries a slot.
   */
  onProgress?(slots: readonly Float64Array[]): void;
}

/** How often a pool reads its tasks' progress (our choice: a smooth bar at a negligible cost). */
export const PROGRESS_TICK_MS = 250;

/** Threads to use by default: one per core the process may use. */
function defaultJobs(): number {
  return Math.max(1, availableParallelism());
}

/** Threads for `tasks` tasks with `--jobs` (undefined: one per core): never more than the tasks. */
export function localThreads(jobs: number | undefined, tasks: number): number {
  return Math.max(1, Math.min(jobs ?? defaultJobs(), tasks));
}

/** Rebuilds a worker's error in the main thread: a user error becomes a `ScanlabError` again, with its code. */
function unwire(w: WireError): Error {
  const e = w.userError
    ? new ScanlabError(w.message, { code: w.code ?? "USER_ERROR" })
    : (new Error(w.message) as Error & { code?: string });
  e.name = w.name;
  if (w.stack !== undefined) e.stack = w.stack;
  if (!w.userError && w.code !== undefined) (e as Error & { code?: string }).code = w.code;
  return e;
}

/** A task waiting for a thread. */
interface Queued {
  task: Task;
  priority: number;
  resolve(answer: Answer | undefined): void;
  reject(error: Error): void;
}

/**
 * Worker threads that take tasks as they come: `run` queues a task and
 * resolves with its answer. At most `jobs` threads, started on demand and
 * reused. After Ctrl-C (the stop flag) or a task's failure no queued task
 * starts: those resolve with undefined. `close` ends the threads.
 */
export class SimPool {
  private readonly queue: Queued[] = [];
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Queued>();
  private readonly jobs: number;
  private readonly url = new URL("./sim-worker.js", import.meta.url);
  private threads = 0;
  private sent = 0;
  private closed = false;
  /** The first task error: once set, nothing new starts. */
  failure: Error | null = null;

  constructor(private readonly options: { jobs?: number; flag: Int32Array }) {
    this.jobs = Math.max(1, options.jobs ?? defaultJobs());
  }

  /**
   * Runs one task on a thread; undefined when it never started (Ctrl-C, or
   * another task failed). Queued tasks start by priority (higher first), then
   * in the order they came.
   */
  run(task: Task, priority = 0): Promise<Answer | undefined> {
    return new Promise((resolve, reject) => {
      let at = this.queue.length;
      while (at > 0 && this.queue[at - 1]!.priority < priority) at--;
      this.queue.splice(at, 0, { task, priority, resolve, reject });
      this.pump();
    });
  }

  /**
   * Starts the pool's threads now, idle: each loads the simulator while the
   * caller still checks and estimates its tasks, instead of after.
   */
  warm(): void {
    while (!this.stopped() && this.threads < this.jobs) this.idle.push(this.spawn());
  }

  /** Ends every thread (running tasks are abandoned); closing again waits for the same end. */
  close(): Promise<void> {
    if (this.ending === null) {
      this.closed = true;
      this.drain();
      const all = [...this.idle, ...this.busy.keys()];
      this.idle.length = 0;
      this.busy.clear();
      this.ending = Promise.all(all.map((w) => w.terminate())).then(() => undefined);
    }
    return this.ending;
  }

  private ending: Promise<void> | null = null;

  private stopped(): boolean {
    return this.closed || this.failure !== null || Atomics.load(this.options.flag, 0) === 1;
  }

  /** Resolves every queued task as never started. */
  private drain(): void {
    for (const q of this.queue.splice(0)) q.resolve(undefined);
  }

  private pump(): void {
    if (this.stopped()) {
      this.drain();
      return;
    }
    while (this.queue.length > 0) {
      const worker = this.idle.pop() ?? (this.threads < this.jobs ? this.spawn() : undefined);
      if (worker === undefined) return;
      const q = this.queue.shift()!;
      this.busy.set(worker, q);
      const msg: TaskMessage = { task: this.sent++, payload: q.task };
      worker.postMessage(msg);
    }
  }

  private spawn(): Worker {
    const worker = new Worker(this.url, { workerData: { flag: this.options.flag } });
    this.threads++;
    worker.on("message", (m: WorkerMessage) => {
      const q = this.busy.get(worker);
      if (q === undefined) return;
      this.busy.delete(worker);
      this.idle.push(worker);
      if (m.type === "done") q.resolve(m.answer);
      else {
        const error = unwire(m.error);
        this.failure ??= error;
        q.reject(error);
      }
      this.pump();
    });
    worker.on("error", (e) => {
      this.failure ??= e;
      const q = this.busy.get(worker);
      this.busy.delete(worker);
      this.threads--;
      q?.reject(e);
      this.pump();
    });
    return worker;
  }
}

/**
 * Runs the tasks on worker threads. Resolves with one answer per task
 * (undefined for tasks never started because of Ctrl-C); rejects with the
 * first task error.
 */
export async function runPool(tasks: readonly Task[], options: PoolOptions): Promise<(Answer | undefined)[]> {
  const answers: (Answer | undefined)[] = new Array(tasks.length).fill(undefined);
  if (tasks.length === 0) {
    await options.pool?.close();
    return answers;
  }
  const pool =
    options.pool ??
    new SimPool({
      jobs: localThreads(options.jobs, tasks.length),
      flag: options.flag,
    });
  const { onProgress } = options;
  const slots =
    onProgress === undefined
      ? []
      : tasks.map(() => new Float64Array(new SharedArrayBuffer(8 * PROGRESS_SLOT.length)));
  const ticker = onProgress === undefined ? null : setInterval(() => onProgress(slots), PROGRESS_TICK_MS);
  ticker?.unref();
  try {
    await Promise.allSettled(
      tasks.map(async (task, i) => {
        const answer = await pool.run(slots[i] === undefined ? task : { ...task, progress: slots[i] });
        answers[i] = answer;
        if (answer !== undefined) options.onDone?.(i, answer);
      }),
    );
  } finally {
    if (ticker !== null) clearInterval(ticker);
    await pool.close();
  }
  if (pool.failure !== null) throw pool.failure;
  return answers;
}
