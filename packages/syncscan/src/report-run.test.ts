import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lastReportInRun } from "./report-run.js";
import { InProcessSyncScanTracker } from "./tracker.js";

describe("lastReportInRun", () => {
  it("is the last multiple of 16 in the run, in scan order", () => {
    expect(lastReportInRun(30, 20, 100, 16)).toBe(48); // 30..49
    expect(lastReportInRun(17, 10, 100, 16)).toBeNull(); // 17..26
    expect(lastReportInRun(16, 1, 100, 16)).toBe(16);
    expect(lastReportInRun(0, 0, 100, 16)).toBeNull();
  });

  it("takes the wrap into account: block 0 after nblocks - 1 is a multiple", () => {
    // 90..99 then 0..9: 96 comes first, then the wrap to 0, so 0 is the last.
    expect(lastReportInRun(90, 20, 100, 16)).toBe(0);
    // 97..99 then 0..19: 16 is the last one.
    expect(lastReportInRun(97, 23, 100, 16)).toBe(16);
    // A run longer than the table ends where (first + blocks - 1) mod nblocks lands.
    expect(lastReportInRun(5, 250, 100, 16)).toBe(48); // last block 54
  });
});

describe("run-level reporting == reporting each block in order (fast-check)", () => {
  it("leaves the same list and says whether anything was stored", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 600 }), // nblocks
        fc.constantFrom(1, 3, 16, 64),
        fc.nat(), // first block seed
        fc.integer({ min: 0, max: 1300 }), // run length (may exceed nblocks)
        fc.array(fc.tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 40 })), {
          maxLength: 12,
        }),
        fc.integer({ min: 0, max: 6 }),
        (nblocks, interval, firstSeed, blocks, prior, key) => {
          const firstBlock = firstSeed % nblocks;
          const perBlock = new InProcessSyncScanTracker({ nelem: 4, reportIntervalBlocks: interval });
          const perRun = new InProcessSyncScanTracker({ nelem: 4, reportIntervalBlocks: interval });
          for (const [k, m] of prior) {
            perBlock.reportLocation(k, m * interval);
            perRun.reportLocation(k, m * interval);
          }
          let anyStored = false;
          for (let i = 0; i < blocks; i++) {
            anyStored = perBlock.reportLocation(key, (firstBlock + i) % nblocks) || anyStored;
          }
          expect(perRun.reportRun(key, firstBlock, blocks, nblocks)).toBe(anyStored);
          expect(perRun.entries()).toEqual(perBlock.entries());
        },
      ),
      { numRuns: 300 },
    );
  });
});
