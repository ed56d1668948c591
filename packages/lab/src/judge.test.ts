import { describe, expect, it } from "vitest";
import { type Cell, judgeCell, type Prediction, planLab, type RunRecord, summarize } from "./index.js";

// A PG18 cold bitmap cell on a virtual machine whose balloon reports free pages: a cold read of a
// few tens of MiB lands on still-backed memory in one run and on reported memory in the next.
const plan = planLab({ pgMajors: [18], quick: false, deviceReadAheadKb: 8192, readAheadRefusal: null });
const cell = plan.cells.find((c) => c.id === "pg18 bitmap bitmap_sequential sel5% eic0 io-sync cold")!;
const fitCell = plan.cells.find((c) => c.role === "fit")!;

const runs = (...ms: number[]): RunRecord[] =>
  ms.map((executionMs) => ({
    executionMs,
    clientMs: executionMs + 1,
    deviceBytes: 23.5e6,
    deviceReads: 18,
    sharedHitBlocks: 0,
    sharedReadBlocks: 1681,
    residentBefore: 0,
    workersLaunched: 0,
  }));
const predicted = (timeMs: number): Prediction => ({
  timeMs,
  deviceBytes: 23.5e6,
  avgRequestBytes: 1.3e6,
  sharedHitBlocks: 0,
  sharedReadBlocks: 1680,
});

describe("judgeCell: a miss inside the cell's own runs", () => {
  it("is marked when the prediction lies between the fastest and the slowest run", () => {
    // Runs of 38, 72 and 76 ms: the median is 72, and 45 ms is 0.63 of it, a miss.
    const r = judgeCell(cell, runs(38, 72, 76), predicted(45), []);
    expect(r.timeWithin).toBe(false);
    expect(r.timeRatio).toBeCloseTo(45 / 72, 6);
    expect(r.missWithinRuns).toBe(true);
  });

  it("is not marked when the prediction lies outside every run", () => {
    // The same spread, but 89 ms is slower than the slowest run.
    expect(judgeCell(cell, runs(38, 72, 76), predicted(89), []).missWithinRuns).toBe(false);
    // Runs that agree with each other leave no room: 45 ms is a plain miss.
    expect(judgeCell(cell, runs(70, 71, 72), predicted(45), []).missWithinRuns).toBe(false);
  });

  it("has no such mark for a hit or a fit cell", () => {
    expect(judgeCell(cell, runs(38, 72, 76), predicted(75), []).missWithinRuns).toBeNull();
    expect(judgeCell(fitCell, runs(38, 72, 76), predicted(45), []).missWithinRuns).toBeNull();
  });

  it("is counted apart from the hits in the summary", () => {
    const cells = [
      judgeCell(cell, runs(38, 72, 76), predicted(45), []),
      judgeCell(cell, runs(38, 72, 76), predicted(89), []),
      judgeCell(cell, runs(70, 71, 72), predicted(75), []),
    ];
    const s = summarize(cells, []);
    expect([s.predicted, s.timeWithin, s.missesWithinRuns]).toEqual([3, 1, 1]);
  });
});

// The cell ids this file relies on exist in the full plan.
it("uses cells of the full PG18 plan", () => {
  expect((cell as Cell | undefined)?.role).toBe("predict");
  expect(fitCell.pg).toBe(18);
});
