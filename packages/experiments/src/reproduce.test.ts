/**
 * Running a reproduction target: the calibration root search
 * (`solveMonotone`), `reproduceTarget` on a small fake experiment whose
 * "simulator" returns crafted results (the entry point is injected), and
 * `rowMetrics` on real simulations small enough to check by hand.
 */
import {
  type RowMetrics,
  type RunResult,
  rowMetrics,
  type ScenarioInput,
  type SimulationResult,
  simulate,
} from "@scanlab/simulator";
import { describe, expect, it } from "vitest";
import { reproduceTarget, reproduceTargetAsync, type SimulationRequest, solveMonotone } from "./reproduce.js";
import type { Experiment, ExperimentRow } from "./types.js";

describe("solveMonotone", () => {
  /** f, counting its evaluations. */
  function counted(f: (v: number) => number) {
    const g = (v: number) => {
      g.calls++;
      return f(v);
    };
    g.calls = 0;
    return g;
  }

  it("a straight line is solved by the first secant: 2v + 1 = 5 at v = 2, in 3 evaluations", () => {
    const f = counted((v) => 2 * v + 1);
    const s = solveMonotone(f, 5, 0, 10);
    expect(s.value).toBe(2);
    expect(s.time).toBe(5);
    expect(s.reached).toBe(true);
    expect(s.iterations).toBe(3);
    expect(f.calls).toBe(3);
  });

  it("a convex increasing f: v^3 = 8 to within 1% of 8, reporting f at the value it returns", () => {
    const f = counted((v) => v ** 3);
    const s = solveMonotone(f, 8, 0.1, 10);
    expect(s.reached).toBe(true);
    expect(Math.abs(s.time - 8)).toBeLessThanOrEqual(0.08);
    expect(s.time).toBeCloseTo(s.value ** 3, 12);
    expect(s.value).toBeGreaterThan(1.99);
    expect(s.value).toBeLessThan(2.01);
    expect(s.iterations).toBe(f.calls);
    expect(s.iterations).toBeLessThanOrEqual(14);
  });

  it("a steep exponential converges (the Illinois step halves the stuck end), but only within 14 evaluations", () => {
    const s = solveMonotone(Math.exp, 1000, 0, 10);
    expect(s.reached).toBe(true);
    expect(Math.abs(s.time / 1000 - 1)).toBeLessThanOrEqual(0.01);
    expect(s.value).toBeCloseTo(Math.log(1000), 2);
    expect(s.iterations).toBeLessThanOrEqual(14);
    // On [0, 20] (e^20 = 4.9e8) 14 evaluations are not enough: reported, not pretended.
    const far = solveMonotone(Math.exp, 1000, 0, 20);
    expect(far.iterations).toBe(14);
    expect(far.reached).toBe(false);
    expect(far.time).toBeCloseTo(Math.exp(far.value), 9);
  });

  it("stops at 1%, not at the exact root: the tolerance is relative to the target", () => {
    // The first secant for v^2 = 100 on [0, 100] lands at v = 1 (f = 1), far off; it keeps going
    // until |f - 100| <= 1, and the answer need not be exactly 10.
    const s = solveMonotone((v) => v * v, 100, 0, 100);
    expect(s.reached).toBe(true);
    expect(Math.abs(s.time - 100)).toBeLessThanOrEqual(1);
    expect(Math.abs(s.value - 10)).toBeLessThanOrEqual(0.05);
  });

  it("a target below f(lo) is reported as not reached at lo, not quietly clamped", () => {
    const f = counted((v) => 50 + v);
    const s = solveMonotone(f, 10, 0, 100);
    expect(s).toEqual({ value: 0, time: 50, reached: false, iterations: 2 });
    expect(f.calls).toBe(2);
  });

  it("a target above f(hi) is reported as not reached at hi", () => {
    const s = solveMonotone((v) => v, 500, 0, 100);
    expect(s).toEqual({ value: 100, time: 100, reached: false, iterations: 2 });
  });

  it("a bound within 1% of the target counts as reached", () => {
    const s = solveMonotone((v) => 100 + v, 99.5, 0, 10);
    expect(s.value).toBe(0);
    expect(s.reached).toBe(true);
  });

  it("f must be increasing: a decreasing f gets a bound back, flagged not reached", () => {
    // 100 - v = 40 at v = 60, but the search only handles increasing functions: it sees
    // f(lo) above the target and stops at lo, saying so.
    const s = solveMonotone((v) => 100 - v, 40, 0, 100);
    expect(s.value).toBe(0);
    expect(s.reached).toBe(false);
    // A decreasing relation is solved by flipping its argument: g(u) = f(100 - u).
    const flipped = solveMonotone((u) => 100 - (100 - u), 40, 0, 100);
    expect(100 - flipped.value).toBeCloseTo(60, 9);
    expect(flipped.reached).toBe(true);
  });

  // Each test below fails without the non-finite checks in solveSteps: the search would go on
  // evaluating f at NaN for 14 evaluations.
  it("a run that did not finish (NaN) at lo ends the search at once, not reached", () => {
    const f = counted(() => Number.NaN);
    const s = solveMonotone(f, 10, 0, 1);
    expect(s.value).toBe(0);
    expect(s.reached).toBe(false);
    expect(Number.isNaN(s.time)).toBe(true);
    expect(s.iterations).toBe(1);
    expect(f.calls).toBe(1);
  });

  it("NaN at hi: lo is returned with its own time, not reached", () => {
    const f = counted((v) => (v === 10 ? Number.NaN : v));
    const s = solveMonotone(f, 5, 0, 10);
    expect(s).toEqual({ value: 0, time: 0, reached: false, iterations: 2 });
    expect(f.calls).toBe(2);
  });

  it("NaN inside the interval stops the search at the best finite value; f is never asked about NaN", () => {
    const asked: number[] = [];
    const s = solveMonotone(
      (v) => {
        asked.push(v);
        return v > 0 && v < 10 ? Number.NaN : 2 * v;
      },
      5,
      0,
      10,
    );
    expect(asked.every(Number.isFinite)).toBe(true);
    expect(asked).toHaveLength(3);
    // f(0) = 0 is 5 off, f(10) = 20 is 15 off: 0 is the closer.
    expect(s).toEqual({ value: 0, time: 0, reached: false, iterations: 3 });
  });

  it("not reached: the closer of the two bounds is returned when no interior point beats it", () => {
    // With best starting at lo, this would return lo (time 50, 50% off) rather than
    // hi (time 102, 2% off). The interior run did not finish, so the bounds are all there is.
    const s = solveMonotone((v) => (v === 0 ? 50 : v === 10 ? 102 : Number.NaN), 100, 0, 10);
    expect(s).toEqual({ value: 10, time: 102, reached: false, iterations: 3 });
  });

  it("a jump across the target is never reached: 14 evaluations, the closest value found, reached false", () => {
    const f = counted((v) => (v < 3 ? 1 : 10));
    const s = solveMonotone(f, 5, 0, 10);
    expect(s.reached).toBe(false);
    expect(s.iterations).toBe(14);
    expect(f.calls).toBe(14);
    // The best point is one of the two levels (error 4 below or 5 above): it is below the jump.
    expect(s.time).toBe(1);
    expect(s.value).toBeLessThan(3);
  });
});

