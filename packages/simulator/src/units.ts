/**
 * Quantities as people write them: `100GB`, `8kB`, `128MB`, `3h`, `250ms`.
 *
 * Sizes use binary multiples (1 kB = 1024 bytes), as PostgreSQL does for its
 * memory and size settings (`shared_buffers = 128MB` is 128 x 2^20 bytes) and
 * as the published benchmarks do ("100GB table", "800GB"). `GiB`/`KiB` spellings are accepted
 * too; decimal units can be written explicitly as `GB10` is not a thing, so a
 * reader who wants 10^9 writes the number of bytes.
 *
 * The grammar is `@scanlab/core`'s (`parseSize`, `parseDuration`); the rule
 * for a bare number is this module's: bytes for a size (including
 * `machine.sharedBuffers`, unlike postgresql.conf, which reads a bare
 * shared_buffers as 8 kB pages), seconds for a duration.
 */
import { BLCKSZ, parseDuration, parseSize } from "@scanlab/core";
import { ScenarioError } from "./errors.js";
import { MAX_SIMULATED_US } from "./scenario/limits.js";

/** PostgreSQL's default block size in bytes, BLCKSZ of `@scanlab/core`. */
export const BLOCK_BYTES: number = BLCKSZ;

/** The throughput unit's conversions (MiB/s), `@scanlab/core`'s, for the engine, which imports no package. */
export { mibPerS, mibPerSFromBytesPerSecond } from "@scanlab/core";

/**
 * Parses a size such as `100GB`, `8kB`, `131072` (bytes) into bytes: a whole
 * number, exact (at most 2^53 - 1). A number is bytes and must be whole; a
 * string with a fractional figure is rounded to the byte, as PostgreSQL rounds
 * `shared_buffers = '1.5kB'`.
 * @example parseBytes("128MB") // 134217728
 */
export function parseBytes(value: string | number, field = "size"): number {
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new ScenarioError(`${field} must be a whole number of bytes from 0 to 2^53 - 1, got ${value}.`, {
        field,
        code: "SCENARIO_BAD_SIZE",
      });
    }
    return value;
  }
  const q = parseSize(value);
  if (q === null) {
    throw new ScenarioError(
      `${field} "${value}" is not a size: write a number with an optional unit (B, kB, MB, GB, TB).`,
      { field, code: "SCENARIO_BAD_SIZE" },
    );
  }
  const bytes = Math.round(q.value * (q.scale ?? 1));
  if (!Number.isSafeInteger(bytes)) {
    throw new ScenarioError(
      `${field} "${value}" is too large: a size must be below 2^53 bytes (8 PiB) to be exact.`,
      { field, code: "SCENARIO_BAD_SIZE" },
    );
  }
  return bytes;
}

/**
 * A duration in microseconds must be one the engine's clock can hold: finite,
 * at most 2^53 - 1, and whole (to a thousandth of a microsecond, the rounding
 * of decimal seconds such as 1.1 s in binary). It is returned as computed.
 */
function checkUs(us: number, value: string | number, field: string): number {
  if (!(us <= MAX_SIMULATED_US)) {
    throw new ScenarioError(
      `${field} ${JSON.stringify(value)} is too long: the simulated clock holds at most 2^53 - 1 microseconds (about 285 years).`,
      { field, code: "SCENARIO_BAD_DURATION" },
    );
  }
  if (Math.abs(us - Math.round(us)) > 1e-3) {
    throw new ScenarioError(
      `${field} ${JSON.stringify(value)} is not a whole number of microseconds, the unit of the simulated clock.`,
      { field, code: "SCENARIO_BAD_DURATION" },
    );
  }
  return us;
}

/**
 * Parses a duration such as `3h`, `250ms`, `10s` into microseconds; a bare
 * number is seconds. It must come to a whole number of microseconds, at most 2^53 - 1.
 * @example parseDurationUs("2.5s") // 2500000
 */
export function parseDurationUs(value: string | number, field = "duration"): number {
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value < 0) {
      throw new ScenarioError(`${field} must be a non-negative number of seconds, got ${value}.`, { field });
    }
    return checkUs(value * 1e6, value, field);
  }
  const q = parseDuration(value);
  if (q === null) {
    throw new ScenarioError(
      `${field} "${value}" is not a duration: write a number with a unit (us, ms, s, min, h, d).`,
      { field, code: "SCENARIO_BAD_DURATION" },
    );
  }
  return checkUs(q.value * (q.scale ?? 1e6), value, field);
}

/** Formats bytes for people: `1.5 GiB`, `128 KiB`. */
export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = bytes;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v >= 100 || i === 0 ? v.toFixed(0) : v.toFixed(1)} ${units[i]}`;
}
