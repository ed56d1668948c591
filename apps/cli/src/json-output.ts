/**
 * The machine output of every command: one JSON document, one envelope.
 *
 * Problem: a script that reads `scanlab simulate --json` and `scanlab sweep
 * --json` should not have to guess which command and which version wrote a
 * file, nor learn a different outer shape per command; and a consumer in
 * TypeScript should get a type for each command's result instead of `any`.
 *
 * Design choices:
 * - Every `--json` document is `{ scanlab, schemaVersion, command, result }`
 *   ({@link ScanlabJson}): the version that wrote it, the version of the
 *   document's shape ({@link JSON_SCHEMA_VERSION}, raised when a field is
 *   renamed, removed or changes meaning), the command as typed (`"profiles
 *   show"`), and the command's own result. Files a command writes for
 *   machines (`reproduce --report`'s report.json, `sweep --report`'s
 *   sweep.json, `lab --json FILE`) hold the same document as stdout.
 * - Each command's result has an exported type ({@link CommandResults} maps
 *   command to type); the commands build their results as that type, and a
 *   test type-checks each command's real output against it.
 * - JSON has no NaN, infinity, bigint or typed array: `toJson` prints a
 *   number that is not finite as null (such as the mean time of a query none
 *   of whose runs finished, where the type says number), a bigint as a
 *   decimal string, and a typed array as an array; {@link JsonForm} is a
 *   type after that translation.
 * - Throughputs are MiB/s, in fields named `mibPerS` (`THROUGHPUT_UNIT` of
 *   @scanlab/core); a setting's value is a number where the setting is a
 *   quantity (see {@link SweptValue}).
 * - Profile files are not envelopes: `calibrate --out` and `profiles show
 *   --out` write a plain device profile, which `--device FILE` reads.
 */
import type { AdviceScale } from "@scanlab/advisor";
import type { DeviceProfile, FlashProfile, MachineCpuCosts } from "@scanlab/device-profiles";
import type { ReproduceJson } from "@scanlab/experiments";
import type { ScanResult } from "@scanlab/file-scan";
import type { LabReport } from "@scanlab/lab";
import type { OsModel, PgModel, RowMetrics, ScenarioInput, SimulationResult } from "@scanlab/simulator";
import type { ModelledFigures } from "./commands/profiles.js";
import type { Ctx } from "./context.js";
import { toJson } from "./context.js";
import type { ScenarioDraft } from "./scenario-flags.js";
import type { ProcessReads } from "./trace/read-runs.js";
import { VERSION } from "./version.js";

/** The version of the `--json` document's shape; raised when a field is renamed, removed or changes meaning. */
export const JSON_SCHEMA_VERSION = 1;

/**
 * A value as `--json` prints it: bigints as decimal strings, typed arrays as
 * arrays of numbers, every field of an object translated the same way.
 */
export type JsonForm<T> = T extends bigint
  ? string
  : T extends ArrayBufferView
    ? number[]
    : T extends readonly (infer E)[]
      ? JsonForm<E>[]
      : T extends object
        ? { [K in keyof T]: JsonForm<T[K]> }
        : T;

/**
 * A swept or advised setting's value: a number for a quantity in the
 * setting's own unit (workers, `effective_io_concurrency`, `read_ahead_kb` in
 * kB, `io_combine_limit` in 8 kB blocks, a selectivity as a fraction, a size
 * in bytes, a duration in seconds), true/false for on/off, null for "none"
 * (`chunk-cap none`), and the name for anything else (an OS, a device, an
 * allocator, a PostgreSQL version).
 */
export type SweptValue = number | boolean | string | null;

/** What `simulate --json` gives as its result. */
export interface SimulateJson {
  /** The scenario that ran (the file with the flags applied). */
  scenario: ScenarioInput;
  /** The model each distinct PostgreSQL version of the scenario runs, with the line the text output prints. */
  pgModel: (PgModel & {
    /** The mapping as one line (`PostgreSQL 16 -> the PG 14 model ...`). */
    line: string;
  })[];
  /** The readahead model of the scenario's OS, with the line the text output prints. */
  osModel: OsModel & {
    /** The mapping as one line. */
    line: string;
  };
  /** True when Ctrl-C or SIGTERM cut the simulation short: the figures cover the simulated time before it. */
  interrupted: boolean;
  /** The simulation's figures (throughputs in MiB/s). */
  simulation: SimulationResult;
}

/** One varied setting of a sweep. */
export interface SweepAxisJson {
  /** The scenario flag's name (`effective-io-concurrency`). */
  name: string;
  /** Its values, in the order given ({@link SweptValue}). */
  values: SweptValue[];
  /** The same values as the table's headers print them (`"16"`, `"5%"`, `"on"`). */
  labels: string[];
}

