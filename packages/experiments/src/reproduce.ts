/**
 * Running a target: calibrate its one declared unknown on the baseline row
 * (if it has one), simulate every row, and set the simulated figures beside
 * the published ones, with the ratios and the "must reproduce" statements.
 *
 * Calibration is a root search (regula falsi, Illinois variant) on the
 * declared unknown so that the baseline row's simulated time equals the
 * published one. If no value inside the declared bounds reaches it (the row
 * is limited by something the unknown does not move, e.g. the device), the
 * search stops at the closer bound and the report says the baseline was not
 * reached. Every other row is a prediction.
 */
import { type RowMetrics, rowMetrics, type ScenarioInput, type SimulationResult } from "@scanlab/simulator";
import type { Experiment, ExperimentRow, PublishedFigures } from "./types.js";

/** The simulated and published figures of one row. */
export interface RowReport {
  /** Row id. */
  id: string;
  /** Row label. */
  label: string;
  /** The publication's figures, or null when it gave none. */
  published: PublishedFigures | null;
  /** Which figure the row is compared on, or null. */
  metric: keyof PublishedFigures | null;
  /** The simulated figures. */
  simulated: RowMetrics;
  /** simulated / published on the row's metric. */
  ratio: number | null;
}

/** A ratio bar (checks.ts) and how the model does on it. */
export interface RatioReport {
  /** Ratio id. */
  id: string;
  /** What is compared. */
  label: string;
  /** The published ratio. */
  published: number;
  /** The simulated ratio. */
  simulated: number;
  /** simulated / published - 1. */
  gap: number;
  /** Allowed relative gap. */
  tolerance: number;
  /** |gap| <= tolerance. */
  withinTolerance: boolean;
  /** Outside the tolerance only: the mechanism the model is believed to lack. */
  missing?: string;
}

/** A statement of a target and whether the simulation makes it true. */
export interface StatementReport {
  /** Statement id. */
  id: string;
  /** The statement. */
  text: string;
  /** Whether it holds. */
  holds: boolean;
  /** The figures that decide it. */
  detail: string;
  /** Only when it does not hold: the mechanism the model is believed to lack. */
  missing?: string;
}

/** The result of a root search: see {@link solveMonotone}. */
export interface SolveResult {
  /** The value found (or the closer bound). */
  value: number;
  /** f(value). */
  time: number;
  /** Whether f(value) is within 1% of the target. */
  reached: boolean;
  /** Evaluations of f. */
  iterations: number;
}

/** The result of reproducing one target. */
export interface TargetReport {
  /** Target id. */
  id: string;
  /** Title. */
  title: string;
  /** Where the numbers come from. */
  source: string;
  /** Assumptions made where the publication is silent. */
  assumptions: string[];
  /** The calibrated unknown, or null when the target has none (or calibration was skipped). */
  calibration: null | {
    /** What was calibrated. */
    unknown: string;
    /** The baseline row. */
    row: string;
    /** The value found. */
    value: number;
    /** The baseline's published time, seconds. */
    publishedS: number;
    /** Its simulated time at that value, seconds. */
    simulatedS: number;
    /** Whether the published time was reached within 1%. */
    reached: boolean;
    /** Simulations the search took. */
    iterations: number;
  };
  /** Every row, published beside simulated. */
  rows: RowReport[];
  /** The ratio bars. */
  ratios: RatioReport[];
  /** The "must reproduce" statements and whether they hold. */
  statements: StatementReport[];
  /** Confidence notes the models attach (e.g. the Windows model is low-confidence). */
  notes: string[];
}

/** How a target is run: the simulator entry point is injected so this file stays model-agnostic. */
export interface ReproduceOptions {
  /**
   * The simulator entry point (usually `simulate`; the CLI passes one that runs in a worker).
   * It must be deterministic: the calibration row's run at the calibrated value is reused.
   */
  simulate(input: ScenarioInput): SimulationResult;
  /** Skip calibration and use the rows' default unknowns (faster; for quick looks). */
  noCalibration?: boolean;
  /** Called before each row runs. */
  onRow?(experiment: string, rowId: string): void;
  /** Return true to stop (Ctrl-C): rows not yet run are left out; a calibration cut short is none. */
  shouldStop?(): boolean;
}

/** One simulation a reproduction asks for: see {@link reproduceTargetAsync}. */
export interface SimulationRequest {
  /** The row it is for (`<row> (calibrating)` while calibrating). */
  step: string;
  /** The scenario to simulate. */
  scenario: ScenarioInput;
}

/** How a target is run when simulations are asynchronous (worker threads, web workers). */
export interface AsyncReproduceOptions {
  /**
   * Runs one simulation; resolves with undefined when it did not run to its
   * end (stopped): a calibration cut short is no calibration, a row cut short
   * is left out. Must be deterministic (see {@link ReproduceOptions.simulate}).
   */
  simulate(request: SimulationRequest): Promise<SimulationResult | undefined>;
  /** Skip calibration and use the rows' default unknowns. */
  noCalibration?: boolean;
}

