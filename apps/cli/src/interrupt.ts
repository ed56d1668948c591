/**
 * Ctrl-C and `kill`: SIGINT and SIGTERM stop a long command cleanly.
 *
 * Problem. A long command (`scan`, `sweep`, `reproduce`, `calibrate`,
 * `simulate`, `advise`) holds worker threads, child processes (fio) and
 * scratch files (calibrate's test file beside the user's file). Killed by
 * the signal's default action, the process leaves the scratch files behind,
 * its children run on without it, nothing of what it finished is printed,
 * and the shell sees a death by signal instead of the conventional 128 + n.
 *
 * Insight. Both signals mean "stop now, tidily": the same stop flag serves
 * both. The first one raises it (an AbortSignal for file-scan and the
 * measurements, and a shared Int32Array that simulator worker threads poll
 * between events); each layer stops at its next check, its `finally` blocks
 * remove scratch files and stop children, and the command prints what was
 * finished and exits 128 + the signal's number: 130 for SIGINT, 143 for
 * SIGTERM.
 *
 * Choices.
 * - A second signal quits at once with the same status. Scratch files and
 *   children are still taken care of: their owners register `exit` hooks
 *   (process.exit runs them).
 * - Handlers are installed only while a command runs something long
 *   (`catch` ... `release`), so a quick command keeps the default action.
 */
import { EXIT } from "./errors.js";

/** The signals a long command stops cleanly on. */
export type StopSignal = "SIGINT" | "SIGTERM";

/** Exit status for a stop by each signal: 128 + its number. */
const STATUS: Record<StopSignal, number> = { SIGINT: EXIT.interrupted, SIGTERM: EXIT.terminated };

/** How a second signal of the same kind is named: "Ctrl-C again" or "the signal again". */
export function again(signal: StopSignal): string {
  return `${signal === "SIGINT" ? "Ctrl-C" : "the signal"} again`;
}

/** The stop state of one command run. */
export class Interrupt {
  /** Aborted on the first signal. */
  readonly controller = new AbortController();
  /** Element 0 becomes 1 on the first signal (shared with worker threads). */
  readonly flag = new Int32Array(new SharedArrayBuffer(4));
  /** The first signal received, or null. */
  received: StopSignal | null = null;
  private installed = false;
  private notice: ((signal: StopSignal) => string) | null = null;
  private readonly on = (signal: StopSignal): void => {
    if (this.stopped) {
      process.stderr.write(`\nscanlab: ${signal} again; quitting now.\n`);
      process.exit(STATUS[signal]);
    }
    this.received = signal;
    Atomics.store(this.flag, 0, 1);
    this.controller.abort();
    process.stderr.write(
      this.notice?.(signal) ??
        `\nscanlab: ${signal === "SIGINT" ? "interrupted" : "terminated (SIGTERM)"}; finishing cleanly and printing what was done (${again(signal)} to quit now).\n`,
    );
  };
  private readonly onSigint = (): void => this.on("SIGINT");
  private readonly onSigterm = (): void => this.on("SIGTERM");

  /** True once a stop signal arrived. */
  get stopped(): boolean {
    return Atomics.load(this.flag, 0) === 1;
  }

  /** The exit status of a stopped run: 130 after SIGINT, 143 after SIGTERM. */
  get exitCode(): number {
    return STATUS[this.received ?? "SIGINT"];
  }

  /** The abort signal (for file-scan and the measurements). */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /**
   * Starts catching SIGINT and SIGTERM. `notice` gives the line printed on
   * the first signal, for a command whose stop is not "print what was done"
   * (a queue worker); it ends with a newline.
   */
  catch(notice?: (signal: StopSignal) => string): void {
    if (notice !== undefined) this.notice = notice;
    if (this.installed) return;
    this.installed = true;
    process.on("SIGINT", this.onSigint);
    process.on("SIGTERM", this.onSigterm);
  }

  /** Stops catching them. */
  release(): void {
    if (!this.installed) return;
    this.installed = false;
    process.off("SIGINT", this.onSigint);
    process.off("SIGTERM", this.onSigterm);
  }
}
