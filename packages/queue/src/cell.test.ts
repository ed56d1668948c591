import { UnrecoverableError } from "bullmq";
import { describe, expect, it } from "vitest";
import { cellHash, cellJobId, checkSweepId, decodeMetrics, defaultSweepId, encodeMetrics } from "./cell.js";
import { QueueError } from "./errors.js";
import { checkCell, INVALID_CELL } from "./worker.js";

const scenario = {
  name: "cell",
  seed: 7,
  machine: { cores: 4, ram: "2GB", os: "linux-5.4", device: "intel-ssd-320-120gb" },
  tables: [{ name: "t", size: "64MB", tuplesPerPage: 226 }],
  queries: [{ name: "q", table: "t", pg: "14", workers: 2 }],
};

describe("cellHash", () => {
  it("ignores key order and sees every value, the seed included", () => {
    const reordered = {
      queries: scenario.queries,
      tables: scenario.tables,
      machine: scenario.machine,
      seed: 7,
      name: "cell",
    };
    expect(cellHash(reordered)).toBe(cellHash(scenario));
    expect(cellHash({ ...scenario, seed: 8 })).not.toBe(cellHash(scenario));
    expect(cellHash(scenario)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("gives a sweep the same default id for the same cells, another for others", () => {
    const a = [cellHash(scenario), cellHash({ ...scenario, seed: 8 })];
    expect(defaultSweepId(a)).toBe(defaultSweepId([...a]));
    expect(defaultSweepId(a)).not.toBe(defaultSweepId(a.slice(0, 1)));
    expect(() => checkSweepId(defaultSweepId(a))).not.toThrow();
  });
});

describe("checkSweepId", () => {
  it("takes letters, digits, _ and -, refuses the rest with a QueueError", () => {
    expect(checkSweepId("ra_sweep-2")).toBe("ra_sweep-2");
    for (const bad of ["", "a:b", "a b", "x".repeat(65), "../x"]) {
      expect(() => checkSweepId(bad)).toThrow(QueueError);
    }
  });
});

describe("encodeMetrics / decodeMetrics", () => {
  it("keep every number exactly through JSON, NaN, infinities and -0 included", () => {
    const m = {
      timeS: 1.2345678901234567,
      mibPerS: Number.NaN,
      avgReadKb: Number.POSITIVE_INFINITY,
      syncShare: Number.NEGATIVE_INFINITY,
      iops: -0,
      osHitRatio: 0.1 + 0.2,
      cacheHitRatio: 5e-324,
      sharedHitRatio: 0,
      meanQueueDepth: 1e300,
      meanRunBlocks: 16,
    };
    const back = decodeMetrics(JSON.parse(JSON.stringify(encodeMetrics(m))))!;
    expect(Object.keys(back)).toEqual(Object.keys(m));
    for (const k of Object.keys(m) as (keyof typeof m)[]) expect(Object.is(back[k], m[k]), k).toBe(true);
  });

  it("refuse what is not a result", () => {
    expect(decodeMetrics(null)).toBeNull();
    expect(decodeMetrics([1])).toBeNull();
    expect(decodeMetrics({ timeS: "1" })).toBeNull();
    expect(decodeMetrics({ timeS: { $number: "1e3" } })).toBeNull();
  });
});

describe("checkCell", () => {
  const hash = cellHash(scenario);
  const good = { v: 1, sweep: "s1", hash, scenario, overBudget: false, enqueuedAt: Date.now() };
  const id = cellJobId("s1", hash);

  it("accepts a cell whose job id is its sweep id and hash", () => {
    expect(checkCell(good, id)).toBe(good);
  });

  it("fails for good (no retry) anything else, naming the problem", () => {
    const cases: [unknown, string | undefined, RegExp][] = [
      ["just text", id, /not an object/],
      [{ ...good, script: "rm -rf /" }, id, /fields are/],
      [{ ...good, v: 2 }, id, /format 2/],
      [{ ...good, sweep: "a:b" }, id, /sweep id/],
      [{ ...good, hash: "abc" }, id, /SHA-256/],
      [{ ...good, overBudget: "yes" }, id, /overBudget/],
      [{ ...good, scenario: "scenario.json" }, id, /scenario is not an object/],
      [good, cellJobId("s2", hash), /job id/],
      [{ ...good, enqueuedAt: 0 }, id, /waited on the queue/],
      [{ ...good, scenario: { ...scenario, name: "x".repeat(1024 * 1024) } }, id, /over the/],
    ];
    for (const [data, jobId, why] of cases) {
      let error: unknown;
      try {
        checkCell(data, jobId);
      } catch (e) {
        error = e;
      }
      expect(error, String(why)).toBeInstanceOf(UnrecoverableError);
      expect((error as Error).message.startsWith(`${INVALID_CELL}: `)).toBe(true);
      expect((error as Error).message).toMatch(why);
    }
  });
});