// ---------------------------------------------------------------------------
// reproduceTarget on a fake experiment.

/** A result with one finished run of `durationS` over `blocks` blocks, and chosen device figures. */
function fakeResult(
  durationS: number,
  over: {
    blocks?: number;
    claims?: number;
    deviceBytes?: number;
    confidence?: "high" | "medium" | "low";
    runs?: Partial<RunResult>[];
  } = {},
): SimulationResult {
  const blocks = over.blocks ?? 1000;
  const runs: RunResult[] = (over.runs ?? [{}]).map((r, i) => ({
    client: 0,
    run: i,
    startS: 0,
    durationS,
    finished: true,
    blocks,
    claims: over.claims ?? 1,
    sharedHits: 0,
    startBlock: 0,
    participants: [],
    ...r,
  }));
  const deviceBytes = over.deviceBytes ?? blocks * 8192;
  return {
    scenario: "fake",
    seed: 1,
    warp: { cuts: 0, restores: 0, skippedBlocks: 0, skippedS: 0 },
    simulatedS: durationS,
    queries: [{ name: "q", table: "t", runs, meanDurationS: durationS, mibPerS: 0 }],
    device: {
      reads: deviceBytes / 131072,
      bytes: deviceBytes,
      avgReadKb: 128,
      syncShare: 0.25,
      iops: 1234,
      utilisation: 0.5,
      meanQueueDepth: 3,
    },
    os: { requestedBytes: deviceBytes, deviceBytes, hitRatio: 0.125, confidence: over.confidence ?? "high" },
    sharedBuffers: { hits: 0, misses: blocks, hitRatio: 0.375 },
    allocator: { ops: 0, waitS: 0, busyS: 0 },
    series: { deviceMibPerS: [] },
    events: 0,
  };
}

