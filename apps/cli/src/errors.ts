/**
 * Exit codes and user errors of the `scanlab` command.
 *
 * The convention (apps/docs/src/reference/design.md#conventions): a mistake the user can
 * fix (a bad flag value, an unknown name, a missing or broken file) is one
 * line on stderr naming what was wrong and what to do, exit status 2, and no
 * stack trace unless `--debug`. Every scanlab package raises such errors as a
 * `ScanlabError` (`@scanlab/core`) of kind "user" with a stable `code`, so the
 * CLI recognises them with `ScanlabError.isInstance` without importing the
 * package's error class. A failure at run time that is nobody's
 * mistake on the command line (a user's work module that throws, a read the
 * device refused) is branded `runtime === true` as well: one sentence, exit 1.
 * A run that fails for any other reason exits 1 as an internal error; a run
 * stopped by SIGINT (Ctrl-C) or SIGTERM prints what was finished and exits
 * 130 or 143 (128 + the signal's number, the shell convention).
 */

import { ScanlabError } from "@scanlab/core";

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
export class CliError extends ScanlabError {
  /** Stable machine-readable code, e.g. `CLI_BAD_SIZE`. */
  declare readonly code: string;

  /**
   * @param code stable code
   * @param message one sentence naming what was wrong and what to do
   */
  constructor(code: string, message: string) {
    super(message, { code });
    this.name = "CliError";
  }
}

/** An error any scanlab package raised for bad user input: a `ScanlabError` (`@scanlab/core`) of kind "user". */
export type BrandedUserError = ScanlabError;

/** True for any scanlab package's user error, from any copy of `@scanlab/core` (`ScanlabError.isInstance`). */
export function isUserError(e: unknown): e is BrandedUserError {
  return ScanlabError.isInstance(e) && e.kind === "user";
}

/** A user error that happened at run time, not in the command line (`runtime === true`): exit 1, not 2. */
export function isRuntimeFailure(e: unknown): boolean {
  return isUserError(e) && (e as { runtime?: unknown }).runtime === true;
}

/** Collapses a message to one line (package messages are one sentence already; this is a guard). */
export function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, " ").trim();
}
