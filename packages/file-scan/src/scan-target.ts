/**
 * The target of a scan, sized once into the allocator's shared state.
 *
 * Problem. Everything a scan decides up front depends on its target: the
 * block count bounds the policy's options and picks the cover method, and
 * the first file's identity is the default syncscan key. The size must also
 * be one number for every worker, whatever the file does during the scan.
 * PostgreSQL's leader measures the relation once, when it sets up the
 * parallel scan's record in shared memory (`phs_nblocks`,
 * apps/docs/src/reference/parallel-block-allocation.md#shared-scan-state),
 * and no participant measures it again.
 *
 * Design choices.
 * - The path is resolved and sized by target.ts (one file, or a relation's
 *   segment files walked as md.c walks them), then the block count goes into
 *   the allocator's shared state at once (createSharedParallelScan from
 *   @scanlab/block-allocator, with the chosen policy), as the leader's
 *   record holds `phs_nblocks`; the workers attach to that state later.
 * - What depends on the target is settled here, before the page cache is
 *   touched or a thread starts: the cover method (cover-check.ts), the
 *   syncscan key (default `fileIdentityKey` of the first file's device and
 *   inode, @scanlab/syncscan), and the policy's options against the size
 *   (createSharedParallelScan throws AllocatorError), and a prefetch
 *   pattern's advise distance against the block count. A scan that cannot run
 *   fails before it has evicted anything.
 *
 * Interface: {@link settleTarget}.
 */
import { createSharedParallelScan, type SharedParallelScan } from "@scanlab/block-allocator";
import { fileIdentityKey } from "@scanlab/syncscan";
import { type CoverMethod, chooseCoverMethod } from "./cover-check.js";
import { badOption } from "./errors.js";
import type { ScanRequest } from "./scan-options.js";
import { resolveTarget, type ScanTarget } from "./target.js";

/** The target with everything that depends on it. */
export interface SettledTarget {
  /** The resolved target, its size sampled once. */
  readonly target: ScanTarget;
  /** The allocator's shared state, sized for `target.nblocks`. */
  readonly allocator: SharedParallelScan;
  /** How the cover will be checked. */
  readonly cover: CoverMethod;
  /** The syncscan tracker key (0 without a tracker). */
  readonly syncKey: number;
}

/**
 * Resolves and sizes the target of `request`, creates the allocator's shared
 * state for that size, and settles the cover method and the syncscan key.
 *
 * @throws FileScanError for a bad target, cover method or syncscan key;
 *   AllocatorError for policy options that do not fit the size.
 */
export function settleTarget(request: ScanRequest): SettledTarget {
  const { blockBytes, relation, segmentBlocks, tracker } = request;
  const target = resolveTarget(request.path, { blockBytes, relation, segmentBlocks });
  const { nblocks } = target;
  const cover = chooseCoverMethod(request.cover, nblocks, request.recordRuns);
  const syncKey =
    request.syncKey ?? (tracker === null ? 0 : fileIdentityKey({ dev: target.dev, ino: target.ino }));
  if (!Number.isSafeInteger(syncKey) || syncKey < 0) {
    throw badOption(`syncscan.key must be a non-negative safe integer (got ${String(syncKey)}).`);
  }
  const { mode } = request;
  if (mode.kind === "pattern" && mode.adviseDistance >= nblocks) {
    throw badOption(
      `the advise distance ${mode.adviseDistance} is beyond the file: it has ${nblocks} blocks, so the distance must be less than ${nblocks}.`,
    );
  }
  const allocator = createSharedParallelScan(request.policyOption, {
    nblocks,
    syncscan: tracker !== null,
    startBlock: request.startBlock,
  });
  return { target, allocator, cover, syncKey };
}
