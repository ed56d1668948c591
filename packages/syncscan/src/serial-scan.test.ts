import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SyncScanError } from "./errors.js";
import { lookaheadReportedBlock } from "./lookahead.js";
import {
  advanceSerialScan,
  beginSerialScan,
  continueSerialScan,
  createSerialScan,
  type SerialScan,
  serialScanBlock,
  serialScanDone,
} from "./serial-scan.js";
import { InProcessSyncScanTracker, type SyncScanTracker } from "./tracker.js";

// shared_buffers = 16 MB -> NBuffers 2048 -> threshold 512 blocks (apps/docs/src/reference/synchronized-scans.md#syncscan-constants rule).
const NBUFFERS = 2048;
const KEY = 1;

/** All blocks of a step's ranges in visiting order. */
function blocksOf(scan: SerialScan, ranges: { firstBlock: number; blocks: number }[]): number[] {
  const out: number[] = [];
  for (const r of ranges) {
    for (let i = 0; i < r.blocks; i++) {
      out.push(scan.direction === "forward" ? r.firstBlock + i : r.firstBlock + r.blocks - 1 - i);
    }
  }
  return out;
}

/**
 * PostgreSQL's loop, transcribed from apps/docs/src/reference/synchronized-scans.md#serial-scans steps 5-7 (PG <= 16),
 * one block at a time, as the oracle: visit b; stop here if `stopAfter` blocks
 * have been visited (LIMIT satisfied while reading b); else b = b + 1, wrap at
 * nblocks, report b if syncing, stop if b == start. Backward: start - 1 (or
 * nblocks - 1), stop after visiting start, never report.
 */
function pgSerialScan(
  tracker: SyncScanTracker,
  key: number,
  nblocks: number,
  start: number,
  sync: boolean,
  backward: boolean,
  stopAfter: number,
): number[] {
  const visited: number[] = [];
  if (nblocks === 0) return visited;
  let b = backward ? (start === 0 ? nblocks - 1 : start - 1) : start;
  for (;;) {
    visited.push(b);
    if (visited.length === stopAfter) return visited;
    if (backward) {
      if (b === start) return visited;
      b = b === 0 ? nblocks - 1 : b - 1;
    } else {
      b = b + 1;
      if (b === nblocks) b = 0;
      if (sync) tracker.reportLocation(key, b);
      if (b === start) return visited;
    }
  }
}

