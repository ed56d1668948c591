/**
 * Replaying a lab run: the measurements of an earlier run, predicted again.
 *
 * Problem. A lab run takes minutes to an hour of a quiet machine, and most of
 * that is PostgreSQL. The predictions take seconds. Whoever changes the model,
 * calibrates a new profile, or wants to see a run from another machine with a
 * different device model should not have to measure again.
 *
 * Insight. A report keeps every run of every cell, the tables as built, the
 * machine and the comparisons. That is everything the judging needs: the
 * predictions are a pure function of it and of the device model.
 *
 * Choices.
 * - The measured runs, notes, servers and cold method are kept as they are;
 *   only the predictions, the CPU fit and the judgement are made again, with
 *   the simulator of this version.
 * - The CPU costs are fitted again from the warm fit cells this version
 *   plans (cells.ts `fitRoles`), or not, with `fit: false`; the comparisons
 *   are planned again between the cells it predicts. A replay never predicts
 *   a cell it fitted on. A report whose sequential fit cells have one tuple
 *   density (a `--cells` subset of an older scanlab) is still fitted on
 *   them, and its `cpu` entry carries the fit's `warning`.
 * - A document that is not a lab report of this version is refused in one
 *   sentence (`LAB_BAD_REPORT`).
 *
 * Interface: `replayLab(report, options)`, `parseLabReport(json)`.
 */
import { type Cell, fitRoles, type LabPlan, MIN_RUNS, planComparisons } from "./cells.js";
import { LabError } from "./errors.js";
import { assembleReport, LAB_REPORT_VERSION, type LabReport } from "./run-lab.js";

/** Options of {@link replayLab}. */
export interface ReplayOptions {
  /** A built-in device profile name or a parsed profile; the report's own device model when absent. */
  readonly device?: string | Record<string, unknown>;
  /** How the device was chosen, for the output. */
  readonly deviceLabel?: string;
  /** Fit CPU costs from the warm fit cells (default: as the report did). */
  readonly fit?: boolean;
  /** Predict on the device probes the report holds (default true); false: on the profile's device as it is. */
  readonly probe?: boolean;
}

/** Predicts the measured cells of `report` again with this simulator (and, optionally, another device model). */
export function replayLab(report: LabReport, options: ReplayOptions = {}): LabReport {
  // This version's fit cells, and the comparisons between the cells it predicts.
  const cells = fitRoles(
    report.cells.map((c) => c.cell),
    report.tables,
  );
  const plan: LabPlan = {
    tables: report.tables,
    cells,
    comparisons: planComparisons(cells),
    refused: report.refused,
    runs: report.runsPerCell,
  };
  const { deviceLabel: reportLabel, deviceName, ...machine } = report.machine;
  const replayed = assembleReport({
    startedAt: report.startedAt,
    interrupted: report.interrupted,
    quick: report.quick,
    plan,
    tables: report.tables,
    measured: report.cells.map((c, i) => ({ cell: cells[i]!, runs: [...c.runs], notes: [...c.notes] })),
    servers: report.servers,
    machine: options.device === undefined ? machine : { ...machine, device: options.device },
    deviceLabel: options.deviceLabel ?? reportLabel,
    deviceName,
    coldMethod: report.coldMethod,
    deviceProbes: options.probe === false ? [] : report.deviceProbes,
    fit: options.fit ?? report.cpu.some((c) => c.source === "fit"),
  });
  return { ...replayed, finishedAt: report.finishedAt };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Reads a lab report from parsed JSON: the `result` of a `scanlab lab --json`
 * document, or a bare report. Refuses anything else in one sentence.
 */
export function parseLabReport(json: unknown, source: string): LabReport {
  const doc = isObject(json) && json.command === "lab" && isObject(json.result) ? json.result : json;
  const bad = (why: string) =>
    new LabError("LAB_BAD_REPORT", `${source} is not a lab report scanlab can replay: ${why}.`);
  if (!isObject(doc)) throw bad("it is not a JSON object");
  if (doc.version !== LAB_REPORT_VERSION) {
    throw bad(
      `its version is ${JSON.stringify(doc.version)}, and this scanlab reads version ${LAB_REPORT_VERSION}`,
    );
  }
  for (const key of ["cells", "tables", "comparisons", "refused", "servers", "cpu"] as const) {
    if (!Array.isArray(doc[key])) throw bad(`it has no ${key} list`);
  }
  if (!isObject(doc.machine) || typeof doc.machine.cores !== "number" || doc.machine.device === undefined) {
    throw bad("it has no machine");
  }
  if (typeof doc.runsPerCell !== "number" || doc.runsPerCell < MIN_RUNS) throw bad("it has no runs per cell");
  const tables = new Set((doc.tables as unknown[]).map((t) => (isObject(t) ? t.name : undefined)));
  for (const c of doc.cells as unknown[]) {
    const cell = isObject(c) && isObject(c.cell) ? (c.cell as unknown as Cell) : null;
    if (cell === null || typeof cell.id !== "string" || !Array.isArray((c as { runs?: unknown }).runs)) {
      throw bad("a cell has no id or no runs");
    }
    if (!tables.has(cell.table)) throw bad(`cell ${cell.id} scans a table the report does not list`);
  }
  // A report from before the device probe has none: its cells are predicted on the profile's device.
  const probes = doc.deviceProbes ?? [];
  if (
    !Array.isArray(probes) ||
    probes.some((p) => !isObject(p) || typeof p.pg !== "number" || !Array.isArray(p.points))
  ) {
    throw bad("its device probes are not a list of measured points per server");
  }
  return { ...doc, deviceProbes: probes } as unknown as LabReport;
}
