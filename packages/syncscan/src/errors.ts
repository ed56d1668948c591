/**
 * Errors a user of this package can cause (a bad parameter, a buffer that is
 * not a syncscan tracker). They follow the scanlab convention (apps/docs/src/reference/design.md#conventions): one clear sentence naming what was wrong, `name` set to the
 * class name and a stable `code`; they extend `ScanlabError` (`@scanlab/core`),
 * so the CLI recognises them with `ScanlabError.isInstance` without importing
 * this package. Programming errors (for example taking
 * the in-process lock twice) throw plain `Error`s.
 */

import { ScanlabError } from "@scanlab/core";

/** Stable codes of {@link SyncScanError}; new codes may be added, existing ones never change meaning. */
export type SyncScanErrorCode =
  | "SYNCSCAN_BAD_NELEM"
  | "SYNCSCAN_BAD_REPORT_INTERVAL"
  | "SYNCSCAN_BAD_NBLOCKS"
  | "SYNCSCAN_BAD_BLOCK"
  | "SYNCSCAN_BAD_BLOCK_COUNT"
  | "SYNCSCAN_BAD_KEY"
  | "SYNCSCAN_BAD_NBUFFERS"
  | "SYNCSCAN_BAD_LOOKAHEAD"
  | "SYNCSCAN_BAD_DIRECTION"
  | "SYNCSCAN_BAD_BUFFER";

/**
 * A parameter error a user can cause, with one sentence saying what was wrong.
 *
 * @example
 * ```ts
 * import { InProcessSyncScanTracker, SyncScanError } from "@scanlab/syncscan";
 * try {
 *   new InProcessSyncScanTracker({ nelem: 1 });
 * } catch (e) {
 *   if (e instanceof SyncScanError) console.log(e.code, e.message); // SYNCSCAN_BAD_NELEM ...
 * }
 * ```
 */
export class SyncScanError extends ScanlabError {
  /** Stable machine-readable code. */
  declare readonly code: SyncScanErrorCode;

  /** @param code stable code; @param message one sentence naming what was wrong. */
  constructor(code: SyncScanErrorCode, message: string) {
    super(message, { code });
    this.name = "SyncScanError";
  }
}