/**
 * A reproduction as a coroutine: it yields the simulations it needs (the
 * calibration's one at a time, since each value depends on the last; then
 * every row at once, since rows are independent) and receives their results.
 * {@link reproduceTarget} answers them one by one, {@link reproduceTargetAsync}
 * runs the rows concurrently; both give the same report.
 */
type Needs = { calibrate: SimulationRequest } | { rows: SimulationRequest[] };
type Got = SimulationResult | undefined | (SimulationResult | undefined)[];

function* reproduceSteps(exp: Experiment, noCalibration: boolean): Generator<Needs, TargetReport, Got> {
  let rows: ExperimentRow[] = exp.rows();
  let calibration: TargetReport["calibration"] = null;
  // The calibration row at the value found was already simulated while solving:
  // the simulator is deterministic, so that run is the row's result.
  const calibrationRuns = new Map<string, SimulationResult>();
  const report = (
    rowReports: RowReport[],
    complete: boolean,
    metrics: Map<string, RowMetrics>,
    notes: string[],
  ) => finishReport(exp, calibration, rowReports, complete, metrics, notes);
  if (exp.calibration && !noCalibration) {
    const cal = exp.calibration;
    const published = rows.find((r) => r.id === cal.row)?.published?.timeS;
    if (published === undefined)
      throw new Error(`${exp.id}: calibration row ${cal.row} has no published time`);
    const solver = solveSteps(published, cal.bounds[0], cal.bounds[1]);
    let step = solver.next();
    while (!step.done) {
      const row = cal.apply(step.value).find((r) => r.id === cal.row)!;
      const result = (yield { calibrate: { step: `${cal.row} (calibrating)`, scenario: row.scenario } }) as
        | SimulationResult
        | undefined;
      if (result === undefined) return report([], false, new Map(), []);
      calibrationRuns.set(JSON.stringify(row.scenario), result);
      step = solver.next(rowMetrics(result, row.scenario).timeS);
    }
    const found = step.value;
    rows = cal.apply(found.value);
    const key = JSON.stringify(rows.find((r) => r.id === cal.row)!.scenario);
    for (const k of [...calibrationRuns.keys()]) if (k !== key) calibrationRuns.delete(k);
    calibration = {
      unknown: cal.unknown,
      row: cal.row,
      value: found.value,
      publishedS: published,
      simulatedS: found.time,
      reached: found.reached,
      iterations: found.iterations,
    };
  }
  const known = rows.map((row) => calibrationRuns.get(JSON.stringify(row.scenario)));
  const requests = rows.flatMap((row, i) =>
    known[i] === undefined ? [{ step: row.id, scenario: row.scenario }] : [],
  );
  const answers = (requests.length > 0 ? yield { rows: requests } : []) as (SimulationResult | undefined)[];
  let next = 0;
  const metrics = new Map<string, RowMetrics>();
  const rowReports: RowReport[] = [];
  const notes = new Set<string>();
  for (const [i, row] of rows.entries()) {
    const result = known[i] ?? answers[next++];
    if (result === undefined) continue;
    if (result.os.confidence === "low")
      notes.add(`${row.label}: the OS readahead model is low-confidence (${row.scenario.machine.os}).`);
    const m = rowMetrics(result, row.scenario);
    metrics.set(row.id, m);
    const metric = row.metric ?? null;
    const pub = metric && row.published ? row.published[metric] : undefined;
    rowReports.push({
      id: row.id,
      label: row.label,
      published: row.published ?? null,
      metric,
      simulated: m,
      ratio: pub !== undefined && metric ? m[metric] / pub : null,
    });
  }
  return report(rowReports, rowReports.length === rows.length, metrics, [...notes]);
}

/** The ratio bars and statements (only when every row ran), around the rows. */
function finishReport(
  exp: Experiment,
  calibration: TargetReport["calibration"],
  rows: RowReport[],
  complete: boolean,
  metrics: Map<string, RowMetrics>,
  notes: string[],
): TargetReport {
  const ratios: RatioReport[] = complete
    ? exp.ratios.map((r) => {
        const a = metrics.get(r.numerator)!.timeS;
        const b = metrics.get(r.denominator)!.timeS;
        const simulated = r.kind === "speed" ? b / a : a / b;
        const gap = simulated / r.published - 1;
        const withinTolerance = Math.abs(gap) <= r.tolerance;
        return {
          id: r.id,
          label: r.label,
          published: r.published,
          simulated,
          gap,
          tolerance: r.tolerance,
          withinTolerance,
          ...(!withinTolerance && r.missing !== undefined ? { missing: r.missing } : {}),
        };
      })
    : [];
  const statements: StatementReport[] = complete
    ? exp.statements.map((st) => {
        const c = st.check(metrics);
        return {
          id: st.id,
          text: st.text,
          holds: c.holds,
          detail: c.detail,
          ...(!c.holds && st.missing !== undefined ? { missing: st.missing } : {}),
        };
      })
    : [];
  return {
    id: exp.id,
    title: exp.title,
    source: exp.source,
    assumptions: exp.assumptions,
    calibration,
    rows,
    ratios,
    statements,
    notes,
  };
}

