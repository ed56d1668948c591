import { cutStretch, restoreStretch } from "@scanlab/core/sim";
import { describe, expect, it } from "vitest";
import { SyncScanError } from "./errors.js";
import { renumberLocation } from "./sim.js";
import { InProcessSyncScanTracker } from "./tracker.js";

/**
 * renumberLocation renumbers a stored location in place, for the simulator's warp
 * (blocks cut out of a relation ahead of its scans, or put back behind them):
 * the next scan must start at the renumbered block, and the LRU order, which
 * decides which relation is forgotten first, must not change.
 */
describe("renumberLocation", () => {
  it("moves the location and keeps the LRU order", () => {
    const tracker = new InProcessSyncScanTracker({ nelem: 3 });
    tracker.reportLocation(1, 160);
    tracker.reportLocation(2, 320);
    tracker.reportLocation(3, 480);
    const orderBefore = tracker.entries().map((e) => e.key);
    expect(renumberLocation(tracker, cutStretch(1, 1000, 0, 128))).toBe(true);
    expect(tracker.entries().map((e) => e.key)).toEqual(orderBefore);
    expect(tracker.getLocation(1, 10_000)).toBe(32);
    // Relation 2 is now the least recently used: a new relation evicts it, not relation 1.
    tracker.reportLocation(4, 16);
    expect(
      tracker
        .entries()
        .map((e) => e.key)
        .sort(),
    ).toEqual([1, 3, 4]);
    expect(tracker.structureProblem()).toBeNull();
  });

  it("does nothing for a relation with no entry, and refuses a mapping to a non-block", () => {
    const tracker = new InProcessSyncScanTracker();
    expect(renumberLocation(tracker, restoreStretch(7, 1000, 0, 1))).toBe(false);
    tracker.reportLocation(7, 16);
    expect(() => renumberLocation(tracker, { ...cutStretch(7, 100, 0, 8), map: () => -1 })).toThrow(
      SyncScanError,
    );
    expect(tracker.getLocation(7, 100)).toBe(16);
    expect(tracker.structureProblem()).toBeNull();
  });

  it("takes the tracker's own key when it is not the relation's number", () => {
    const tracker = new InProcessSyncScanTracker();
    tracker.reportLocation(42, 640);
    expect(renumberLocation(tracker, restoreStretch(0, 1000, 16, 32), 42)).toBe(true);
    expect(tracker.getLocation(42, 2000)).toBe(672);
  });
});
