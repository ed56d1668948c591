/**
 * Errors of `@scanlab/buffer-manager`.
 *
 * Everything a user can get wrong (a pool or ring size PostgreSQL would not
 * accept, a relation larger than 2^32 - 1 blocks, a setting out of range, a
 * renumbering the pool cannot follow) throws a {@link BufferManagerError}: one
 * sentence naming what was wrong, a stable `code` and
 * `name = "BufferManagerError"`. It extends `ScanlabError` (`@scanlab/core`),
 * so the CLI recognises it with `ScanlabError.isInstance` without importing
 * this package. The per-block calls (`hit`, `installRun`, `isResident`) check
 * nothing: they are a simulator's hottest path, and their arguments come from
 * the pool's own answers.
 */

import { ScanlabError } from "@scanlab/core";

/** Stable codes of {@link BufferManagerError}; new codes may be added, existing ones never change meaning. */
export type BufferManagerErrorCode =
  | "BUFFER_MANAGER_BAD_NBUFFERS"
  | "BUFFER_MANAGER_BAD_RELATION_BLOCKS"
  | "BUFFER_MANAGER_BAD_RING_SIZE"
  | "BUFFER_MANAGER_BAD_RING_SETTING"
  | "BUFFER_MANAGER_BAD_RENUMBERING";

/**
 * A pool, ring or setting PostgreSQL would not accept, with one clear sentence.
 *
 * @example
 * ```ts
 * import { BufferManagerError, SharedBuffers } from "@scanlab/buffer-manager";
 * try {
 *   new SharedBuffers({ nBuffers: 8, relationBlocks: [100] });
 * } catch (e) {
 *   if (e instanceof BufferManagerError) console.log(e.code, e.message); // BUFFER_MANAGER_BAD_NBUFFERS ...
 * }
 * ```
 */
export class BufferManagerError extends ScanlabError {
  /** Stable machine-readable code. */
  declare readonly code: BufferManagerErrorCode;

  /** @param code stable code; @param message one sentence naming what was wrong. */
  constructor(code: BufferManagerErrorCode, message: string) {
    super(message, { code });
    this.name = "BufferManagerError";
  }
}