/**
 * Reproduces one target: calibrates its declared unknown (unless told not
 * to), simulates every row, and checks the ratio bars and statements.
 *
 * @example
 * ```ts
 * import { getTarget, reproduceTarget } from "@scanlab/experiments";
 * import { simulate } from "@scanlab/simulator";
 * const report = reproduceTarget(getTarget("T4")!, { simulate });
 * for (const s of report.statements) console.log(s.holds ? "holds" : "FAILS", s.text);
 * ```
 */
export function reproduceTarget(exp: Experiment, options: ReproduceOptions): TargetReport {
  const run = (request: SimulationRequest): SimulationResult => {
    options.onRow?.(exp.id, request.step);
    return options.simulate(request.scenario);
  };
  const steps = reproduceSteps(exp, options.noCalibration === true);
  let step = steps.next();
  while (!step.done) {
    const need = step.value;
    // A stop during calibration is no calibration (as in reproduceTargetAsync).
    if ("calibrate" in need) step = steps.next(options.shouldStop?.() ? undefined : run(need.calibrate));
    else {
      const results: (SimulationResult | undefined)[] = [];
      for (const request of need.rows) results.push(options.shouldStop?.() ? undefined : run(request));
      step = steps.next(results);
    }
  }
  return step.value;
}

/**
 * {@link reproduceTarget} with asynchronous simulations: the calibration's
 * simulations run one after the other, then every row at once, so a pool of
 * workers can run a target's rows side by side. Same report for the same
 * (deterministic) simulations.
 *
 * @example
 * ```ts
 * import { getTarget, reproduceTargetAsync } from "@scanlab/experiments";
 * import { simulate } from "@scanlab/simulator";
 * const report = await reproduceTargetAsync(getTarget("T4")!, {
 *   simulate: async ({ scenario }) => simulate(scenario),
 * });
 * console.log(report.rows.length);
 * ```
 */
export async function reproduceTargetAsync(
  exp: Experiment,
  options: AsyncReproduceOptions,
): Promise<TargetReport> {
  const steps = reproduceSteps(exp, options.noCalibration === true);
  let step = steps.next();
  while (!step.done) {
    const need = step.value;
    if ("calibrate" in need) step = steps.next(await options.simulate(need.calibrate));
    else step = steps.next(await Promise.all(need.rows.map((request) => options.simulate(request))));
  }
  return step.value;
}

/** Relative tolerance of a calibration (see solveMonotone). */
const TOLERANCE = 0.01;

/**
 * Finds v in [lo, hi] with f(v) = target for an increasing f (regula falsi,
 * Illinois variant), to 1% of the target or 14 evaluations; a non-finite
 * f(v) (a run that did not finish) ends the search, not reached. Published
 * figures are themselves means of noisy runs ("ball park" in T1), so a
 * tighter fit would only cost simulations.
 */
export function solveMonotone(f: (v: number) => number, target: number, lo: number, hi: number): SolveResult {
  const solver = solveSteps(target, lo, hi);
  let step = solver.next();
  while (!step.done) step = solver.next(f(step.value));
  return step.value;
}

/** The search of {@link solveMonotone} as a coroutine: yields each v to evaluate, receives f(v). */
function* solveSteps(target: number, lo: number, hi: number): Generator<number, SolveResult, number> {
  let a = lo;
  let b = hi;
  let fa = (yield a) - target;
  // A run that did not finish (NaN) or an infinite time cannot steer the search: stop, not reached.
  if (!Number.isFinite(fa)) return { value: a, time: fa + target, reached: false, iterations: 1 };
  let fb = (yield b) - target;
  let iterations = 2;
  if (!Number.isFinite(fb))
    return { value: a, time: fa + target, reached: Math.abs(fa) <= TOLERANCE * target, iterations };
  if (fa >= 0)
    return { value: a, time: fa + target, reached: Math.abs(fa) <= TOLERANCE * target, iterations };
  if (fb <= 0)
    return { value: b, time: fb + target, reached: Math.abs(fb) <= TOLERANCE * target, iterations };
  let side = 0;
  let best = Math.abs(fb) < Math.abs(fa) ? { value: b, err: fb } : { value: a, err: fa };
  for (; iterations < 14; iterations++) {
    const c = (a * fb - b * fa) / (fb - fa);
    const fc = (yield c) - target;
    if (!Number.isFinite(fc)) {
      iterations++;
      break;
    }
    if (Math.abs(fc) < Math.abs(best.err)) best = { value: c, err: fc };
    if (Math.abs(fc) <= TOLERANCE * target)
      return { value: c, time: fc + target, reached: true, iterations: iterations + 1 };
    if (fc > 0) {
      b = c;
      fb = fc;
      if (side === 1) fa /= 2;
      side = 1;
    } else {
      a = c;
      fa = fc;
      if (side === -1) fb /= 2;
      side = -1;
    }
  }
  return {
    value: best.value,
    time: best.err + target,
    reached: Math.abs(best.err) <= TOLERANCE * target,
    iterations,
  };
}
