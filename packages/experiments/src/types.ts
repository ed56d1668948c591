/**
 * A reproduction target: a published experiment (apps/docs/src/reference/experiments.md), the scenario
 * that models it, the published figures, and the statements a faithful model
 * must make true.
 *
 * Honesty rules (apps/docs/src/reference/design.md#fidelity-rules, apps/docs/src/reference/experiments.md#how-targets-are-used):
 * - Device profiles come from datasheets; the scenario states every assumption
 *   the publication leaves open (device, core count, tuples per page...).
 * - At most one unknown may be calibrated, from the baseline row, and the
 *   experiment declares which; every other row is a prediction.
 * - Results print the published figure beside the simulated one with the
 *   ratio; a statement that does not hold is reported as not holding.
 */
import type { RowMetrics, ScenarioInput } from "@scanlab/simulator";

/** Figures a publication gives for one row (any may be missing). */
export interface PublishedFigures {
  /** Duration of one run of the query, seconds. */
  timeS?: number;
  /**
   * Throughput of one query in MiB/s (2^20 bytes per second, scanlab's one unit: `THROUGHPUT_UNIT` of
   * @scanlab/core). A publication's decimal MB/s (10^6 bytes) is converted with `mibPerSFromMBPerS`, not
   * relabelled; a figure the publication counted in 2^20 bytes (FreeBSD iostat's "MB/s") is taken as it is.
   */
  mibPerS?: number;
  /** Average device read size, kB. */
  avgReadKb?: number;
}

/** One row of a target's table. */
export interface ExperimentRow {
  /** Stable id (e.g. "stride-1"). */
  id: string;
  /** What the row is, for people. */
  label: string;
  /** The scenario that models it. */
  scenario: ScenarioInput;
  /** The publication's figures, if it gave any. */
  published?: PublishedFigures;
  /** Which metric the publication's number for this row should be compared on. */
  metric?: keyof PublishedFigures;
}

/** A ratio between two rows that the project's ratio bars (checks.ts) name, e.g. T1 "striding/serial speed 0.53". */
export interface RatioCheck {
  /** Stable id. */
  id: string;
  /** What is compared, for people. */
  label: string;
  /** speed ratio = time(den) / time(num); time ratio = time(num) / time(den). */
  kind: "speed" | "time";
  /** Row id of the numerator. */
  numerator: string;
  /** Row id of the denominator. */
  denominator: string;
  /** The published ratio. */
  published: number;
  /** Relative tolerance the bar allows (0.25 = within 25%). */
  tolerance: number;
  /** The mechanism the model is believed to lack when the ratio lands outside its tolerance (reported with the miss). */
  missing?: string;
}

/** A "must reproduce" statement of apps/docs/src/reference/experiments.md#how-targets-are-used, checked on the simulated rows. */
export interface Statement {
  /** Stable id. */
  id: string;
  /** The statement, as apps/docs/src/reference/experiments.md words it. */
  text: string;
  /** Whether the simulated rows make it true, with the figures that decide it. */
  check(rows: ReadonlyMap<string, RowMetrics>): StatementCheck;
  /** The mechanism the model is believed to lack when the statement does not hold (reported with the miss). */
  missing?: string;
}

/** The outcome of checking a statement. */
export interface StatementCheck {
  /** Whether it holds. */
  holds: boolean;
  /** The figures that decide it, in one line. */
  detail: string;
}

/** The one unknown a target may calibrate from its baseline row. */
export interface Calibration {
  /** What is being calibrated, in words, with the field it sets. */
  unknown: string;
  /** The baseline row whose published figure fixes it. */
  row: string;
  /** The baseline figure matched (the run time). */
  metric: "timeS";
  /** Search interval for the unknown. */
  bounds: [number, number];
  /** Returns every row's scenario with the unknown set to `value`. */
  apply(value: number): ExperimentRow[];
}

/** A reproduction target. */
export interface Experiment {
  /** "T1" .. "T7". */
  id: string;
  /** One-line title. */
  title: string;
  /** Where the numbers come from (seed, message id). */
  source: string;
  /** Assumptions the scenario makes where the publication is silent. */
  assumptions: string[];
  /** The rows, with the default value of the calibrated unknown. */
  rows(): ExperimentRow[];
  /** The one unknown calibrated from the baseline row, if any. */
  calibration?: Calibration;
  /** The ratio bars. */
  ratios: RatioCheck[];
  /** The "must reproduce" statements. */
  statements: Statement[];
}
