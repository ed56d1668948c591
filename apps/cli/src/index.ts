/**
 * @packageDocumentation
 * The `scanlab` command line as a small programmatic API: run it in-process
 * ({@link runCli}), build scenarios from the same PostgreSQL-named flags
 * ({@link SCENARIO_FLAGS}, {@link parseScenarioFlags}, {@link applyScenarioFlags}),
 * read traces of real scans ({@link parseStraceLog}, {@link summariseReads};
 * blkparse output is read by `@scanlab/host`'s `parseBlkparse`), and read
 * every command's `--json` document with its type ({@link ScanlabJson}, one
 * result type per command in {@link CommandResults}). Node-only.
 */

export type { ReproduceJson } from "@scanlab/experiments";
export type { TraceRead } from "@scanlab/host";
export { formatAllocator, parseAllocator } from "./allocator-arg.js";
export type { ModelledFigures } from "./commands/profiles.js";
export type { CliStreams, TerminalInfo } from "./context.js";
export { type DeviceArg, resolveDeviceArg } from "./device-arg.js";
export { type BrandedUserError, CliError, EXIT, isUserError } from "./errors.js";
export {
  type AdviseJson,
  type AnyScanlabJson,
  type BlkparseImportJson,
  type CalibrateJson,
  type CalibrationPointJson,
  type CommandResults,
  JSON_SCHEMA_VERSION,
  type JsonForm,
  type ProfilesListJson,
  type ProfilesShowJson,
  type RecommendationJson,
  type ScanJson,
  type ScanlabCommand,
  type ScanlabJson,
  type ScanRunJson,
  type SimulateJson,
  type StraceImportJson,
  type SweepAxisJson,
  type SweepJson,
  type SweepPointJson,
  type SweptValue,
  type TraceImportJson,
} from "./json-output.js";
export { type RunOptions, runCli } from "./run.js";
export {
  applyScenarioFlags,
  CONFLICTING_FLAGS,
  DEFAULT_SCENARIO,
  formatFlags,
  type MachineDraftOs,
  type ParsedFlag,
  type ParsedFlags,
  parseScenarioFlags,
  SCENARIO_FLAGS,
  type ScenarioDraft,
  type ScenarioFlag,
  scenarioFlag,
} from "./scenario-flags.js";
export { type ProcessReads, summariseReads } from "./trace/read-runs.js";
export { looksLikeStrace, parseStraceLog, type StraceParse } from "./trace/strace-log.js";
export { VERSION } from "./version.js";
