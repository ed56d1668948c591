/**
 * parseBytes and parseDurationUs against the parsers they were before they
 * used `@scanlab/core`'s grammar, kept here verbatim as the oracle: every
 * input of the grid gives the same bytes or microseconds, or is refused by
 * both, except the deliberate changes listed in CHANGED.
 */
import { describe, expect, it } from "vitest";
import { parseBytes, parseDurationUs } from "./units.js";

const OLD_SIZE_UNITS: Record<string, number> = {
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
  t: 1024 ** 4,
  tb: 1024 ** 4,
  tib: 1024 ** 4,
};
const OLD_TIME_UNITS_US: Record<string, number> = {
  us: 1,
  µs: 1,
  ms: 1e3,
  s: 1e6,
  min: 60e6,
  m: 60e6,
  h: 3600e6,
};

/** The old parseBytes for strings: bytes, or null where it threw. */
function oldBytes(value: string): number | null {
  const m = /^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)\s*$/.exec(value);
  const unit = m?.[2]?.toLowerCase() ?? "";
  const factor = OLD_SIZE_UNITS[unit === "" ? "b" : unit];
  if (!m || factor === undefined) return null;
  const bytes = Math.round(Number(m[1]) * factor);
  return Number.isSafeInteger(bytes) ? bytes : null;
}

/** The old parseDurationUs for strings: microseconds, or null where it threw. */
function oldUs(value: string): number | null {
  const m = /^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Zµ]*)\s*$/.exec(value);
  const unit = m?.[2]?.toLowerCase() ?? "";
  const factor = OLD_TIME_UNITS_US[unit === "" ? "s" : unit];
  if (!m || factor === undefined) return null;
  const us = Number(m[1]) * factor;
  if (!(us <= Number.MAX_SAFE_INTEGER) || Math.abs(us - Math.round(us)) > 1e-3) return null;
  return us;
}

function attempt(f: () => number): number | null {
  try {
    return f();
  } catch {
    return null;
  }
}

const NUMBERS = [
  "0",
  "1",
  "1.5",
  "8",
  "16",
  "128",
  "131072",
  "0.25",
  "2.0001",
  "8388608",
  "9007199254740991",
  "1e3",
  "-1",
  ".5",
  "",
];
const SPACES = ["", " "];
const SIZE_WORDS = [
  ...Object.keys(OLD_SIZE_UNITS),
  "B",
  "kB",
  "KB",
  "Kb",
  "MB",
  "Mb",
  "mB",
  "GB",
  "Gb",
  "gB",
  "TB",
  "Tb",
  "KiB",
  "MiB",
  "GiB",
  "TiB",
  "K",
  "M",
  "G",
  "T",
  "PB",
  "blocks",
  "µs",
  "d",
  "x",
];
const TIME_WORDS = [
  ...Object.keys(OLD_TIME_UNITS_US),
  "US",
  "Ms",
  "MS",
  "S",
  "Min",
  "MIN",
  "H",
  "d",
  "D",
  "sec",
  "hr",
  "ns",
  "x",
];

/** Inputs whose meaning changed on purpose. */
const CHANGED: Record<string, (input: string) => boolean> = {
  // Bit forms (capital prefix, lower-case b) were read as bytes; PostgreSQL refuses them, and now so does scanlab.
  bits: (input) => /^\s*[0-9.]+\s*[KMGT]b\s*$/.test(input),
  // Days ("d", any case) are new: PostgreSQL's time unit, refused before.
  days: (input) => /^\s*[0-9.]+\s*[dD]\s*$/.test(input),
};

describe("parseBytes keeps the old grammar's results", () => {
  it("for every number x spacing x unit in the grid", () => {
    let compared = 0;
    for (const n of NUMBERS)
      for (const sp of SPACES)
        for (const u of SIZE_WORDS) {
          const input = ` ${n}${sp}${u}`;
          const ours = attempt(() => parseBytes(input));
          if (CHANGED.bits!(input)) {
            expect(ours, input).toBeNull();
            continue;
          }
          expect(ours, input).toBe(oldBytes(input));
          compared++;
        }
    expect(compared).toBeGreaterThan(600);
  });

  it("refuses the bit forms that the old grammar read as bytes", () => {
    expect(oldBytes("1Gb")).toBe(1024 ** 3);
    expect(() => parseBytes("1Gb", "machine.ram")).toThrow(/machine.ram "1Gb" is not a size/);
  });
});

describe("parseDurationUs keeps the old grammar's results", () => {
  it("for every number x spacing x unit in the grid", () => {
    let compared = 0;
    for (const n of NUMBERS)
      for (const sp of SPACES)
        for (const u of TIME_WORDS) {
          const input = `${n}${sp}${u}`;
          const ours = attempt(() => parseDurationUs(input));
          if (CHANGED.days!(input)) {
            expect(oldUs(input), input).toBeNull();
            continue;
          }
          expect(ours, input).toBe(oldUs(input));
          compared++;
        }
    expect(compared).toBeGreaterThan(300);
  });

  it("reads days, PostgreSQL's largest time unit", () => {
    expect(parseDurationUs("1d")).toBe(86400e6);
  });
});
