/**
 * @packageDocumentation
 * Settings advice for one PostgreSQL table scan ({@link advise}): parallel
 * workers, effective_io_concurrency, read_ahead_kb and the PG14+ chunk cap,
 * each recommended from a small simulated sweep against PostgreSQL's
 * defaults, with the gain and the full-size sweep that shows it; and the
 * sweep planner ({@link planSweep}) that expands one or two varied settings
 * into the cells of a grid. What `scanlab advise` and `scanlab sweep` run,
 * and what the docs playground runs in a browser. Browser-safe.
 */

export {
  type Advice,
  type AdviceNote,
  type AdviceOptions,
  type AdviceRow,
  type AdviceRunner,
  type AdviceSetting,
  type AdviceStage,
  type AdviceStageName,
  type AdviceSweepPoint,
  type AdvisedSettings,
  advise,
  DEFAULT_SIM_BYTES,
  DEFAULT_WORKERS,
  EIC_VALUES,
  EIC_VALUES_SEQSCAN,
  MIN_SIM_BYTES,
  READ_AHEAD_VALUES_KB,
  runInProcess,
  SETTING_WITHIN,
  WORKERS_WITHIN,
} from "./advise.js";
export { pickWithin, type Timing, timing } from "./pick.js";
export { type AdviceScale, type ScaledScenario, scaleDown } from "./scale-down.js";
export {
  baselineRatios,
  planSweep,
  type SweepAxis,
  type SweepCell,
  type SweepPlan,
  SweepPlanError,
  sweepCellName,
} from "./sweep-plan.js";
