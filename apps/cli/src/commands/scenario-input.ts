/**
 * The scenario a command runs: a scenario file (optional) with the scenario
 * flags applied over it, checked by the simulator before anything runs, so
 * a bad value is reported once, in the main thread, as a user error.
 */
import { createRequire } from "node:module";
import {
  type ResolvedScenario,
  resolveDeviceProfile,
  resolveScenario,
  type ScenarioInput,
} from "@scanlab/simulator";
import { type Command, Option } from "commander";
import { readJsonObject } from "../input-file.js";
import { parseIntFlag } from "../options.js";
import {
  applyScenarioFlags,
  DEFAULT_SCENARIO,
  type ParsedFlags,
  parseScenarioFlags,
  SCENARIO_FLAGS,
  type ScenarioDraft,
} from "../scenario-flags.js";

/** Where the scenario file's JSON Schema is published (its `$id`), for a printed scenario's `$schema`. */
export function scenarioSchemaUrl(): string {
  const schema = createRequire(import.meta.url)("@scanlab/simulator/scenario.schema.json") as { $id: string };
  return schema.$id;
}

/** commander's camelCase key of a flag name. */
export function optionKey(name: string): string {
  return name.replace(/-([a-z])/g, (_, ch: string) => ch.toUpperCase());
}

/** The help heading of each scenario flag: what part of the scenario it sets. */
const FLAG_GROUPS: ReadonlyArray<readonly [heading: string, names: readonly string[]]> = [
  ["Machine:", ["os", "device", "cores", "ram", "read-ahead-kb", "max-sectors-kb"]],
  ["PostgreSQL server:", ["pg", "shared-buffers", "max-connections"]],
  ["Table:", ["table-size", "table-blocks", "tuples-per-page", "cache"]],
  [
    "Query:",
    [
      "workload",
      "dataset",
      "selectivity",
      "workers",
      "parallel-leader-participation",
      "allocator",
      "chunk-cap",
      "synchronize-seqscans",
      "effective-io-concurrency",
      "io-combine-limit",
      "io-method",
      "prefetch",
    ],
  ],
  ["Clients:", ["clients", "runs", "duration", "client-stagger"]],
];

/** The help heading of scenario flag `name` ("Machine:", "Table:", ...). */
export function scenarioFlagGroup(name: string): string {
  return FLAG_GROUPS.find(([, names]) => names.includes(name))?.[0] ?? "Scenario:";
}

/** Adds every scenario flag to a command, under headings by what they set. */
export function addScenarioFlags(cmd: Command): Command {
  for (const f of SCENARIO_FLAGS) {
    cmd.addOption(new Option(`--${f.name} <${f.arg}>`, f.help).helpGroup(scenarioFlagGroup(f.name)));
    // A PostgreSQL setting's own name sets the flag it means (`--max-parallel-workers-per-gather 4` is `--workers 4`).
    for (const alias of f.aliases ?? []) {
      cmd.addOption(new Option(`--${alias} <${f.arg}>`).hideHelp().helpGroup(scenarioFlagGroup(f.name)));
      cmd.on(`option:${alias}`, (value: string) => cmd.setOptionValue(optionKey(f.name), value));
    }
  }
  return cmd;
}

/** The raw scenario flag values commander collected (flag name -> string). */
export function rawScenarioFlags(
  opts: Record<string, unknown>,
  except: readonly string[] = [],
): Record<string, string> {
  const raw: Record<string, string> = {};
  for (const f of SCENARIO_FLAGS) {
    if (except.includes(f.name)) continue;
    const v = opts[optionKey(f.name)];
    if (typeof v === "string") raw[f.name] = v;
  }
  return raw;
}

/** The scenario file, or the defaults when there is none. */
export function loadBase(file: string | undefined): ScenarioDraft {
  if (file === undefined) return structuredClone(DEFAULT_SCENARIO);
  const obj = readJsonObject(file, "scenario") as unknown as ScenarioDraft;
  // Validate the file as written first, so its own mistakes are named as the file's.
  validateScenario(obj as unknown as ScenarioInput, file);
  return obj;
}

/** Validates a scenario the way the simulator will read it (fields, units, device). */
export function validateScenario(s: ScenarioInput, source: string): ResolvedScenario {
  const resolved = resolveScenario(s, source);
  resolveDeviceProfile(resolved.scenario.machine.device);
  return resolved;
}

/** Parses `--seed`. */
export function parseSeed(raw: string | undefined): number | undefined {
  return raw === undefined ? undefined : parseIntFlag(raw, "seed", 0, 2 ** 31 - 1);
}

/** File + flags + seed -> a checked scenario. */
export function buildScenario(
  file: string | undefined,
  opts: Record<string, unknown>,
  except: readonly string[] = [],
): { base: ScenarioDraft; flags: ParsedFlags; scenario: ScenarioInput; seed: number | undefined } {
  const flags = parseScenarioFlags(rawScenarioFlags(opts, except));
  const base = loadBase(file);
  const seed = parseSeed(opts.seed as string | undefined);
  const scenario = applyScenarioFlags(base, flags, seed);
  validateScenario(scenario, file === undefined ? "the command line" : `${file} with the command line`);
  return { base, flags, scenario, seed };
}