/** A tiny scenario whose name says which row it is; perTupleUs carries the calibrated unknown. */
function fakeScenario(
  row: string,
  perTupleUs: number,
  os: ScenarioInput["machine"]["os"] = "linux-5.4",
): ScenarioInput {
  return {
    name: row,
    machine: { cores: 1, ram: "1GB", os, device: "intel-ssd-320-120gb", cpu: { perTupleUs } },
    tables: [{ name: "t", blocks: 1000, tuplesPerPage: 10 }],
    queries: [{ name: "q", table: "t" }],
  };
}

/**
 * Rows "base" (published 10 s), "fast" (published 4 s), "slow" (published 30 s, compared on
 * throughput) and "extra" (nothing published). The fake simulator makes each row take
 * factor x 100 x perTupleUs seconds.
 */
const FACTORS: Record<string, number> = { base: 1, fast: 0.5, slow: 2, extra: 3 };

function fakeRows(perTupleUs = 0.05): ExperimentRow[] {
  return [
    {
      id: "base",
      label: "baseline",
      scenario: fakeScenario("base", perTupleUs),
      published: { timeS: 10 },
      metric: "timeS",
    },
    {
      id: "fast",
      label: "fast",
      scenario: fakeScenario("fast", perTupleUs),
      published: { timeS: 4 },
      metric: "timeS",
    },
    {
      id: "slow",
      label: "slow, on Windows",
      scenario: fakeScenario("slow", perTupleUs, "windows"),
      published: { timeS: 30, mibPerS: 0.5 },
      metric: "mibPerS",
    },
    { id: "extra", label: "extra", scenario: fakeScenario("extra", perTupleUs) },
  ];
}

function fakeSimulate() {
  const calls: { row: string; perTupleUs: number }[] = [];
  const simulate = (input: ScenarioInput): SimulationResult => {
    const perTupleUs = input.machine.cpu!.perTupleUs!;
    calls.push({ row: input.name, perTupleUs });
    return fakeResult(FACTORS[input.name]! * 100 * perTupleUs, {
      confidence: input.machine.os === "windows" ? "low" : "high",
    });
  };
  return { simulate, calls };
}