describe("serial cycle: worked examples (apps/docs/src/reference/synchronized-scans.md#serial-scans)", () => {
  it("a complete scan's last report is its own start block, so repeated scans do not drift", () => {
    const t = new InProcessSyncScanTracker();
    const facts = { key: KEY, nblocks: 1000, nbuffers: NBUFFERS };
    let scan = beginSerialScan(t, facts);
    expect(scan.startBlock).toBe(0);
    expect(scan.sync).toBe(true);
    // LIMIT stops the first scan while it reads block 500: it moved onto 1..500, stored 496.
    scan = continueSerialScan(t, KEY, scan, 500).scan;
    expect(serialScanBlock(scan)).toBe(500);
    expect(t.getLocation(KEY, 1000)).toBe(496);
    // The next scan starts at 496 and reads the whole table: 496..999, 0..495.
    for (let round = 0; round < 3; round++) {
      scan = beginSerialScan(t, facts);
      expect(scan.startBlock).toBe(496);
      const step = continueSerialScan(t, KEY, scan, 10_000);
      expect(step.blocks).toBe(1000);
      expect(step.visited).toEqual([
        { firstBlock: 496, blocks: 504 },
        { firstBlock: 0, blocks: 496 },
      ]);
      // Reports 497..999, 0..496: the last multiple is the start block itself.
      expect(step.report).toEqual({ firstBlock: 497, blocks: 1000 });
      expect(serialScanDone(step.scan)).toBe(true);
      expect(t.getLocation(KEY, 1000)).toBe(496);
    }
  });

  it("wraps from nblocks - 1 to block 0, which is reported", () => {
    const t = new InProcessSyncScanTracker();
    t.reportLocation(KEY, 992);
    const scan = beginSerialScan(t, { key: KEY, nblocks: 1000, nbuffers: NBUFFERS });
    expect(scan.startBlock).toBe(992);
    // Reads 992..999, 0, 1 and stands on block 2: reports 993..999, 0, 1, 2.
    const step = continueSerialScan(t, KEY, scan, 10);
    expect(blocksOf(scan, step.visited)).toEqual([992, 993, 994, 995, 996, 997, 998, 999, 0, 1]);
    expect(serialScanBlock(step.scan)).toBe(2);
    expect(t.getLocation(KEY, 1000)).toBe(0);
  });

  it("a scan stopped early leaves the last multiple of 16 it passed, including the block it was on", () => {
    const cases: [number, number][] = [
      // [block the LIMIT stopped on, stored location]
      [47, 32],
      [48, 48],
      [15, 0], // never passed 16: the location stays the start block, 0
    ];
    for (const [stopBlock, stored] of cases) {
      const t = new InProcessSyncScanTracker();
      const scan = beginSerialScan(t, { key: KEY, nblocks: 1000, nbuffers: NBUFFERS });
      continueSerialScan(t, KEY, scan, stopBlock);
      expect(t.getLocation(KEY, 1000)).toBe(stored);
    }
  });

  it("a backward scan starts at start - 1, ends on the start block and never reports", () => {
    const t = new InProcessSyncScanTracker();
    t.reportLocation(KEY, 96);
    const scan = beginSerialScan(t, { key: KEY, nblocks: 100, nbuffers: 64, direction: "backward" });
    expect(scan.startBlock).toBe(96);
    expect(scan.sync).toBe(false);
    expect(serialScanBlock(scan)).toBe(95);
    const step = continueSerialScan(t, KEY, scan, 1000);
    const order = blocksOf(scan, step.visited);
    expect(order.slice(0, 3)).toEqual([95, 94, 93]);
    expect(order.slice(94, 98)).toEqual([1, 0, 99, 98]);
    expect(order.at(-1)).toBe(96);
    expect(new Set(order).size).toBe(100);
    expect(step.report).toBeNull();
    expect(t.getLocation(KEY, 100)).toBe(96);
    // From start 0 a backward scan is nblocks - 1 down to 0.
    const fromZero = createSerialScan({ nblocks: 100, startBlock: 0, direction: "backward", sync: true });
    expect(fromZero.sync).toBe(false);
    expect(blocksOf(fromZero, advanceSerialScan(fromZero, 100).visited)).toEqual(
      Array.from({ length: 100 }, (_, i) => 99 - i),
    );
  });

  it("a scan that may not synchronize starts at 0 and leaves the tracker alone", () => {
    const t = new InProcessSyncScanTracker();
    t.reportLocation(KEY, 496);
    for (const facts of [
      { key: KEY, nblocks: 1000, nbuffers: NBUFFERS, synchronizeSeqscans: false },
      { key: KEY, nblocks: 512, nbuffers: NBUFFERS }, // not over NBuffers / 4
      { key: KEY, nblocks: 1000, nbuffers: NBUFFERS, temp: true },
    ]) {
      const scan = beginSerialScan(t, facts);
      expect(scan.startBlock).toBe(0);
      continueSerialScan(t, KEY, scan, 300);
      expect(t.entries()).toEqual([{ key: KEY, location: 496 }]);
    }
  });

  it("an empty table is done before it starts", () => {
    const scan = createSerialScan({ nblocks: 0, startBlock: 0, sync: true });
    expect(serialScanDone(scan)).toBe(true);
    expect(serialScanBlock(scan)).toBeNull();
    expect(advanceSerialScan(scan, 5)).toMatchObject({ blocks: 0, visited: [], report: null });
  });

  it("rejects bad parameters with a SyncScanError", () => {
    expect(() => createSerialScan({ nblocks: 10, startBlock: 10, sync: true })).toThrow(SyncScanError);
    expect(() => createSerialScan({ nblocks: 10, startBlock: 0, sync: true, lookaheadBlocks: -1 })).toThrow(
      SyncScanError,
    );
    expect(() =>
      createSerialScan({ nblocks: 10, startBlock: 0, sync: true, direction: "sideways" as "forward" }),
    ).toThrow(/direction/);
    expect(() =>
      advanceSerialScan(createSerialScan({ nblocks: 10, startBlock: 0, sync: true }), 1.5),
    ).toThrow(SyncScanError);
  });
});

