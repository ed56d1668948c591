/**
 * User errors of `@scanlab/workloads`.
 *
 * A data set that cannot exist (a table smaller than its layout needs, a
 * selectivity outside (0, 1], a pgbench scale or aid range out of bounds)
 * throws a {@link WorkloadError}: one sentence naming what was wrong, the
 * stable code `WORKLOAD_BAD_DATASET` and `name = "WorkloadError"`. It extends
 * `ScanlabError` (`@scanlab/core`), so the CLI recognises it with
 * `ScanlabError.isInstance` without importing this package.
 */

import { ScanlabError } from "@scanlab/core";

/** Stable codes of {@link WorkloadError}; new codes may be added, existing ones never change meaning. */
export type WorkloadErrorCode = "WORKLOAD_BAD_DATASET";

/**
 * A data set that cannot be generated, with one clear sentence.
 *
 * @example
 * ```ts
 * try {
 *   pgbenchAccountsBitmap({ scale: 0 });
 * } catch (e) {
 *   if (e instanceof WorkloadError) console.error(e.code, e.message);
 * }
 * ```
 */
export class WorkloadError extends ScanlabError {
  /** Stable machine-readable code. */
  declare readonly code: WorkloadErrorCode;

  /** @param code stable code; @param message one sentence naming what was wrong. */
  constructor(code: WorkloadErrorCode, message: string) {
    super(message, { code });
    this.name = "WorkloadError";
  }
}
