/**
 * `reproduce --rows`: a target restricted to some of its rows. Ratios that
 * need a left-out row are dropped; statements that need one are marked
 * skipped and dropped from the report.
 */
import type { Experiment, TargetReport } from "@scanlab/experiments";

/** Detail of a statement whose rows were left out. */
const SKIPPED = "\u0000skipped";

/** The target restricted to some rows: ratios and statements that need other rows are left out. */
export function restrictRows(
  exp: Experiment,
  ids: readonly string[] | undefined,
  noCalibration = false,
): { exp: Experiment; note: string | null } {
  if (ids === undefined) return { exp, note: null };
  const keep = <T extends { id: string }>(rows: T[]) => rows.filter((r) => ids.includes(r.id));
  const cal = exp.calibration;
  const calKept = cal !== undefined && ids.includes(cal.row);
  return {
    exp: {
      ...exp,
      rows: () => keep(exp.rows()),
      calibration: calKept ? { ...cal, apply: (v: number) => keep(cal.apply(v)) } : undefined,
      ratios: exp.ratios.filter((r) => ids.includes(r.numerator) && ids.includes(r.denominator)),
      statements: exp.statements.map((st) => ({
        ...st,
        check: (m) => {
          try {
            return st.check(m);
          } catch {
            return { holds: false, detail: SKIPPED };
          }
        },
      })),
    },
    note:
      cal !== undefined && !calKept && !noCalibration
        ? `--rows leaves out the calibration row ${cal.row}: rows run with the scenario's default for the unknown.`
        : null,
  };
}

/** Drops the statements restrictRows marked as needing a left-out row. */
export function dropSkipped(report: TargetReport): void {
  report.statements = report.statements.filter((st) => st.detail !== SKIPPED);
}
