/**
 * A small pool of simulator worker threads (see protocol.ts): tasks are
 * handed out in order to at most `jobs` workers; answers come back in any
 * order and are returned in task order. After Ctrl-C no new task starts, and
 * the running ones stop at their next poll of the stop flag.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { Answer, Task, TaskMessage, WireError, WorkerMessage } from "./protocol.js";

/** Options of {@link runPool}. */
export interface PoolOptions {
  /** Threads at most (default: the machine's available parallelism). */
  jobs?: number;
  /** The shared stop flag (Interrupt.flag). */
  flag: Int32Array;
  /** A task reports a step (a target's row). */
  onProgress?(task: number, step: string): void;
  /** A task finished. */
  onDone?(task: number, answer: Answer): void;
}

/** Threads to use by default: one per core the process may use. */
export function defaultJobs(): number {
  return Math.max(1, availableParallelism());
}

/** Rebuilds a worker's error in the main thread, keeping the user-error brand and code. */
export function unwire(w: WireError): Error {
  const e = new Error(w.message) as Error & { userError?: boolean; code?: string };
  e.name = w.name;
  if (w.stack !== undefined) e.stack = w.stack;
  if (w.userError) Object.defineProperty(e, "userError", { value: true, enumerable: true });
  if (w.code !== undefined) e.code = w.code;
  return e;
}

/**
 * Runs the tasks on worker threads. Resolves with one answer per task
 * (undefined for tasks never started because of Ctrl-C); rejects with the
 * first task error.
 */
export async function runPool(tasks: readonly Task[], options: PoolOptions): Promise<(Answer | undefined)[]> {
  const answers: (Answer | undefined)[] = new Array(tasks.length).fill(undefined);
  if (tasks.length === 0) return answers;
  const jobs = Math.max(1, Math.min(options.jobs ?? defaultJobs(), tasks.length));
  const url = new URL("./sim-worker.js", import.meta.url);
  const stopped = () => Atomics.load(options.flag, 0) === 1;
  let next = 0;
  let failure: Error | null = null;

  await new Promise<void>((resolve) => {
    let live = 0;
    const start = () => {
      const worker = new Worker(url, { workerData: { flag: options.flag } });
      live++;
      const feed = () => {
        if (failure !== null || stopped() || next >= tasks.length) {
          void worker.terminate();
          return;
        }
        const msg: TaskMessage = { task: next, payload: tasks[next]! };
        next++;
        worker.postMessage(msg);
      };
      worker.on("message", (m: WorkerMessage) => {
        if (m.type === "progress") {
          options.onProgress?.(m.task, m.step);
          return;
        }
        if (m.type === "done") {
          answers[m.task] = m.answer;
          options.onDone?.(m.task, m.answer);
        } else {
          failure ??= unwire(m.error);
        }
        feed();
      });
      worker.on("error", (e) => {
        failure ??= e;
      });
      worker.on("exit", () => {
        live--;
        if (live === 0) resolve();
      });
      feed();
    };
    for (let i = 0; i < jobs; i++) start();
  });
  if (failure !== null) throw failure;
  return answers;
}