/** One point of a sweep. */
export interface SweepPointJson {
  /** The value of each varied setting at this point, by setting name. */
  values: Record<string, SweptValue>;
  /** The same values as the table prints them. */
  labels: Record<string, string>;
  /** Simulated time / time of the baseline column in the same row; null when either did not finish. */
  ofBaseline: number | null;
  /** The simulated figures (throughput `mibPerS` in MiB/s); null when the point did not run to its end. */
  metrics: RowMetrics | null;
}

/** What `sweep --json` gives as its result (and `sweep --report DIR` writes to sweep.json, in the envelope). */
export interface SweepJson {
  /** The scenario before any varied setting was applied. */
  scenario: ScenarioInput;
  /** The varied settings: the first runs along the columns, the second (if any) along the rows. */
  vary: SweepAxisJson[];
  /** The baseline column's label (a value of the first varied setting). */
  baseline: string;
  /** True when Ctrl-C or SIGTERM stopped the sweep: unfinished points have null metrics. */
  interrupted: boolean;
  /** Every point, row by row (the second setting's values), each row in the first setting's order. */
  points: SweepPointJson[];
}

/** One measured run of `scan`, with the simulator's prediction when `--device` was given. */
export interface ScanRunJson {
  /** The allocator policy as given (`pg14`, `munro2020:64`). */
  policy: string;
  /** What the simulator predicts for this run on the `--device` profile, or null without one. */
  prediction: RowMetrics | null;
  /** Why there is no prediction although a profile was given (a pattern the simulator cannot express). */
  predictionNote?: string;
  /** The measured scan (throughput `mibPerS` in MiB/s). */
  result: JsonForm<ScanResult>;
}

/** What `scan --json` gives as its result. */
export interface ScanJson {
  /** The file or relation scanned, as given. */
  path: string;
  /** Worker threads per run. */
  workers: number;
  /** True with `--cold` (the file was evicted before each run). */
  cold: boolean;
  /** The `--device` profile's label, or null without one. */
  device: string | null;
  /** The PostgreSQL version whose read path and allocator the scan follows (`--pg`, e.g. "17"). */
  pg: string;
  /** True when Ctrl-C or SIGTERM stopped the scan: the runs cover the blocks read until then. */
  interrupted: boolean;
  /** One run per policy, in the order given. */
  runs: ScanRunJson[];
}

/** The device model beside one measured point of `calibrate`. */
export interface CalibrationPointJson {
  /** `random` or `sequential` reads. */
  pattern: string;
  /** Bytes per read. */
  blockBytes: number;
  /** Reads in flight. */
  queueDepth: number;
  /** Reads per second measured. */
  measuredIops: number;
  /** Reads per second the fitted profile's model gives. */
  modelIops: number;
  /** modelIops / measuredIops. */
  ratio: number;
}

/** What `calibrate --json` gives as its result. */
export interface CalibrateJson {
  /** The measured device profile (what `--out` writes); null when interrupted before the device was measured. */
  profile: FlashProfile | null;
  /** The `--out` file written, or null. */
  out: string | null;
  /** The model of the profile beside each measured point (empty when interrupted before the device was measured). */
  modelVsMeasured: CalibrationPointJson[];
  /** The CPU cost of a read from the page cache, when measured. */
  cpu: MachineCpuCosts | null;
  /**
   * The kernel readahead measurement, or null when skipped: a `KernelMeasurement` of
   * `@scanlab/readahead/node` in its JSON form (that subpath's types are not part of this API).
   */
  kernelReadahead: Record<string, unknown> | null;
  /** Why the kernel readahead was not measured, or null when it was. */
  kernelReadaheadSkipped: string | null;
  /** The `simulate` flags that use this profile (and the measured kernel settings); null when nothing was measured. */
  simulateFlags: string | null;
  /** True when Ctrl-C or SIGTERM cut the calibration short. */
  interrupted: boolean;
}

/** One recommendation of `advise --json`. */
export interface RecommendationJson {
  /** The setting (`effective_io_concurrency`). */
  setting: string;
  /** PostgreSQL's default for it ({@link SweptValue}). */
  defaultValue: SweptValue;
  /** The recommended value (the default's, when the default is recommended). */
  recommended: SweptValue;
  /** time(default) / time(recommended) - 1: +25% means the default takes 25% longer; null when either did not finish. */
  gain: number | null;
  /** Simulated time at PostgreSQL's default, seconds. */
  defaultTimeS: number | null;
  /** Simulated time at the recommended value, seconds. */
  recommendedTimeS: number | null;
  /** Why, in one or two sentences. */
  why: string;
  /** Each value tried and its simulated time (null when it did not finish). */
  sweep: {
    /** The value tried. */
    value: SweptValue;
    /** Its simulated time, seconds. */
    timeS: number | null;
  }[];
  /** The full-size `scanlab sweep` command that shows it. */
  command: string;
}

/** What `advise --json` gives as its result. */
export interface AdviseJson {
  /** The full-size scenario advised on. */
  scenario: ScenarioDraft;
  /** How the scenario was scaled down to simulate quickly, or null when it ran at full size. */
  scale: AdviceScale | null;
  /** True when Ctrl-C or SIGTERM stopped the advice: rows not reached are missing. */
  interrupted: boolean;
  /** One row per setting. */
  recommendations: RecommendationJson[];
}

