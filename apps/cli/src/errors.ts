/**
 * Exit codes and user errors of the `scanlab` command.
 *
 * The convention (apps/docs/src/reference/design.md#conventions, issue 8): a mistake the user can
 * fix (a bad flag value, an unknown name, a missing or broken file) is one
 * line on stderr naming what was wrong and what to do, exit status 2, and no
 * stack trace unless `--debug`. Every scanlab package brands such errors with
 * `userError === true` and a stable `code`, so the CLI recognises them without
 * importing the package's error class. A failure at run time that is nobody's
 * mistake on the command line (a user's work module that throws, a read the
 * device refused) is branded `runtime === true` as well: one sentence, exit 1.
 * A run that fails for any other reason exits 1 as an internal error; a run
 * stopped by SIGINT (Ctrl-C) or SIGTERM prints what was finished and exits
 * 130 or 143 (128 + the signal's number, the shell convention).
 */

/** Exit statuses of `scanlab`. */
export const EXIT = {
  /** The command did what was asked. */
  ok: 0,
  /** The run failed (an internal error, or `--strict` and a statement does not hold). */
  failed: 1,
  /** Bad usage or bad input: a flag, a name, a file. */
  usage: 2,
  /** Stopped by Ctrl-C (SIGINT); what was finished has been printed. */
  interrupted: 130,
  /** Stopped by SIGTERM; what was finished has been printed. */
  terminated: 143,
} as const;

/** A user error raised by the CLI itself (flag values, names, files). */
export class CliError extends Error {
  /** Brand shared by every scanlab package's user errors. */
  readonly userError = true;
  /** Stable machine-readable code, e.g. `CLI_BAD_SIZE`. */
  readonly code: string;

  /**
   * @param code stable code
   * @param message one sentence naming what was wrong and what to do
   */
  constructor(code: string, message: string) {
    super(message);
    this.name = "CliError";
    this.code = code;
  }
}

/** An error any scanlab package raised for bad user input (`userError === true`). */
export interface BrandedUserError extends Error {
  /** The brand every scanlab package puts on errors a user can cause. */
  readonly userError: true;
  /** The package's stable error code, when it has one. */
  readonly code?: string;
}

/** True for any scanlab package's user error, recognised by its brand rather than its class. */
export function isUserError(e: unknown): e is BrandedUserError {
  return typeof e === "object" && e !== null && (e as { userError?: unknown }).userError === true;
}

/** A user error that happened at run time, not in the command line (`runtime === true`): exit 1, not 2. */
export function isRuntimeFailure(e: unknown): boolean {
  return isUserError(e) && (e as { runtime?: unknown }).runtime === true;
}

/** Thrown (internally) when a Ctrl-C stopped a command after it printed what was finished. */
export class Interrupted extends Error {
  constructor() {
    super("interrupted");
    this.name = "Interrupted";
  }
}

/** Collapses a message to one line (package messages are one sentence already; this is a guard). */
export function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, " ").trim();
}
