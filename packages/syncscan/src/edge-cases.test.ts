/**
 * Edge cases worked by hand from apps/docs/src/reference/synchronized-scans.md: the LRU with
 * all 20 slots in use (move-to-front on report and on lookup, a hit on the
 * tail item, eviction by a report as well as by a lookup, non-multiples and
 * dropped reports leaving the order alone), the PG17 look-ahead with a start
 * block near the end of the table, run-level reports of any length, and
 * parameter checks.
 */
import { describe, expect, it } from "vitest";
import { lookaheadReportedBlock } from "./lookahead.js";
import { lastReportInRun } from "./report-run.js";
import { beginSerialScan, continueSerialScan } from "./serial-scan.js";
import { SharedSyncScanTracker } from "./shared-tracker.js";
import { InProcessSyncScanTracker, type SyncScanTracker } from "./tracker.js";

const backings: [string, () => SyncScanTracker][] = [
  ["in-process", () => new InProcessSyncScanTracker()],
  ["SharedArrayBuffer", () => SharedSyncScanTracker.create()],
];

describe("the 20-slot LRU when every slot is in use (apps/docs/src/reference/synchronized-scans.md#lru-of-scan-locations ss_search)", () => {
  for (const [backing, make] of backings) {
    it(`${backing}: reports and lookups move to the front, the tail is evicted by either`, () => {
      const t = make();
      // Relations 1..20 each report 16 x k: the list is 20, 19, ..., 1 (head to tail).
      for (let k = 1; k <= 20; k++) expect(t.reportLocation(k, 16 * k)).toBe(true);
      const keys = () => t.entries().map((e) => e.key);
      const down = (from: number, to: number) => Array.from({ length: from - to + 1 }, (_, i) => from - i);
      expect(keys()).toEqual(down(20, 1));
      // A stored report moves its item to the head (ss_search with set = true).
      expect(t.reportLocation(5, 512)).toBe(true);
      expect(keys()).toEqual([5, ...down(20, 6), 4, 3, 2, 1]);
      // A non-multiple of 16 never reaches ss_search: nothing moves.
      expect(t.reportLocation(7, 113)).toBe(false);
      expect(keys()).toEqual([5, ...down(20, 6), 4, 3, 2, 1]);
      // Relation 1 is the tail item: a lookup matches it (match is tested before "last item"),
      // returns its location and moves it to the head; nothing is evicted.
      expect(t.getLocation(1, 100_000)).toBe(16);
      expect(keys()).toEqual([1, 5, ...down(20, 6), 4, 3, 2]);
      // A report that finds SyncScanLock taken is dropped: the order stays (tail: 2 at 32).
      const release = t.holdLock();
      expect(t.reportLocation(2, 48)).toBe(false);
      release();
      expect(keys()).toEqual([1, 5, ...down(20, 6), 4, 3, 2]);
      // A 21st relation *reporting* takes over the tail item (relation 2) with its location.
      expect(t.reportLocation(21, 64)).toBe(true);
      expect(keys()).toEqual([21, 1, 5, ...down(20, 6), 4, 3]);
      // Relation 2 was forgotten: its lookup starts at 0 and evicts the new tail, relation 3.
      expect(t.getLocation(2, 100_000)).toBe(0);
      // Relation 5 kept 512; a table now 512 blocks long gets 0 (location >= nblocks), 513 gets 512.
      expect(t.getLocation(5, 100_000)).toBe(512);
      expect(t.getLocation(5, 512)).toBe(0);
      expect(t.getLocation(5, 513)).toBe(512);
      expect(t.entries()).toEqual([
        { key: 5, location: 512 },
        { key: 2, location: 0 },
        { key: 21, location: 64 },
        { key: 1, location: 16 },
        ...down(20, 6).map((k) => ({ key: k, location: 16 * k })),
        { key: 4, location: 64 },
      ]);
      expect(t.droppedReports).toBe(1);
    });
  }
});

describe("PG17 look-ahead with the start block near the end (heapgettup_advance_block step 6, apps/docs/src/reference/synchronized-scans.md#serial-scans, apps/docs/src/reference/synchronized-scans.md#read-streams-report-ahead)", () => {
  // 100 blocks, start 96, the stream 16 blocks ahead: position p is block (96 + p) mod 100.
  const scan = { startBlock: 96, nblocks: 100, lookaheadBlocks: 16 };

  it("names the block reported when the scan moves onto each block, across the wrap", () => {
    expect(lookaheadReportedBlock(scan, 96)).toBe(12); // the first fill asks positions 1..16: 97, 98, 99, 0..12
    expect(lookaheadReportedBlock(scan, 0)).toBe(16); // position 4 -> asks position 20
    expect(lookaheadReportedBlock(scan, 79)).toBe(95); // position 83 -> 99, the last block before the start
    expect(lookaheadReportedBlock(scan, 80)).toBe(96); // position 84 -> 100 = nblocks: the start block
    expect(lookaheadReportedBlock(scan, 81)).toBeNull(); // nothing left to ask for
    expect(lookaheadReportedBlock(scan, 95)).toBeNull();
    // PG <= 16: moving onto block b reports b itself; the start block is not reported on the way in.
    expect(lookaheadReportedBlock({ ...scan, lookaheadBlocks: 0 }, 0)).toBe(0);
    expect(lookaheadReportedBlock({ ...scan, lookaheadBlocks: 0 }, 96)).toBeNull();
  });

  it("stores 0, then 16, then the start block again, where PG <= 16 stores 0 and then 96", () => {
    // nbuffers 1: threshold 1 div 4 = 0, so the table synchronizes.
    const facts = { key: 3, nblocks: 100, nbuffers: 1 };
    const t = new InProcessSyncScanTracker();
    t.reportLocation(3, 96);
    const s = beginSerialScan(t, { ...facts, lookaheadBlocks: 16 });
    expect(s.startBlock).toBe(96);
    expect(t.getLocation(3, 100)).toBe(0); // reports 97..99, 0..12: the last multiple of 16 is 0
    const step = continueSerialScan(t, 3, s, 10); // standing on block 6 (position 10): reported through 22
    expect(t.getLocation(3, 100)).toBe(16);
    continueSerialScan(t, 3, step.scan, 90); // complete: positions 27..100, the last is the start block 96
    expect(t.getLocation(3, 100)).toBe(96);

    const old = new InProcessSyncScanTracker();
    old.reportLocation(3, 96);
    const o = beginSerialScan(old, facts);
    expect(old.getLocation(3, 100)).toBe(96); // no report before the first block is finished
    continueSerialScan(old, 3, o, 10); // reports 97, 98, 99, 0, ..., 6
    expect(old.getLocation(3, 100)).toBe(0);
  });
});

describe("lastReportInRun for any run length it accepts", () => {
  it("is exact for runs of up to 2^53 - 1 blocks (the last block is (first + blocks - 1) mod nblocks)", () => {
    // (2^53 - 2) mod 1000 = 990 (2^53 = 9,007,199,254,740,992), so the run 56, 57, ... ends on
    // block (56 + 990) mod 1000 = 46, and the last multiple of 16 reported is 32.
    expect(lastReportInRun(56, 2 ** 53 - 1, 1000, 16)).toBe(32);
    // (2^53 - 4) mod 1000 = 988: from 42 the run ends on 30, last multiple 16.
    expect(lastReportInRun(42, 2 ** 53 - 3, 1000, 16)).toBe(16);
    const t = new InProcessSyncScanTracker();
    expect(t.reportRun(9, 56, 2 ** 53 - 1, 1000)).toBe(true);
    expect(t.getLocation(9, 1000)).toBe(32);
  });
});
