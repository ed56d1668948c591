/**
 * `sweep --json` gives each varied setting's value as a number where the
 * setting is a quantity (a {@link SweptValue}), not as the text a table
 * header prints, so a script can plot or sort the points without parsing.
 */
import { parseBytes, parseDurationUs } from "@scanlab/simulator";
import type { SweptValue } from "../json-output.js";
import type { ScenarioFlag } from "../scenario-flags.js";

/**
 * A scenario flag's parsed value as a {@link SweptValue}: numbers, booleans
 * and null as parsed; a size (`SIZE` flags) in bytes and a duration (`TIME`
 * flags) in seconds, read as the scenario reads them; anything else as the
 * flag prints it.
 */
export function sweptValue(flag: ScenarioFlag, value: unknown): SweptValue {
  if (value === null || typeof value === "number" || typeof value === "boolean") return value;
  if (typeof value === "string" && flag.arg === "SIZE") return parseBytes(value, `--${flag.name}`);
  if (typeof value === "string" && flag.arg === "TIME") return parseDurationUs(value, `--${flag.name}`) / 1e6;
  return flag.format(value);
}