function fakeExperiment(
  over: Partial<Experiment> = {},
): Experiment & { seen: ReadonlyMap<string, RowMetrics>[] } {
  const seen: ReadonlyMap<string, RowMetrics>[] = [];
  return {
    id: "TX",
    title: "a fake target",
    source: "this test",
    assumptions: ["none really"],
    rows: () => fakeRows(),
    ratios: [
      {
        id: "fast-speed",
        label: "fast vs base, speed",
        kind: "speed",
        numerator: "fast",
        denominator: "base",
        published: 2.5,
        tolerance: 0.25,
      },
      {
        id: "slow-time",
        label: "slow vs base, time",
        kind: "time",
        numerator: "slow",
        denominator: "base",
        published: 3,
        tolerance: 0.25,
      },
    ],
    statements: [
      {
        id: "fast-is-faster",
        text: "fast is faster than base",
        check(rows) {
          seen.push(rows);
          const x = rows.get("base")!.timeS / rows.get("fast")!.timeS;
          return { holds: x > 1, detail: `speed-up ${x}` };
        },
      },
      {
        id: "never",
        text: "a statement the model does not make true",
        check: () => ({ holds: false, detail: "as crafted" }),
      },
    ],
    ...over,
    seen,
  };
}

/** The fake experiment with its per-tuple cost calibrated on row "base" within `bounds`. */
function calibratedOnBase(bounds: [number, number]): Experiment {
  return fakeExperiment({
    calibration: {
      unknown: "CPU cost per tuple",
      row: "base",
      metric: "timeS",
      bounds,
      apply: (v) => fakeRows(v),
    },
  });
}

