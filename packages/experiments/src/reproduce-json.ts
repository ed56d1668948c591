/**
 * The one shape of a reproduction run's results: the result `scanlab
 * reproduce --json` prints, what `--report DIR` saves in report.json, and
 * what the docs site renders. It lives beside the experiments, not in a command, so that a
 * report writer, the CLI and the docs read one type and nobody imports an app.
 */
import type { TargetReport } from "./reproduce.js";

/** Statements that hold and ratios within tolerance, over every target of a run. */
export interface ReproduceSummary {
  /** "Must reproduce" statements checked. */
  statements: number;
  /** Of those, how many hold. */
  hold: number;
  /** Ratio bars checked. */
  ratios: number;
  /** Of those, how many are within their tolerance. */
  withinTolerance: number;
}

/**
 * The result of a reproduction run: what `scanlab reproduce --json` prints as
 * the `result` of its JSON document (and `--report DIR` saves in report.json),
 * the document itself carrying the scanlab version. Throughputs are MiB/s.
 */
export interface ReproduceJson {
  /** The `--seed` given, or null for each scenario's own seed. */
  seed: number | null;
  /** False with `--no-calibration`. */
  calibration: boolean;
  /** True when Ctrl-C cut the run short. */
  interrupted: boolean;
  /** One report per target, in the order asked. */
  targets: (TargetReport & {
    /** Ctrl-C cut this target short: only the rows finished before it, no ratios or statements. */
    interrupted: boolean;
  })[];
  /** Statements that hold and ratios within tolerance, over every target. */
  summary: ReproduceSummary;
}

/**
 * Counts the statements that hold and the ratios within tolerance over the given target reports.
 *
 * @example
 * ```ts
 * import { summarizeReports } from "@scanlab/experiments";
 * console.log(summarizeReports([]));
 * // { statements: 0, hold: 0, ratios: 0, withinTolerance: 0 }
 * ```
 */
export function summarizeReports(reports: readonly TargetReport[]): ReproduceSummary {
  const statements = reports.flatMap((r) => r.statements);
  const ratios = reports.flatMap((r) => r.ratios);
  return {
    statements: statements.length,
    hold: statements.filter((s) => s.holds).length,
    ratios: ratios.length,
    withinTolerance: ratios.filter((r) => r.withinTolerance).length,
  };
}
