import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SharedSyncScanTracker } from "./shared-tracker.js";
import { InProcessSyncScanTracker, type SyncScanTracker } from "./tracker.js";

/**
 * A deliberately simple model of apps/docs/src/reference/synchronized-scans.md#lru-of-scan-locations: an array in LRU order (most
 * recent first) of nelem items, all empty at start. search(key, location, set):
 * find the key; if absent replace the last item with (key, location); if present
 * and set, overwrite its location; move the item to the front; return its location.
 */
class ReferenceLru {
  private items: { key: number | null; location: number }[];
  constructor(
    nelem: number,
    private readonly interval: number,
  ) {
    this.items = Array.from({ length: nelem }, () => ({ key: null, location: 0 }));
  }
  private search(key: number, location: number, set: boolean): number {
    let i = this.items.findIndex((it) => it.key === key);
    if (i < 0) {
      i = this.items.length - 1;
      this.items[i] = { key, location };
    } else if (set) {
      this.items[i] = { key, location };
    }
    const [item] = this.items.splice(i, 1);
    this.items.unshift(item!);
    return item!.location;
  }
  getLocation(key: number, nblocks: number): number {
    const loc = this.search(key, 0, false);
    return loc >= nblocks ? 0 : loc;
  }
  reportLocation(key: number, block: number): boolean {
    if (block % this.interval !== 0) return false;
    this.search(key, block, true);
    return true;
  }
  entries() {
    return this.items.filter((it) => it.key !== null).map((it) => ({ key: it.key!, location: it.location }));
  }
}

type Op = { kind: "get"; key: number; nblocks: number } | { kind: "report"; key: number; block: number };

const opArb = (keys: number): fc.Arbitrary<Op> =>
  fc.oneof(
    fc.record({
      kind: fc.constant("get" as const),
      key: fc.integer({ min: 0, max: keys - 1 }),
      nblocks: fc.integer({ min: 0, max: 400 }),
    }),
    fc.record({
      kind: fc.constant("report" as const),
      key: fc.integer({ min: 0, max: keys - 1 }),
      // Bias towards multiples so that plenty of reports are stored.
      block: fc.oneof(
        fc.integer({ min: 0, max: 25 }).map((m) => m * 16),
        fc.integer({ min: 0, max: 400 }),
      ),
    }),
  );

function checkAgainstModel(
  make: (nelem: number, interval: number) => SyncScanTracker & { structureProblem(): string | null },
) {
  fc.assert(
    fc.property(
      fc.integer({ min: 2, max: 24 }),
      fc.constantFrom(1, 4, 16),
      // Number of distinct relations in play: fewer than, as many as, or more than the slots.
      fc.integer({ min: 1, max: 30 }),
      fc.array(opArb(30), { minLength: 1, maxLength: 200 }),
      (nelem, interval, keys, ops) => {
        const tracker = make(nelem, interval);
        const model = new ReferenceLru(nelem, interval);
        for (const op of ops) {
          const key = op.key % keys;
          if (op.kind === "get") {
            expect(tracker.getLocation(key, op.nblocks)).toBe(model.getLocation(key, op.nblocks));
          } else {
            expect(tracker.reportLocation(key, op.block)).toBe(model.reportLocation(key, op.block));
          }
          expect(tracker.entries()).toEqual(model.entries());
        }
        expect(tracker.structureProblem()).toBeNull();
      },
    ),
    { numRuns: 200 },
  );
}

describe("LRU against a reference model (fast-check)", () => {
  it("in-process tracker", () => {
    checkAgainstModel(
      (nelem, interval) => new InProcessSyncScanTracker({ nelem, reportIntervalBlocks: interval }),
    );
  });
  it("shared tracker (same operations, SharedArrayBuffer backing)", () => {
    checkAgainstModel((nelem, interval) =>
      SharedSyncScanTracker.create({ nelem, reportIntervalBlocks: interval }),
    );
  });
});
