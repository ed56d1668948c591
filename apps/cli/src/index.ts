/**
 * @packageDocumentation
 * The `scanlab` command line as a small programmatic API: run it in-process
 * ({@link runCli}), build scenarios from the same PostgreSQL-named flags
 * ({@link SCENARIO_FLAGS}, {@link parseScenarioFlags}, {@link applyScenarioFlags}),
 * and read traces of real scans ({@link parseStraceLog}, {@link summariseReads};
 * blkparse output is read by `@scanlab/host`'s `parseBlkparse`). Node-only.
 */

export type { ReproduceJson } from "@scanlab/experiments";
export type { TraceRead } from "@scanlab/host";
export { formatAllocator, parseAllocator } from "./allocator-arg.js";
export type { CliStreams, TerminalInfo } from "./context.js";
export { type DeviceArg, resolveDeviceArg } from "./device-arg.js";
export { type BrandedUserError, CliError, EXIT, isUserError } from "./errors.js";
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
