/** A few cell threads (cell-thread.ts), started on demand and reused; a thread that dies is replaced. */
import { Worker } from "node:worker_threads";
import type { ThreadAnswer, ThreadTask } from "./thread-protocol.js";

interface Pending {
  resolve(answer: ThreadAnswer): void;
  reject(error: Error): void;
}

/** Threads that run cells: `run` resolves with the thread's answer. */
export class CellThreads {
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Pending>();
  private readonly waiting: Array<() => void> = [];
  private readonly url = new URL("./cell-thread.js", import.meta.url);
  private threads = 0;
  private next = 0;

  /** @param size threads at most */
  constructor(private readonly size: number) {}

  /** Runs one cell on a free thread (waiting for one when all are busy). */
  async run(task: Omit<ThreadTask, "id">): Promise<ThreadAnswer> {
    const worker = await this.take();
    return new Promise((resolve, reject) => {
      this.busy.set(worker, { resolve, reject });
      worker.postMessage({ ...task, id: this.next++ } satisfies ThreadTask);
    });
  }

  /** Ends every thread. */
  async close(): Promise<void> {
    const all = [...this.idle, ...this.busy.keys()];
    this.idle.length = 0;
    await Promise.all(all.map((w) => w.terminate()));
  }

  private take(): Promise<Worker> {
    const w = this.idle.pop();
    if (w !== undefined) return Promise.resolve(w);
    if (this.threads < this.size) return Promise.resolve(this.spawn());
    return new Promise((resolve) => {
      this.waiting.push(() => resolve(this.take()));
    });
  }

  private release(worker: Worker | null): void {
    if (worker !== null) this.idle.push(worker);
    this.waiting.shift()?.();
  }

  private spawn(): Worker {
    const worker = new Worker(this.url);
    this.threads++;
    worker.on("message", (answer: ThreadAnswer) => {
      const p = this.busy.get(worker);
      this.busy.delete(worker);
      this.release(worker);
      p?.resolve(answer);
    });
    worker.on("error", (e) => {
      const p = this.busy.get(worker);
      this.busy.delete(worker);
      this.threads--;
      this.release(null);
      p?.reject(e);
    });
    return worker;
  }
}
