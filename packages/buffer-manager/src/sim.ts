/**
 * `@scanlab/buffer-manager/sim`: the buffer manager's side of the
 * renumbering protocol of `@scanlab/core/sim`, for a simulator that cuts a
 * stretch out of a relation under running scans, or puts it back
 * (`@scanlab/simulator`'s warp). A program that models a real relation never
 * needs it, so it stays off the main entry. Browser-safe.
 *
 * @packageDocumentation
 */
import type { Renumbering } from "@scanlab/core/sim";
import { BufferManagerError } from "./errors.js";
import { RENUMBER, SharedBuffers } from "./shared-buffers.js";

/**
 * Renumbers the blocks of `change.relation` held in `pool`: each buffer keeps
 * its place in the clock, its usage count and its valid-at time under its
 * block's new number, and the relation's size becomes `change.nblocks`. A
 * ring's slots name buffers, not blocks, so rings need nothing.
 *
 * @example
 * ```ts
 * import { SharedBuffers } from "@scanlab/buffer-manager";
 * import { renumberBuffers } from "@scanlab/buffer-manager/sim";
 * import { cutStretch } from "@scanlab/core/sim";
 * const pool = new SharedBuffers({ nBuffers: 64, relationBlocks: [10_000] });
 * pool.installRun(0, 9_000, 10, null, 0);
 * renumberBuffers(pool, cutStretch(0, 10_000, 128, 256)); // blocks 128-383 leave
 * [pool.isResident(0, 9_000), pool.firstResident(0, 0, 9_744)]; // [false, 8744]
 * ```
 *
 * @throws `BufferManagerError` `BUFFER_MANAGER_BAD_RENUMBERING` for a pool not
 * made by this package, a relation the pool does not hold, or a cut of a
 * block still in the pool.
 */
export function renumberBuffers(pool: SharedBuffers, change: Renumbering): void {
  if (!(pool instanceof SharedBuffers))
    throw new BufferManagerError(
      "BUFFER_MANAGER_BAD_RENUMBERING",
      "the pool was not made by this package's SharedBuffers.",
    );
  pool[RENUMBER](change);
}
