/**
 * Errors a user of this package can cause: a negative size, an unknown
 * version string, an unknown model name, a file the kernel measurement tool
 * cannot use. They follow the scanlab convention (apps/docs/src/reference/design.md#conventions):
 * one clear sentence naming what was wrong, `name` set to the class name,
 * and a stable `code`; they extend `ScanlabError` (`@scanlab/core`), so the
 * CLI recognises them with `ScanlabError.isInstance` without importing this
 * package. Programming errors (reading past a file's end,
 * resuming a finished read) throw plain `RangeError`s.
 */

import { ScanlabError } from "@scanlab/core";

/** Stable codes of {@link ReadaheadError}; new codes may be added, existing ones never change meaning. */
export type ReadaheadErrorCode =
  | "READAHEAD_BAD_PARAMETER"
  | "READAHEAD_UNKNOWN_VERSION"
  | "READAHEAD_UNKNOWN_MODEL"
  | "READAHEAD_MEASUREMENT_UNAVAILABLE";

/**
 * A user error with one sentence saying what was wrong.
 *
 * @example
 * ```ts
 * import { ReadaheadError, linuxReadahead, PageCache } from "@scanlab/readahead";
 * try {
 *   linuxReadahead(new PageCache(), { version: "5.x" as never });
 * } catch (e) {
 *   if (e instanceof ReadaheadError) console.log(e.code, e.message);
 *   // READAHEAD_UNKNOWN_VERSION Linux readahead version "5.x" is unknown; use "<=6.9" or ">=6.10".
 * }
 * ```
 */
export class ReadaheadError extends ScanlabError {
  /** Stable machine-readable code. */
  declare readonly code: ReadaheadErrorCode;

  /** @param code stable code; @param message one sentence naming what was wrong. */
  constructor(code: ReadaheadErrorCode, message: string) {
    super(message, { code });
    this.name = "ReadaheadError";
  }
}

/** Throws a {@link ReadaheadError} unless `value` is a finite number >= `min` (and an integer when asked). */
export function checkNumber(
  what: string,
  value: unknown,
  opts: { min?: number; integer?: boolean; allowInfinity?: boolean } = {},
): number {
  const min = opts.min ?? 0;
  const ok =
    typeof value === "number" &&
    !Number.isNaN(value) &&
    (Number.isFinite(value) || (opts.allowInfinity === true && value === Number.POSITIVE_INFINITY)) &&
    value >= min &&
    (opts.integer !== true || !Number.isFinite(value) || Number.isInteger(value));
  if (!ok) {
    const kind = opts.integer === true ? "an integer" : "a number";
    throw new ReadaheadError(
      "READAHEAD_BAD_PARAMETER",
      `${what} must be ${kind} >= ${min}, got ${JSON.stringify(value) ?? String(value)}.`,
    );
  }
  return value as number;
}
