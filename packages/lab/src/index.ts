/**
 * @packageDocumentation
 * `scanlab lab`: hold the simulator against real PostgreSQL scans on the
 * user's own machine. Plans cells (sequential and bitmap heap scans, cold and
 * warm, serial and parallel, synchronized scans, read_ahead_kb, eic,
 * io_method, io_combine_limit), runs each a few times on a throwaway cluster,
 * keeps the medians of time, device bytes, request size and buffers, fits the
 * CPU costs from warm runs only, simulates every other cell with the same
 * settings and reports the gaps and whether each comparison points the same
 * way. Node-only.
 */

/** The npm name of this package. */
export const PACKAGE_NAME = "@scanlab/lab";

export {
  type Cell,
  type Comparison,
  cellId,
  fitRoles,
  KERNEL_DEFAULT_READ_AHEAD_KB,
  LAB_PG_MAJORS,
  type LabPlan,
  type LabTable,
  labTables,
  MIN_FIT_RUNS,
  MIN_RUNS,
  NARROW_TUPLES_PER_PAGE,
  type PlanOptions,
  planComparisons,
  planLab,
  type RefusedCell,
  type VariedSetting,
} from "./cells.js";
export {
  type CellTimes,
  type ComparisonResult,
  type Direction,
  direction,
  judgeComparisons,
  SAME_BAND,
} from "./comparisons.js";
export {
  assertFitDisjoint,
  type BitmapCostFit,
  type BitmapFitSample,
  type CpuFit,
  type FitSample,
  fitBitmapCosts,
  fitCpuCosts,
} from "./cpu-fit.js";
export { LabError, type LabErrorCode } from "./errors.js";
export { type ExplainFigures, parseExplain } from "./explain.js";
export { median } from "./median.js";
export {
  cellScenario,
  defaultPreadBlockUs,
  kernelLine,
  type LabMachine,
  type Prediction,
  predictCell,
  simulatorPg,
} from "./predict.js";
export type { TableDeviceProbe } from "./probed-device.js";
export { type ReadAheadControl, readAheadControl } from "./read-ahead.js";
export { parseLabReport, type ReplayOptions, replayLab } from "./replay.js";
export { labReportHtml, runsPhrase } from "./report-html.js";
export {
  assembleReport,
  BYTES_TOLERANCE,
  type CellResult,
  type CpuUsed,
  fitPerVersion,
  judgeCell,
  LAB_MAX_CONNECTIONS,
  LAB_REPORT_VERSION,
  LAB_SHARED_BUFFERS_BYTES,
  type LabOptions,
  type LabPredictions,
  type LabReport,
  type LabReportMachine,
  type LabServer,
  type LabSummary,
  type MeasuredCell,
  type MeasuredSummary,
  NOTHING_READ_BYTES,
  predictAll,
  type ReportParts,
  type RunRecord,
  runLab,
  serverBin,
  spaceNeededBytes,
  summarize,
  summarizeRuns,
  TIME_TOLERANCE,
} from "./run-lab.js";
export {
  type BitmapRange,
  bitmapRange,
  cellQuerySql,
  createTableSql,
  sessionSettingsSql,
  warmUpSql,
} from "./tables.js";
