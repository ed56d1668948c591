/**
 * Errors a user of this package can cause: a relation size that is not a
 * block count, a policy option out of range, a participant count of zero, a
 * buffer that is not a shared allocator. They follow the scanlab convention
 * (apps/docs/src/reference/design.md#conventions): one clear sentence naming what was wrong,
 * `name` set to the class name and a stable `code`; they extend `ScanlabError`
 * (`@scanlab/core`), so the CLI recognises them with `ScanlabError.isInstance`
 * without importing this package. Programming errors
 * throw plain `Error`s.
 */

import { ScanlabError } from "@scanlab/core";

/** Stable codes of {@link AllocatorError}; new codes may be added, existing ones never change meaning. */
export type AllocatorErrorCode =
  | "ALLOCATOR_BAD_NBLOCKS"
  | "ALLOCATOR_BAD_START_BLOCK"
  | "ALLOCATOR_BAD_POLICY"
  | "ALLOCATOR_BAD_OPTION"
  | "ALLOCATOR_BAD_PARTICIPANTS"
  | "ALLOCATOR_BAD_MAX_BLOCKS"
  | "ALLOCATOR_BAD_SIZE"
  | "ALLOCATOR_BAD_SHARED_BUFFER"
  | "ALLOCATOR_BAD_FAST_FORWARD"
  | "ALLOCATOR_BAD_RENUMBERING";

/**
 * A parameter error a user can cause, with one sentence saying what was wrong.
 *
 * @example
 * ```ts
 * import { AllocatorError, createParallelScan } from "@scanlab/block-allocator";
 * try {
 *   createParallelScan({ kind: "pg14" }, { nblocks: -1 });
 * } catch (e) {
 *   if (e instanceof AllocatorError) console.log(e.code, e.message); // ALLOCATOR_BAD_NBLOCKS ...
 * }
 * ```
 */
export class AllocatorError extends ScanlabError {
  /** Stable machine-readable code. */
  declare readonly code: AllocatorErrorCode;

  /** @param code stable code; @param message one sentence naming what was wrong. */
  constructor(code: AllocatorErrorCode, message: string) {
    super(message, { code });
    this.name = "AllocatorError";
  }
}
