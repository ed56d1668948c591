/**
 * User errors of `@scanlab/read-stream`.
 *
 * Everything a user can get wrong when configuring a stream (a version that is
 * not modelled, an effective_io_concurrency or io_combine_limit outside the
 * range PostgreSQL accepts, an unknown io_method, a pool size that cannot
 * exist) throws a {@link ReadStreamError}: one sentence naming what was wrong,
 * a stable `code` and `name = "ReadStreamError"`. It extends `ScanlabError`
 * (`@scanlab/core`), so the CLI recognises it with `ScanlabError.isInstance`
 * without importing this package. Programming errors (calling the state
 * machine out of order, for example `resume` without a pending wait) throw
 * plain `Error`s.
 */

import { ioConcurrencyProblem, ScanlabError } from "@scanlab/core";

/** Stable codes of {@link ReadStreamError}; new codes may be added, existing ones never change meaning. */
export type ReadStreamErrorCode =
  | "READ_STREAM_BAD_EIC"
  | "READ_STREAM_BAD_IO_COMBINE_LIMIT"
  | "READ_STREAM_BAD_VERSION"
  | "READ_STREAM_BAD_IO_METHOD"
  | "READ_STREAM_BAD_PARAMETER";

/**
 * A stream configuration PostgreSQL would not accept, with one clear sentence.
 *
 * @example
 * ```ts
 * try {
 *   readStreamConfig({ version: 18, effectiveIoConcurrency: 5000 });
 * } catch (e) {
 *   if (e instanceof ReadStreamError) console.error(e.code, e.message);
 * }
 * ```
 */
export class ReadStreamError extends ScanlabError {
  /** Stable machine-readable code. */
  declare readonly code: ReadStreamErrorCode;

  /** @param code stable code; @param message one sentence naming what was wrong. */
  constructor(code: ReadStreamErrorCode, message: string) {
    super(message, { code });
    this.name = "ReadStreamError";
  }
}

/**
 * Throws READ_STREAM_BAD_EIC unless `value` is an effective_io_concurrency a
 * server accepts: an integer from 0 to MAX_IO_CONCURRENCY. @internal
 */
export function validateIoConcurrency(value: number, name = "effective_io_concurrency"): number {
  const problem = ioConcurrencyProblem(value, name);
  if (problem !== null) throw new ReadStreamError("READ_STREAM_BAD_EIC", problem);
  return value;
}
