import { describe, expect, it } from "vitest";
import { SYNC_SCAN_NELEM, SYNC_SCAN_REPORT_INTERVAL_BLOCKS } from "./constants.js";
import { SyncScanError } from "./errors.js";
import { lookaheadReportedBlock } from "./lookahead.js";
import { lastReportInRun } from "./report-run.js";
import { createSerialScan } from "./serial-scan.js";
import { SharedSyncScanTracker } from "./shared-tracker.js";
import { InProcessSyncScanTracker } from "./tracker.js";

// Worked examples of apps/docs/src/reference/synchronized-scans.md#syncscan-constants, apps/docs/src/reference/synchronized-scans.md#lru-of-scan-locations (syncscan.c): a 20-slot LRU of
// (relation, location), lookups insert with location 0, reports keep only
// multiples of 16 and never wait for the lock.

describe("constants (apps/docs/src/reference/synchronized-scans.md#syncscan-constants)", () => {
  it("are PostgreSQL's: 20 slots, 128 kB / 8 kB = 16-block reports", () => {
    expect(SYNC_SCAN_NELEM).toBe(20);
    expect(SYNC_SCAN_REPORT_INTERVAL_BLOCKS).toBe(16);
    const t = new InProcessSyncScanTracker();
    expect(t.nelem).toBe(20);
    expect(t.reportIntervalBlocks).toBe(16);
  });
});

describe("getLocation", () => {
  it("inserts an unknown relation with location 0 and moves lookups to the head", () => {
    const t = new InProcessSyncScanTracker();
    expect(t.entries()).toEqual([]);
    expect(t.getLocation(1, 1000)).toBe(0);
    expect(t.getLocation(2, 1000)).toBe(0);
    expect(t.entries().map((e) => e.key)).toEqual([2, 1]);
    t.getLocation(1, 1000);
    expect(t.entries()).toEqual([
      { key: 1, location: 0 },
      { key: 2, location: 0 },
    ]);
  });

  it("answers 0 for a location at or past nblocks (truncated table) without forgetting it", () => {
    const t = new InProcessSyncScanTracker();
    expect(t.reportLocation(7, 4096)).toBe(true);
    expect(t.getLocation(7, 10_000)).toBe(4096);
    // The table was truncated to 4096 blocks: block 4096 no longer exists.
    expect(t.getLocation(7, 4096)).toBe(0);
    expect(t.getLocation(7, 100)).toBe(0);
    // ss_get_location returns 0 but leaves the stored value alone (apps/docs/src/reference/synchronized-scans.md#lru-of-scan-locations).
    expect(t.entries()).toEqual([{ key: 7, location: 4096 }]);
    expect(t.getLocation(7, 4097)).toBe(4096);
  });
});

describe("reportLocation", () => {
  it("stores only multiples of the report interval", () => {
    const t = new InProcessSyncScanTracker();
    for (let b = 1; b < 16; b++) expect(t.reportLocation(3, b)).toBe(false);
    expect(t.entries()).toEqual([]); // a skipped report does not even search the list
    expect(t.reportLocation(3, 16)).toBe(true);
    expect(t.reportLocation(3, 17)).toBe(false);
    expect(t.getLocation(3, 100)).toBe(16);
  });

  it("inserts the reported block on a miss", () => {
    const t = new InProcessSyncScanTracker();
    t.reportLocation(5, 320);
    expect(t.entries()).toEqual([{ key: 5, location: 320 }]);
  });

  it("honours a configured interval and slot count", () => {
    const t = new InProcessSyncScanTracker({ nelem: 2, reportIntervalBlocks: 32 });
    expect(t.reportLocation(1, 16)).toBe(false);
    expect(t.reportLocation(1, 64)).toBe(true);
    t.getLocation(2, 10);
    t.getLocation(3, 10); // evicts 1: only two slots
    expect(t.entries().map((e) => e.key)).toEqual([3, 2]);
  });

  it("drops a report when the lock is busy, while a report that finds it free is stored", () => {
    const t = new InProcessSyncScanTracker();
    t.reportLocation(5, 320);
    const release = t.holdLock(); // another backend is inside SyncScanLock
    expect(t.reportLocation(5, 480)).toBe(false);
    expect(t.reportRun(5, 480, 40, 10_000)).toBe(false);
    expect(t.droppedReports).toBe(2);
    // A non-multiple is not a dropped report: it never tries the lock.
    expect(t.reportLocation(5, 481)).toBe(false);
    expect(t.droppedReports).toBe(2);
    // A single thread cannot wait for itself: the in-process reader says so.
    expect(() => t.getLocation(5, 10_000)).toThrow(/lock is held/);
    release();
    release(); // idempotent
    expect(t.getLocation(5, 10_000)).toBe(320);
    expect(t.reportLocation(5, 480)).toBe(true);
    expect(t.getLocation(5, 10_000)).toBe(480);
  });
});