/** What `profiles list --json` gives as its result. */
export interface ProfilesListJson {
  /** Every built-in profile, with the model's figures. */
  profiles: {
    /** The name `--device` takes. */
    name: string;
    /** Device kind (`ssd`, `nvme`, `hdd`, `raid0`, `cloud`). */
    kind: string;
    /** One-line description. */
    title: string;
    /** Where the figures come from (`datasheet`, `measured`, ...). */
    basis: string;
    /** The model's figures under the three workloads. */
    modelled: ModelledFigures;
  }[];
}

/** What `profiles show NAME|FILE --json` gives as its result. */
export interface ProfilesShowJson {
  /** The profile, every field (`profiles show NAME --out FILE` writes it as a profile file). */
  profile: DeviceProfile;
  /** The file it was read from, or null for a built-in. */
  file: string | null;
  /** The model's figures under the three workloads. */
  modelled: ModelledFigures;
}

/** `trace import --json` of an strace log. */
export interface StraceImportJson {
  /** The trace's format. */
  format: "strace";
  /** The file imported. */
  file: string;
  /** Lines that were a read call (failed ones included). */
  calls: number;
  /** Calls left out: failed, or 0 bytes. */
  failed: number;
  /** Lines not understood. */
  unknownLines: number;
  /** The reads per process. */
  processes: ProcessReads[];
}

/** `trace import --json` of blkparse output. */
export interface BlkparseImportJson {
  /** The trace's format. */
  format: "blkparse";
  /** The file imported. */
  file: string;
  /** Events read. */
  events: number;
  /** The read requests queued, per process. */
  processes: ProcessReads[];
  /** What the device was sent after merging. */
  device: {
    /** Read requests issued. */
    requests: number;
    /** Bytes they read. */
    bytes: number;
    /** bytes / requests. */
    meanRequestBytes: number;
  };
}

/** What `trace import --json` gives as its result. */
export type TraceImportJson = StraceImportJson | BlkparseImportJson;

/** Each command's `--json` result type, by command (as typed, subcommand included). */
export interface CommandResults {
  /** `scanlab reproduce --json`. */
  reproduce: ReproduceJson;
  /** `scanlab simulate --json`. */
  simulate: SimulateJson;
  /** `scanlab sweep --json`. */
  sweep: SweepJson;
  /** `scanlab scan --json`. */
  scan: ScanJson;
  /** `scanlab calibrate --json`. */
  calibrate: CalibrateJson;
  /** `scanlab lab --json`. */
  lab: LabReport;
  /** `scanlab advise --json`. */
  advise: AdviseJson;
  /** `scanlab profiles list --json`. */
  "profiles list": ProfilesListJson;
  /** `scanlab profiles show NAME --json`. */
  "profiles show": ProfilesShowJson;
  /** `scanlab trace import FILE --json`. */
  "trace import": TraceImportJson;
}

/** A command that has `--json`. */
export type ScanlabCommand = keyof CommandResults;

/**
 * The one `--json` document of a command: which scanlab wrote it, the
 * document's schema version, the command, and the command's result.
 *
 * @example
 * ```ts
 * import type { ScanlabJson } from "scanlab";
 * import { readFileSync } from "node:fs";
 *
 * const doc = JSON.parse(readFileSync("sweep.json", "utf8")) as ScanlabJson<"sweep">;
 * for (const p of doc.result.points) console.log(p.values, p.metrics?.mibPerS);
 * ```
 */
export interface ScanlabJson<C extends ScanlabCommand = ScanlabCommand> {
  /** The scanlab version that wrote it. */
  scanlab: string;
  /** {@link JSON_SCHEMA_VERSION} of the scanlab that wrote it. */
  schemaVersion: typeof JSON_SCHEMA_VERSION;
  /** The command, as typed. */
  command: C;
  /** The command's result. */
  result: CommandResults[C];
}

/** Any command's `--json` document, discriminated by `command`. */
export type AnyScanlabJson = { [C in ScanlabCommand]: ScanlabJson<C> }[ScanlabCommand];

/** A value in its JSON form (see {@link JsonForm}), for a result field whose type holds bigints or typed arrays. */
export function jsonForm<T>(value: T): JsonForm<T> {
  return JSON.parse(toJson(value)) as JsonForm<T>;
}

/** The envelope of a command's result. */
export function jsonDocument<C extends ScanlabCommand>(
  command: C,
  result: CommandResults[C],
): ScanlabJson<C> {
  return { scanlab: VERSION, schemaVersion: JSON_SCHEMA_VERSION, command, result };
}

/** Prints a command's result on stdout as its `--json` document. */
export function printJson<C extends ScanlabCommand>(ctx: Ctx, command: C, result: CommandResults[C]): void {
  ctx.out(toJson(jsonDocument(command, result)));
}