describe("reproduceTarget on a fake experiment", () => {
  it("without calibration: every row simulated once, published beside simulated, ratio on the row's metric", () => {
    const { simulate, calls } = fakeSimulate();
    const rep = reproduceTarget(fakeExperiment(), { simulate, noCalibration: true });
    expect(rep.calibration).toBeNull();
    expect(calls.map((c) => c.row)).toEqual(["base", "fast", "slow", "extra"]);
    expect(rep).toMatchObject({
      id: "TX",
      title: "a fake target",
      source: "this test",
      assumptions: ["none really"],
    });
    // Times at perTupleUs 0.05: base 5 s, fast 2.5 s, slow 10 s, extra 15 s.
    const byId = new Map(rep.rows.map((r) => [r.id, r]));
    expect(byId.get("base")).toMatchObject({ published: { timeS: 10 }, metric: "timeS", ratio: 0.5 });
    expect(byId.get("base")!.simulated.timeS).toBe(5);
    expect(byId.get("fast")!.ratio).toBeCloseTo(2.5 / 4, 12);
    // slow is compared on throughput: 1000 blocks = 7.8125 MiB in 10 s = 0.78125 MiB/s, published 0.5.
    expect(byId.get("slow")!.simulated.mibPerS).toBeCloseTo(0.78125, 12);
    expect(byId.get("slow")!.ratio).toBeCloseTo(0.78125 / 0.5, 12);
    expect(byId.get("extra")).toMatchObject({ published: null, metric: null, ratio: null });
  });

  it("ratio bars: speed = time(den) / time(num), time = time(num) / time(den); gap and tolerance", () => {
    const { simulate } = fakeSimulate();
    const rep = reproduceTarget(fakeExperiment(), { simulate, noCalibration: true });
    const [speed, time] = rep.ratios;
    // fast runs in half base's time: speed 2 against a published 2.5, gap -20%, within 25%.
    expect(speed).toMatchObject({ id: "fast-speed", published: 2.5, tolerance: 0.25, withinTolerance: true });
    expect(speed!.simulated).toBeCloseTo(2, 12);
    expect(speed!.gap).toBeCloseTo(-0.2, 12);
    // slow takes twice base's time: 2 against a published 3, gap -33%, outside 25%.
    expect(time!.simulated).toBeCloseTo(2, 12);
    expect(time!.gap).toBeCloseTo(-1 / 3, 12);
    expect(time!.withinTolerance).toBe(false);
  });

  it("a miss carries the mechanism believed missing; a statement that holds or a ratio within tolerance does not", () => {
    const { simulate } = fakeSimulate();
    const base = fakeExperiment();
    const exp = fakeExperiment({
      ratios: base.ratios.map((r) => ({ ...r, missing: `what ${r.id} lacks` })),
      statements: base.statements.map((st) => ({ ...st, missing: `what ${st.id} lacks` })),
    });
    const rep = reproduceTarget(exp, { simulate, noCalibration: true });
    expect(rep.ratios.map((r) => r.missing)).toEqual([undefined, "what slow-time lacks"]);
    expect(rep.statements.map((st) => st.missing)).toEqual([undefined, "what never lacks"]);
    expect("missing" in rep.statements[0]!).toBe(false);
  });

  it("statements: holds and detail are passed through; the check sees every row's metrics", () => {
    const { simulate } = fakeSimulate();
    const exp = fakeExperiment();
    const rep = reproduceTarget(exp, { simulate, noCalibration: true });
    expect(rep.statements).toEqual([
      { id: "fast-is-faster", text: "fast is faster than base", holds: true, detail: "speed-up 2" },
      { id: "never", text: "a statement the model does not make true", holds: false, detail: "as crafted" },
    ]);
    expect(exp.seen).toHaveLength(1);
    expect([...exp.seen[0]!.keys()]).toEqual(["base", "fast", "slow", "extra"]);
    expect(exp.seen[0]!.get("extra")!.timeS).toBe(15);
  });

  it("a low-confidence OS model adds one note per row that used it", () => {
    const { simulate } = fakeSimulate();
    const rep = reproduceTarget(fakeExperiment(), { simulate, noCalibration: true });
    expect(rep.notes).toEqual(["slow, on Windows: the OS readahead model is low-confidence (windows)."]);
  });

  it("calibration: the unknown is found so the baseline row's time is within 1% of the published one", () => {
    const { simulate, calls } = fakeSimulate();
    const exp = calibratedOnBase([0.001, 1]);
    const onRow: string[] = [];
    const rep = reproduceTarget(exp, { simulate, onRow: (_e, id) => onRow.push(id) });
    const cal = rep.calibration!;
    // base takes 100 x v seconds; published 10 s -> v = 0.1.
    expect(cal).toMatchObject({ unknown: "CPU cost per tuple", row: "base", publishedS: 10, reached: true });
    expect(Math.abs(cal.value / 0.1 - 1)).toBeLessThanOrEqual(0.01);
    expect(cal.simulatedS).toBeCloseTo(100 * cal.value, 12);
    // The search evaluated only the baseline row.
    const searching = calls.slice(0, cal.iterations);
    expect(searching.every((c) => c.row === "base")).toBe(true);
    expect(onRow.slice(0, cal.iterations)).toEqual(Array(cal.iterations).fill("base (calibrating)"));
    // Every other row is a prediction at the calibrated value.
    const fast = rep.rows.find((r) => r.id === "fast")!;
    expect(fast.simulated.timeS).toBeCloseTo(50 * cal.value, 12);
    for (const c of calls.filter((c) => c.row !== "base")) expect(c.perTupleUs).toBe(cal.value);
    expect(rep.rows.find((r) => r.id === "base")!.simulated.timeS).toBeCloseTo(cal.simulatedS, 12);
  });

  it("calibration that cannot reach the baseline stops at the closer bound and says so", () => {
    const { simulate } = fakeSimulate();
    // base takes at most 100 x 0.05 = 5 s here, never the published 10 s.
    const exp = calibratedOnBase([0.001, 0.05]);
    const cal = reproduceTarget(exp, { simulate }).calibration!;
    expect(cal.value).toBe(0.05);
    expect(cal.simulatedS).toBe(5);
    expect(cal.reached).toBe(false);
  });

  it("a calibration row without a published time is a programming error", () => {
    const { simulate } = fakeSimulate();
    const exp = fakeExperiment({
      calibration: { unknown: "x", row: "extra", metric: "timeS", bounds: [0, 1], apply: (v) => fakeRows(v) },
    });
    expect(() => reproduceTarget(exp, { simulate })).toThrow(/calibration row extra has no published time/);
  });

  it("stopped during calibration: no calibration, no rows, and no more simulations", () => {
    // A sync driver that ignored shouldStop while calibrating would run every row.
    const { simulate, calls } = fakeSimulate();
    let n = 0;
    const rep = reproduceTarget(calibratedOnBase([0.001, 1]), { simulate, shouldStop: () => n++ >= 2 });
    expect(calls).toHaveLength(2);
    expect(rep.calibration).toBeNull();
    expect(rep.rows).toEqual([]);
    expect(rep.ratios).toEqual([]);
    expect(rep.statements).toEqual([]);
  });

  it("stopped early: the rows run so far, and no ratios or statements (they need every row)", () => {
    const { simulate, calls } = fakeSimulate();
    const exp = fakeExperiment();
    let n = 0;
    const rep = reproduceTarget(exp, { simulate, noCalibration: true, shouldStop: () => n++ >= 2 });
    expect(rep.rows.map((r) => r.id)).toEqual(["base", "fast"]);
    expect(calls).toHaveLength(2);
    expect(rep.ratios).toEqual([]);
    expect(rep.statements).toEqual([]);
    expect(exp.seen).toHaveLength(0);
  });
});

