/**
 * `scanlab worker --queue URL [--jobs N]`: serves the cells that
 * `scanlab sweep --queue` puts on a job queue, until SIGINT or SIGTERM. The
 * work (checking each cell like a scenario file, running it on a thread,
 * storing its result) is `runWorker` of @scanlab/queue; this command wires
 * its log to stderr and its stop to the signals.
 *
 * A signal is a worker's normal end: it takes no new cell, finishes the
 * running ones and exits 0. A second signal quits at once (the Interrupt's
 * rule); the queue then hands the unfinished cells to another worker.
 */
import type { Ctx } from "../context.js";
import { EXIT } from "../errors.js";
import { again } from "../interrupt.js";
import { parseJobs } from "../workers/pool.js";
import { loadQueue, queueFailure } from "./queue-run.js";

/** Options of `worker`. */
export interface WorkerFlags extends Record<string, unknown> {
  queue: string;
  jobs?: string;
}

/** Runs `worker`. */
export async function workerCommand(ctx: Ctx, flags: WorkerFlags): Promise<number> {
  const jobs = parseJobs(flags.jobs);
  const { runWorker } = await loadQueue();
  ctx.interrupt.catch(
    (signal) =>
      `scanlab worker: ${signal === "SIGINT" ? "interrupted" : "SIGTERM"}; taking no new cell, finishing the running ones and storing their results (${again(signal)} to quit now).\n`,
  );
  try {
    await runWorker({
      url: flags.queue,
      jobs,
      signal: ctx.interrupt.signal,
      log: (line) => ctx.err(`scanlab worker: ${line}`),
    });
  } catch (e) {
    throw await queueFailure(e, flags.queue);
  } finally {
    ctx.interrupt.release();
  }
  return EXIT.ok;
}
