/**
 * The cells of a sweep run on a job queue (`--queue URL`) instead of local
 * threads: @scanlab/queue's `runSweepOnQueue` does the work; this file
 * draws its progress (cells done, running, failed and retried) on a
 * terminal, prints one summary line on stderr, and names a failed cell by
 * its point of the sweep.
 */
import type { RowMetrics, ScenarioInput } from "@scanlab/simulator";
import type { Ctx } from "../context.js";
import { CliError, isUserError } from "../errors.js";
import { Bars } from "../output/progress.js";

/** The queue's module. */
export type QueueModule = typeof import("@scanlab/queue");

/** The command that adds the queue backend beside scanlab. */
export const QUEUE_INSTALL = "npm install @scanlab/queue";

/**
 * Loads @scanlab/queue, or refuses `--queue` (and `worker`) in one sentence.
 * It is a package of its own, installed beside scanlab by those who run
 * sweeps across machines: BullMQ and the Redis client would double the size
 * of every other user's install.
 */
export async function loadQueue(): Promise<QueueModule> {
  try {
    return await import("@scanlab/queue");
  } catch {
    throw new CliError(
      "CLI_QUEUE_UNAVAILABLE",
      `a job queue needs the package @scanlab/queue, which is not installed: run "${QUEUE_INSTALL}" beside scanlab (the same version), or leave out --queue to run on this machine's threads.`,
    );
  }
}

/** Options of {@link runOnQueue}. */
export interface QueueRunFlags {
  /** The command, for its lines on stderr ("sweep", "advise"). */
  command: string;
  /** The queue's URL. */
  url: string;
  /** `--sweep-id`, when given. */
  sweepId?: string;
  /** `--over-budget`. */
  overBudget: boolean;
  /** The name of cell i in messages ("sweep point workers=2"). */
  label: (i: number) => string;
}

/** Row metrics of every cell (undefined: not finished), and whether the run was stopped first. */
export interface QueueRunResult {
  metrics: (RowMetrics | undefined)[];
  interrupted: boolean;
}

/** Any error of a queue run as a user error whose text shows no password. */
export async function queueFailure(e: unknown, url: string): Promise<unknown> {
  if (isUserError(e)) return e;
  const { redactUrls, parseQueueUrl } = await loadQueue();
  let secrets: readonly string[] = [];
  try {
    secrets = parseQueueUrl(url).secrets;
  } catch {
    // A malformed URL failed before anything ran; the regex still hides its password.
  }
  const err = e instanceof Error ? e : new Error(String(e));
  err.message = redactUrls(err.message, secrets);
  if (err.stack !== undefined) err.stack = redactUrls(err.stack, secrets);
  return err;
}

/** Runs the scenarios on the queue and collects their metrics in order. */
export async function runOnQueue(
  ctx: Ctx,
  scenarios: readonly ScenarioInput[],
  flags: QueueRunFlags,
): Promise<QueueRunResult> {
  const { QueueError, runSweepOnQueue } = await loadQueue();
  const bars = Bars.start(ctx, `${flags.command} {bar} {value}/{total} cells {step}`, {});
  const update = bars.add(scenarios.length, { step: "" });
  ctx.interrupt.catch();
  let run: Awaited<ReturnType<typeof runSweepOnQueue>>;
  try {
    run = await runSweepOnQueue(scenarios, {
      url: flags.url,
      sweepId: flags.sweepId,
      overBudget: flags.overBudget,
      signal: ctx.interrupt.signal,
      onProgress: (p) => {
        update(p.done, { step: `(${p.running} running, ${p.failed} failed, ${p.retried} retried)` });
      },
    });
  } catch (e) {
    bars.stop();
    if (e instanceof QueueError && e.code === "QUEUE_CELL_FAILED" && e.cell !== undefined) {
      const failed = new CliError(
        "CLI_QUEUE_CELL_FAILED",
        `${flags.label(e.cell)} failed on a queue worker: ${e.reason ?? e.message}.`,
      );
      // A failure while running, not a mistake in the command line: exit 1.
      (failed as CliError & { runtime: boolean }).runtime = true;
      throw failed;
    }
    throw await queueFailure(e, flags.url);
  } finally {
    ctx.interrupt.release();
  }
  bars.stop();
  const p = run.progress;
  ctx.err(
    `scanlab ${flags.command}: queue sweep ${run.sweepId}: ${p.done} of ${p.total} cells done (${p.reused} reused), ${p.failed} failed, ${p.retried} retried.`,
  );
  return { metrics: run.metrics, interrupted: run.interrupted };
}
