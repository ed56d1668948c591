/**
 * The sweep planner: one or two varied settings expanded into the cells of a
 * grid, ordered, labelled, and compared with a baseline column.
 *
 * The problem: a sweep ("workers 0, 1, 2, 4 by allocator pg11, pg14") is
 * read as a table, the way Tomas Vondra's 2022 effective_io_concurrency
 * benchmark was posted (pgsql-hackers, "Re: effective_io_concurrency and
 * NVMe devices"): a time per cell and each cell as a percentage of a baseline
 * column in the same row. Whoever runs the cells (worker threads, a Web
 * Worker, a loop) must agree with whoever prints them on which cell is which.
 *
 * The insight: the grid is a pure function of the varied settings' values,
 * independent of how a value is written into a scenario, so it can be planned
 * once (cells in a fixed order, each with its labels) and its results placed
 * back by index.
 *
 * Choices:
 * - The first setting's values are the columns, the second's (if any) the
 *   rows; cells are row-major, so the cells of one row are contiguous.
 * - A cell is labelled `name=label, name2=label2` (columns first); a
 *   scenario run for it is named `<scenario name> [<cell label>]`.
 * - The baseline is a column (default the first value of the first setting);
 *   a cell's ratio is its time over the baseline cell's time in the same
 *   row, null when either time is missing.
 * - Labels must be distinct within a setting (a cell is found by its labels),
 *   and a setting is varied once; at most two are varied (a table has two
 *   dimensions).
 */
import { ScanlabError } from "@scanlab/core";

/** A planning error: the varied settings cannot form a grid. */
export class SweepPlanError extends ScanlabError {
  /** @param message one sentence; @param code a stable code. */
  constructor(message: string, code: "SWEEP_AXES" | "SWEEP_DUPLICATE_VALUE" | "SWEEP_BAD_BASELINE") {
    super(message, { code });
    this.name = "SweepPlanError";
  }
}

/** One varied setting: its name and its values, each with the label a table shows. */
export interface SweepAxis<V = unknown> {
  /** The setting's name (`effective-io-concurrency`). */
  name: string;
  /** The values, in the order they are shown. */
  values: readonly V[];
  /** One label per value (`16`, `5%`), distinct. */
  labels: readonly string[];
}

/** One cell of the grid. */
export interface SweepCell<V = unknown> {
  /** Position in the plan's `cells` (row-major). */
  index: number;
  /** Index of the value of each varied setting: `[column]` or `[column, row]`. */
  at: number[];
  /** The value of each varied setting, in the same order as `at`. */
  values: V[];
  /** The labels by setting name (`{ workers: "4", allocator: "pg14" }`), columns first. */
  labels: Record<string, string>;
  /** `workers=4, allocator=pg14`. */
  label: string;
}

/** A planned grid. */
export interface SweepPlan<V = unknown> {
  /** The setting across (columns). */
  columns: SweepAxis<V>;
  /** The setting down (rows), or null for a one-setting sweep. */
  rows: SweepAxis<V> | null;
  /** Every cell, row-major. */
  cells: SweepCell<V>[];
  /** Index of the baseline column. */
  baselineIndex: number;
  /** `name=label` of the baseline column. */
  baselineLabel: string;
}

/**
 * Plans the grid of one or two varied settings; `baselineIndex` picks the
 * baseline column (default 0, the first value of the first setting).
 *
 * @example
 * ```ts
 * import { planSweep } from "@scanlab/advisor";
 * const plan = planSweep([
 *   { name: "workers", values: [0, 2, 4], labels: ["0", "2", "4"] },
 *   { name: "allocator", values: ["pg11", "pg14"], labels: ["pg11", "pg14"] },
 * ]);
 * console.log(plan.cells.map((c) => c.label));
 * // [ "workers=0, allocator=pg11", "workers=2, allocator=pg11", ..., "workers=4, allocator=pg14" ]
 * ```
 */
export function planSweep<V>(axes: readonly SweepAxis<V>[], baselineIndex = 0): SweepPlan<V> {
  if (axes.length < 1 || axes.length > 2)
    throw new SweepPlanError(`a sweep varies one or two settings, got ${axes.length}.`, "SWEEP_AXES");
  for (const a of axes) {
    if (a.values.length === 0 || a.labels.length !== a.values.length)
      throw new SweepPlanError(
        `varied setting ${a.name} needs at least one value and one label per value.`,
        "SWEEP_AXES",
      );
    if (new Set(a.labels).size !== a.labels.length)
      throw new SweepPlanError(
        `varied setting ${a.name} lists a value twice: give each value once.`,
        "SWEEP_DUPLICATE_VALUE",
      );
  }
  const columns = axes[0]!;
  const rows = axes[1] ?? null;
  if (rows !== null && rows.name === columns.name)
    throw new SweepPlanError(
      `setting ${columns.name} is varied twice: list all its values once.`,
      "SWEEP_AXES",
    );
  if (!Number.isInteger(baselineIndex) || baselineIndex < 0 || baselineIndex >= columns.values.length)
    throw new SweepPlanError(
      `baseline column ${baselineIndex} is not one of the ${columns.values.length} values of ${columns.name}.`,
      "SWEEP_BAD_BASELINE",
    );
  const cells: SweepCell<V>[] = [];
  const nrows = rows?.values.length ?? 1;
  for (let r = 0; r < nrows; r++) {
    for (let c = 0; c < columns.values.length; c++) {
      const labels: Record<string, string> = { [columns.name]: columns.labels[c]! };
      const values: V[] = [columns.values[c]!];
      if (rows !== null) {
        labels[rows.name] = rows.labels[r]!;
        values.push(rows.values[r]!);
      }
      cells.push({
        index: cells.length,
        at: rows !== null ? [c, r] : [c],
        values,
        labels,
        label: Object.entries(labels)
          .map(([k, v]) => `${k}=${v}`)
          .join(", "),
      });
    }
  }
  return {
    columns,
    rows,
    cells,
    baselineIndex,
    baselineLabel: `${columns.name}=${columns.labels[baselineIndex]}`,
  };
}

/**
 * The name of the scenario run for a cell: `<name> [<cell label>]`.
 *
 * @example
 * ```ts
 * import { planSweep, sweepCellName } from "@scanlab/advisor";
 * const plan = planSweep([{ name: "workers", values: [0, 2], labels: ["0", "2"] }]);
 * console.log(sweepCellName("my scan", plan.cells[1]!)); // my scan [workers=2]
 * ```
 */
export function sweepCellName(scenarioName: string, cell: SweepCell): string {
  return `${scenarioName} [${cell.label}]`;
}

/**
 * Each cell's time as a fraction of the baseline cell's time in the same row
 * (null when either is missing), given one time per cell in plan order.
 *
 * @example
 * ```ts
 * import { baselineRatios, planSweep } from "@scanlab/advisor";
 * const plan = planSweep([{ name: "eic", values: [0, 1, 16], labels: ["0", "1", "16"] }]);
 * console.log(baselineRatios(plan, [10, 20, null])); // [ 1, 2, null ]
 * ```
 */
export function baselineRatios(
  plan: SweepPlan,
  timesS: readonly (number | null | undefined)[],
): (number | null)[] {
  const ncols = plan.columns.values.length;
  return plan.cells.map((cell, i) => {
    const row = cell.at[1] ?? 0;
    const baseTime = timesS[row * ncols + plan.baselineIndex];
    const t = timesS[i];
    return t !== null && t !== undefined && baseTime !== null && baseTime !== undefined ? t / baseTime : null;
  });
}
