/**
 * Parsing flag values: numbers, sizes, durations, on/off, names from a list.
 *
 * Every parser throws a {@link CliError} whose one sentence names the flag,
 * quotes the bad value and says what to write instead. Sizes use binary
 * multiples (1 kB = 1024 bytes) exactly as PostgreSQL's settings and the
 * simulator's scenario files do (`@scanlab/simulator` `parseBytes`).
 */
import { parseSettingSize } from "@scanlab/core";
import { parseBytes, parseDurationUs } from "@scanlab/simulator";
import { CliError } from "./errors.js";

/** Parses an integer flag value in [min, max]. */
export function parseIntFlag(raw: string, flag: string, min: number, max: number): number {
  const text = raw.trim();
  const n = /^[+-]?\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new CliError(
      "CLI_BAD_NUMBER",
      `--${flag} "${raw}" is not valid: write a whole number from ${min} to ${max}.`,
    );
  }
  return n;
}

/** Parses a number flag value in [min, max] (decimals allowed). */
export function parseNumberFlag(raw: string, flag: string, min: number, max: number): number {
  const text = raw.trim();
  const n = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(n) || n < min || n > max) {
    throw new CliError(
      "CLI_BAD_NUMBER",
      `--${flag} "${raw}" is not valid: write a number from ${min} to ${max}.`,
    );
  }
  return n;
}

/**
 * Parses a size (`100GB`, `8kB`, `131072` bytes) into bytes: a whole, exact
 * byte count (below 2^53, `parseBytes`), at least `minBytes` and at most
 * `maxBytes` (`why` says where the maximum comes from).
 */
export function parseSizeFlag(
  raw: string,
  flag: string,
  minBytes = 1,
  max?: { bytes: number; why: string },
): number {
  let bytes: number;
  try {
    bytes = parseBytes(raw.trim(), `--${flag}`);
  } catch (e) {
    if (/too large/.test((e as Error).message)) {
      throw new CliError(
        "CLI_BAD_SIZE",
        `--${flag} "${raw}" is too large: a size must be below 2^53 bytes (8 PiB) to be exact.`,
      );
    }
    throw new CliError(
      "CLI_BAD_SIZE",
      `--${flag} "${raw}" is not a size: write a number with a unit (B, kB, MB, GB, TB), e.g. 100GB.`,
    );
  }
  if (bytes < minBytes) {
    throw new CliError(
      "CLI_BAD_SIZE",
      `--${flag} "${raw}" is too small: it must be at least ${minBytes} bytes.`,
    );
  }
  if (max !== undefined && bytes > max.bytes) {
    throw new CliError(
      "CLI_BAD_SIZE",
      `--${flag} "${raw}" is too large: it must be at most ${max.bytes} bytes (${max.why}).`,
    );
  }
  return bytes;
}

/** The unit of a setting read by {@link parseSettingFlag}. */
export interface SettingUnit {
  /** Bytes in one unit (8192 for a setting in 8 kB pages). */
  bytes: number;
  /** The unit in words, plural (`pages of 8 kB`). */
  name: string;
  /** An example of a size, as SHOW prints one (`128kB`). */
  example: string;
}

/**
 * Parses a setting that counts its own unit, as postgresql.conf does: a bare
 * number is in that unit (`--shared-buffers 16384` is 16384 pages of 8 kB),
 * and a size is converted to it and rounded (`--io-combine-limit 128kB` is 16
 * blocks; `parseSettingSize` of @scanlab/core). Returns whole units within
 * `range`, whose `source` the refusal names.
 */
export function parseSettingFlag(
  raw: string,
  flag: string,
  unit: SettingUnit,
  range: { min: number; max: number; source?: string },
): number {
  const { min, max } = range;
  const n = parseSettingSize(raw.trim(), unit.bytes);
  if (n === null || !Number.isSafeInteger(n)) {
    throw new CliError(
      "CLI_BAD_SIZE",
      `--${flag} "${raw}" is not valid: write a number of ${unit.name} or a size with a unit (B, kB, MB, GB, TB), e.g. ${unit.example}.`,
    );
  }
  if (n < min || n > max) {
    throw new CliError(
      "CLI_BAD_SIZE",
      `--${flag} "${raw}" comes to ${n} ${unit.name}: it must be from ${min} to ${max}${range.source === undefined ? "" : ` (${range.source})`}.`,
    );
  }
  return n;
}

/**
 * Checks a duration (`10s`, `250ms`, `3h`; a bare number is seconds): a whole
 * number of microseconds up to 2^53 - 1 (`parseDurationUs`); returns it as written.
 */
export function parseDurationFlag(raw: string, flag: string): string {
  try {
    parseDurationUs(raw.trim(), `--${flag}`);
  } catch (e) {
    const why = (e as Error).message;
    if (/too long|whole number of microseconds/.test(why)) {
      // parseDurationUs named the flag and quoted the value: its sentence is the one to print.
      throw new CliError("CLI_BAD_DURATION", why);
    }
    throw new CliError(
      "CLI_BAD_DURATION",
      `--${flag} "${raw}" is not a duration: write a number with a unit (us, ms, s, min, h, d), e.g. 10s.`,
    );
  }
  return raw.trim();
}

/** Parses PostgreSQL's boolean spellings (on/off, true/false, yes/no, 1/0). */
export function parseOnOff(raw: string, flag: string): boolean {
  const v = raw.trim().toLowerCase();
  if (["on", "true", "yes", "1"].includes(v)) return true;
  if (["off", "false", "no", "0"].includes(v)) return false;
  throw new CliError("CLI_BAD_BOOLEAN", `--${flag} "${raw}" is not valid: write on or off.`);
}

/** Parses one of a fixed list of names (case-insensitive); `typed` is what the refusal quotes, when `raw` was read from it. */
export function parseChoice<T extends string>(
  raw: string,
  flag: string,
  choices: readonly T[],
  typed: string = raw,
): T {
  const v = raw.trim().toLowerCase();
  const hit = choices.find((c) => c.toLowerCase() === v);
  if (hit === undefined) {
    throw new CliError(
      "CLI_UNKNOWN_NAME",
      `--${flag} "${typed}" is not known: use one of ${choices.join(", ")}.`,
    );
  }
  return hit;
}

/** Parses a fraction written as `0.05` or `5%`, in (0, 1]. */
export function parseFraction(raw: string, flag: string): number {
  const text = raw.trim();
  const pct = text.endsWith("%");
  let n: number;
  try {
    n = parseNumberFlag(pct ? text.slice(0, -1) : text, flag, 0, pct ? 100 : 1) / (pct ? 100 : 1);
  } catch {
    // Name the value as written (with its %), not the number inside it.
    throw new CliError(
      "CLI_BAD_NUMBER",
      `--${flag} "${raw}" is not valid: write a fraction from 0 to 1 or a percentage up to 100%, e.g. 0.05 or 5%.`,
    );
  }
  if (n <= 0) throw new CliError("CLI_BAD_NUMBER", `--${flag} "${raw}" must be above 0 (e.g. 0.05 or 5%).`);
  return n;
}

/** Splits a comma-separated list, refusing empty items. */
export function splitList(raw: string, flag: string): string[] {
  const items = raw.split(",").map((s) => s.trim());
  if (items.length === 0 || items.some((s) => s === "")) {
    throw new CliError(
      "CLI_BAD_LIST",
      `--${flag} "${raw}" has an empty item: write values separated by commas, e.g. 1,2,4.`,
    );
  }
  return items;
}