describe("reproduceTarget: the calibration run is reused; reproduceTargetAsync gives the same report", () => {
  const calibrated = () => calibratedOnBase([0.001, 1]);

  it("the baseline at the calibrated value is not simulated again (the simulator is deterministic)", () => {
    const { simulate, calls } = fakeSimulate();
    const rep = reproduceTarget(calibrated(), { simulate });
    const iterations = rep.calibration!.iterations;
    expect(calls).toHaveLength(iterations + 3);
    expect(calls.slice(iterations).map((c) => c.row)).toEqual(["fast", "slow", "extra"]);
    // The baseline's reported figures are those of the search's last (accepted) evaluation.
    expect(rep.rows.find((r) => r.id === "base")!.simulated.timeS).toBe(rep.calibration!.simulatedS);
  });

  it("async: calibration steps one at a time, then the other rows in one batch; same report as the sync driver", async () => {
    const { simulate } = fakeSimulate();
    const sync = reproduceTarget(calibrated(), { simulate });
    const batches: string[][] = [];
    let pending: string[] = [];
    const asyncSimulate = async (request: SimulationRequest) => {
      pending.push(request.step);
      // Requests issued together are collected before any of them resolves.
      await Promise.resolve();
      if (pending.length > 0) batches.push(pending);
      pending = [];
      return simulate(request.scenario);
    };
    const rep = await reproduceTargetAsync(calibrated(), { simulate: asyncSimulate });
    expect(rep).toEqual(sync);
    const iterations = rep.calibration!.iterations;
    expect(batches.slice(0, iterations)).toEqual(Array(iterations).fill(["base (calibrating)"]));
    expect(batches.slice(iterations)).toEqual([["fast", "slow", "extra"]]);
  });

  it("async: a row that did not run is left out, and then there are no ratios or statements", async () => {
    const { simulate } = fakeSimulate();
    const rep = await reproduceTargetAsync(fakeExperiment(), {
      noCalibration: true,
      simulate: async (r) => (r.step === "slow" ? undefined : simulate(r.scenario)),
    });
    expect(rep.rows.map((r) => r.id)).toEqual(["base", "fast", "extra"]);
    expect(rep.ratios).toEqual([]);
    expect(rep.statements).toEqual([]);
  });

  it("async: a calibration cut short is no calibration, and no rows", async () => {
    const { simulate } = fakeSimulate();
    let n = 0;
    const rep = await reproduceTargetAsync(calibrated(), {
      simulate: async (r) => (n++ >= 2 ? undefined : simulate(r.scenario)),
    });
    expect(rep.calibration).toBeNull();
    expect(rep.rows).toEqual([]);
    expect(rep.ratios).toEqual([]);
  });
});