describe("LRU eviction with 21 tables (20 slots)", () => {
  it("the 21st table overwrites the least recently used one, which then starts again at 0", () => {
    const t = new InProcessSyncScanTracker();
    // Tables 1..20 each scanned part way: table k left location 16 * k.
    for (let k = 1; k <= 20; k++) {
      expect(t.getLocation(k, 100_000)).toBe(0);
      expect(t.reportLocation(k, 16 * k)).toBe(true);
    }
    expect(t.entries()).toHaveLength(20);
    expect(t.getLocation(1, 100_000)).toBe(16); // refreshes table 1: table 2 is now the LRU
    expect(t.getLocation(21, 100_000)).toBe(0); // evicts table 2
    const keys = t.entries().map((e) => e.key);
    expect(keys).toHaveLength(20);
    expect(keys).not.toContain(2);
    expect(keys.slice(0, 2)).toEqual([21, 1]);
    // Table 2 was forgotten: its next scan starts at 0 (and evicts table 3).
    expect(t.getLocation(2, 100_000)).toBe(0);
    expect(t.entries().map((e) => e.key)).not.toContain(3);
    expect(t.getLocation(20, 100_000)).toBe(320);
    expect(t.structureProblem()).toBeNull();
  });
});

describe("bad parameters", () => {
  it.each([
    [() => new InProcessSyncScanTracker({ nelem: 1 }), "SYNCSCAN_BAD_NELEM"],
    [() => new InProcessSyncScanTracker({ nelem: 2.5 }), "SYNCSCAN_BAD_NELEM"],
    [() => new InProcessSyncScanTracker({ reportIntervalBlocks: 0 }), "SYNCSCAN_BAD_REPORT_INTERVAL"],
    [() => new InProcessSyncScanTracker().getLocation(-1, 10), "SYNCSCAN_BAD_KEY"],
    [() => new InProcessSyncScanTracker().getLocation(2 ** 53, 10), "SYNCSCAN_BAD_KEY"],
    [() => new InProcessSyncScanTracker().getLocation(1, 2 ** 32), "SYNCSCAN_BAD_NBLOCKS"],
    [() => new InProcessSyncScanTracker().reportLocation(1, 0xffffffff), "SYNCSCAN_BAD_BLOCK"],
    [() => new InProcessSyncScanTracker().reportRun(1, 100, 5, 100), "SYNCSCAN_BAD_BLOCK"],
    [() => new InProcessSyncScanTracker().reportRun(1, 0, -1, 100), "SYNCSCAN_BAD_BLOCK_COUNT"],
    [() => SharedSyncScanTracker.create({ nelem: 65_537 }), "SYNCSCAN_BAD_NELEM"],
    [() => new InProcessSyncScanTracker({ nelem: "20" as unknown as number }), "SYNCSCAN_BAD_NELEM"],
    [() => new InProcessSyncScanTracker({ reportIntervalBlocks: 2 ** 31 }), "SYNCSCAN_BAD_REPORT_INTERVAL"],
    [
      () => createSerialScan({ nblocks: 10, startBlock: 0, sync: true, lookaheadBlocks: 1.5 }),
      "SYNCSCAN_BAD_LOOKAHEAD",
    ],
    [
      () => lookaheadReportedBlock({ startBlock: 0, nblocks: 10, lookaheadBlocks: 1 }, 10),
      "SYNCSCAN_BAD_BLOCK",
    ],
    [() => lastReportInRun(10, 1, 10, 16), "SYNCSCAN_BAD_BLOCK"],
    [() => lastReportInRun(0, 2 ** 53, 10, 16), "SYNCSCAN_BAD_BLOCK_COUNT"],
  ] as const)("%#: throws a SyncScanError with one sentence", (fn, code) => {
    let caught: unknown;
    try {
      fn();
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(SyncScanError);
    const err = caught as SyncScanError;
    expect(err.code).toBe(code);
    expect(err.name).toBe("SyncScanError");
    expect(err.userError).toBe(true);
    expect(err.message).toMatch(/^[A-Za-z][^\n]*\.$/);
    expect(err.message.slice(0, -1)).not.toMatch(/\.\s[A-Z]/);
  });

  it("accepts the largest keys and block numbers", () => {
    const t = new InProcessSyncScanTracker();
    const key = Number.MAX_SAFE_INTEGER;
    expect(t.reportLocation(key, 0xfffffff0)).toBe(true);
    expect(t.getLocation(key, 0xffffffff)).toBe(0xfffffff0);
    expect(t.entries()).toEqual([{ key, location: 0xfffffff0 }]);
  });
});