describe("serial cycle against PostgreSQL's per-block loop (fast-check)", () => {
  it("visits the same blocks and leaves the same tracker state, stopped early or complete", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }),
        fc.nat(),
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 1, max: 400 }), // LIMIT: blocks visited before stopping (>= nblocks: complete)
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 20 })), { maxLength: 6 }),
        (nblocks, startSeed, sync, backward, stopAfter, prior) => {
          const start = startSeed % nblocks;
          const oracle = new InProcessSyncScanTracker({ nelem: 3 });
          const ours = new InProcessSyncScanTracker({ nelem: 3 });
          for (const [k, m] of prior) {
            oracle.reportLocation(k, m * 16);
            ours.reportLocation(k, m * 16);
          }
          const expected = pgSerialScan(oracle, KEY, nblocks, start, sync, backward, stopAfter);
          const scan = createSerialScan({
            nblocks,
            startBlock: start,
            sync,
            direction: backward ? "backward" : "forward",
          });
          // Stopped on its m-th block = finished m - 1 blocks and standing on the next one.
          // (Stopped on the last block is not complete: the end report has not happened yet.)
          const complete = stopAfter > nblocks;
          const step = continueSerialScan(ours, KEY, scan, complete ? nblocks : stopAfter - 1);
          const visited = blocksOf(scan, step.visited);
          if (!complete) visited.push(serialScanBlock(step.scan)!);
          expect(visited).toEqual(expected);
          expect(serialScanDone(step.scan)).toBe(complete);
          expect(ours.entries()).toEqual(oracle.entries());
        },
      ),
      { numRuns: 400 },
    );
  });

  it("cutting a scan into arbitrary runs gives the same result as one run", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 500 }),
        fc.nat(),
        fc.array(fc.integer({ min: 0, max: 80 }), { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 0, max: 20 }),
        (nblocks, startSeed, cuts, lookahead) => {
          const a = new InProcessSyncScanTracker();
          const b = new InProcessSyncScanTracker();
          const opts = { nblocks, startBlock: startSeed % nblocks, sync: true, lookaheadBlocks: lookahead };
          let scan = createSerialScan(opts);
          const visitedA: number[] = [];
          for (const k of cuts) {
            const step = continueSerialScan(a, KEY, scan, k);
            visitedA.push(...blocksOf(scan, step.visited));
            scan = step.scan;
          }
          const total = scan.position;
          const one = continueSerialScan(b, KEY, createSerialScan(opts), total);
          expect(visitedA).toEqual(blocksOf(scan, one.visited));
          expect(a.entries()).toEqual(b.entries());
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("PG17+ look-ahead (apps/docs/src/reference/synchronized-scans.md#read-streams-report-ahead)", () => {
  /**
   * A read stream driving PostgreSQL's serial callback (the oracle): the stream
   * keeps asking for block numbers until it is `d` positions ahead of the block
   * being processed; every ask after the first runs heapgettup_advance_block,
   * which reports the block it moves to, the start block when it wraps back to it.
   * Returns the blocks processed and, for each, the block asked for (reported)
   * when the scan moved onto it (the last of the initial fill for the first one).
   */
  function pgStreamScan(
    tracker: SyncScanTracker,
    nblocks: number,
    start: number,
    d: number,
    stopAfter: number,
  ) {
    const asked: number[] = [start]; // heapgettup_initial_block: no report
    let ended = false;
    let lastAsk: number | null = null;
    const ask = () => {
      let b = asked.at(-1)! + 1;
      if (b === nblocks) b = 0;
      tracker.reportLocation(KEY, b);
      if (b === start) ended = true;
      else asked.push(b);
      lastAsk = b;
    };
    while (!ended && asked.length < 1 + d) ask();
    const processed: number[] = [];
    const reportedOnArrival: (number | null)[] = [];
    for (let p = 0; processed.length < stopAfter; p++) {
      if (p >= 1) {
        lastAsk = null;
        if (!ended) ask();
      }
      if (p >= asked.length) break;
      reportedOnArrival.push(lastAsk);
      processed.push(asked[p]!);
    }
    return { processed, reportedOnArrival };
  }

  it("lookaheadReportedBlock names the block the stream reports when the scan moves onto a block", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }),
        fc.nat(),
        fc.integer({ min: 0, max: 40 }),
        (nblocks, startSeed, d) => {
          const start = startSeed % nblocks;
          const { processed, reportedOnArrival } = pgStreamScan(
            new InProcessSyncScanTracker(),
            nblocks,
            start,
            d,
            nblocks,
          );
          expect(processed).toHaveLength(nblocks);
          processed.forEach((b, p) => {
            expect(lookaheadReportedBlock({ startBlock: start, nblocks, lookaheadBlocks: d }, b)).toBe(
              reportedOnArrival[p],
            );
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it("the run-level scan with a look-ahead leaves what the stream leaves", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }),
        fc.nat(),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 1, max: 400 }),
        (nblocks, startSeed, d, stopAfter) => {
          // A start the tracker could have handed out: a multiple of 16 inside the table.
          const start = (startSeed % nblocks) - ((startSeed % nblocks) % 16);
          const oracle = new InProcessSyncScanTracker();
          const ours = new InProcessSyncScanTracker();
          oracle.reportLocation(KEY, start);
          ours.reportLocation(KEY, start);
          pgStreamScan(oracle, nblocks, start, d, stopAfter);
          // nbuffers 1: threshold 0, every non-empty table synchronizes.
          const scan = beginSerialScan(ours, { key: KEY, nblocks, nbuffers: 1, lookaheadBlocks: d });
          expect(scan.startBlock).toBe(start);
          continueSerialScan(ours, KEY, scan, stopAfter > nblocks ? nblocks : stopAfter - 1);
          expect(ours.entries()).toEqual(oracle.entries());
        },
      ),
      { numRuns: 300 },
    );
  });

  it("worked example: PG17 with io_combine_limit 16 reports 16 blocks ahead", () => {
    const scan = { startBlock: 0, nblocks: 1000, lookaheadBlocks: 16 };
    expect(lookaheadReportedBlock(scan, 100)).toBe(116);
    expect(lookaheadReportedBlock(scan, 0)).toBe(16); // the stream's first fill: 1..16
    expect(lookaheadReportedBlock({ ...scan, lookaheadBlocks: 0 }, 100)).toBe(100);
    expect(lookaheadReportedBlock({ ...scan, lookaheadBlocks: 0 }, 0)).toBeNull(); // start: not reported on the way in
    expect(lookaheadReportedBlock(scan, 984)).toBe(0); // asks past the end: reports the start block
    expect(lookaheadReportedBlock(scan, 990)).toBeNull();
    // A scan stopped on block 100 has stored 112 (last multiple of 16 in 1..116), not 96.
    const t = new InProcessSyncScanTracker();
    const s = beginSerialScan(t, { key: KEY, nblocks: 1000, nbuffers: NBUFFERS, lookaheadBlocks: 16 });
    continueSerialScan(t, KEY, s, 100);
    expect(t.getLocation(KEY, 1000)).toBe(112);
  });
});