describe("rowMetrics", () => {
  it("on crafted results: mean of finished runs, blocks per claim, device bytes against blocks scanned", () => {
    const r = fakeResult(0, {
      blocks: 1000,
      claims: 10,
      deviceBytes: 250 * 8192,
      runs: [{ durationS: 2 }, { durationS: 4 }, { durationS: 0, finished: false, blocks: 0, claims: 0 }],
    });
    const m = rowMetrics(r, fakeScenario("base", 0.05));
    expect(m.timeS).toBe(3);
    expect(m.mibPerS).toBeCloseTo((1000 * 8192) / 1048576 / 3, 12);
    // 2000 blocks scanned by the finished runs, 250 read from the device.
    expect(m.cacheHitRatio).toBeCloseTo(1 - 250 / 2000, 12);
    expect(m.meanRunBlocks).toBe(100);
    // Passed through from the result.
    expect(m).toMatchObject({
      avgReadKb: 128,
      syncShare: 0.25,
      iops: 1234,
      osHitRatio: 0.125,
      sharedHitRatio: 0.375,
      meanQueueDepth: 3,
    });
  });

  it("no finished run: time is NaN, not 0", () => {
    const r = fakeResult(0, { runs: [{ finished: false }] });
    expect(Number.isNaN(rowMetrics(r, fakeScenario("base", 0.05)).timeS)).toBe(true);
  });

  const small = (over: Partial<ScenarioInput> = {}): ScenarioInput => ({
    name: "row",
    machine: { cores: 8, ram: "4GB", os: "linux-5.4", device: "intel-ssd-320-120gb", cpu: { jitter: 0 } },
    tables: [{ name: "t", blocks: 10_000, tuplesPerPage: 100, cached: "os" }],
    queries: [{ name: "q", table: "t" }],
    ...over,
  });

  it("a cached serial scan: one claim of the whole table, no device reads, everything from a cache", () => {
    const s = small();
    const r = simulate(s);
    const m = rowMetrics(r, s);
    // 10,000 x (pread 0.35 + 8192/12000 us, then 1 + 100 x 0.05 us of page work).
    const perBlockUs = 0.35 + 8192 / 12000 + 1 + 100 * 0.05;
    expect(m.timeS).toBeCloseTo((10_000 * perBlockUs) / 1e6, 9);
    expect(m.mibPerS).toBeCloseTo(78.125 / m.timeS, 9);
    expect(m.meanRunBlocks).toBe(10_000);
    expect(m.avgReadKb).toBe(0);
    expect(m.cacheHitRatio).toBe(1);
    expect(m.osHitRatio).toBe(1);
  });

  it("a cold parallel PG14 scan: 4-block chunks ramping down, nearly nothing from a cache", () => {
    const s = small({
      tables: [{ name: "t", blocks: 10_000, tuplesPerPage: 100 }],
      queries: [{ name: "q", table: "t", workers: 2 }],
    });
    const r = simulate(s);
    const m = rowMetrics(r, s);
    const x = r.queries[0]!.runs[0]!;
    expect(m.timeS).toBe(x.durationS);
    expect(m.meanRunBlocks).toBeCloseTo(10_000 / x.claims, 12);
    // 10,000 div 2048 = 4, already a power of two: chunks of 4 blocks, fewer at the end.
    expect(m.meanRunBlocks).toBeLessThanOrEqual(4);
    expect(m.meanRunBlocks).toBeGreaterThan(3.5);
    expect(m.cacheHitRatio).toBeCloseTo(Math.max(0, 1 - r.device.bytes / (10_000 * 8192)), 12);
    expect(m.cacheHitRatio).toBeLessThanOrEqual(0);
    expect(m.avgReadKb).toBe(r.device.avgReadKb);
  });

  it("several runs: the mean of the finished ones; a run cut off by `until` is left out", () => {
    const s = small({ queries: [{ name: "q", table: "t", runs: 3 }], until: 0.17 });
    const r = simulate(s);
    const runs = r.queries[0]!.runs;
    // Each run takes about 70 ms: two finish, the third is cut off.
    expect(runs.map((x) => x.finished)).toEqual([true, true, false]);
    const m = rowMetrics(r, s);
    expect(m.timeS).toBeCloseTo((runs[0]!.durationS + runs[1]!.durationS) / 2, 12);
  });
});
