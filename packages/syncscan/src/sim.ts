/**
 * `@scanlab/syncscan/sim`: the syncscan side of the renumbering protocol of
 * `@scanlab/core/sim`, for a simulator that cuts a stretch out of a table
 * under running scans, or puts it back (`@scanlab/simulator`'s warp). A
 * program that tracks scans of real tables never needs it, so it stays off
 * the main entry. Browser-safe.
 *
 * @packageDocumentation
 */
import type { Renumbering } from "@scanlab/core/sim";
import { RENUMBER, type SyncScanTrackerBase } from "./tracker.js";

/**
 * Renumbers the location stored for the relation (no effect if it has none),
 * keeping its place in the LRU, so that the next scan starts at the block the
 * stored one became and the order in which relations are forgotten does not
 * change. The relation's key is `change.relation` unless `key` says otherwise
 * (a tracker keyed by `relFileLocatorKey`, say).
 *
 * @example
 * ```ts
 * import { InProcessSyncScanTracker } from "@scanlab/syncscan";
 * import { renumberLocation } from "@scanlab/syncscan/sim";
 * import { cutStretch } from "@scanlab/core/sim";
 * const tracker = new InProcessSyncScanTracker();
 * tracker.reportLocation(1, 640);
 * renumberLocation(tracker, cutStretch(1, 10_000, 128, 256)); // blocks 128-383 leave
 * tracker.getLocation(1, 10_000); // 384
 * ```
 *
 * @returns whether the relation had an entry.
 * @throws `SyncScanError` when the location maps to no valid block.
 */
export function renumberLocation(
  tracker: SyncScanTrackerBase,
  change: Renumbering,
  key: number = change.relation,
): boolean {
  return tracker[RENUMBER](key, change.map);
}
