/**
 * blocksFromSize against the parser it was before it used `@scanlab/core`'s
 * grammar, kept here verbatim as the oracle: every input of the grid gives
 * the same block count or is refused by both, except the bit forms (`1Gb`),
 * which PostgreSQL refuses and which are now refused too.
 */
import { describe, expect, it } from "vitest";
import { MAX_NBLOCKS } from "./policy.js";
import { blocksFromSize } from "./relation-size.js";

const OLD_UNIT_BYTES: Record<string, number> = {
  b: 1,
  kb: 1024,
  mb: 1024 ** 2,
  gb: 1024 ** 3,
  tb: 1024 ** 4,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
};

function oldBlocksFromSize(size: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(size);
  if (m === null) return null;
  const value = Number(m[1]);
  const unit = m[2]!.toLowerCase();
  let blocks: number;
  if (unit === "" || unit === "blocks" || unit === "block") blocks = value;
  else {
    const bytes = OLD_UNIT_BYTES[unit];
    if (bytes === undefined) return null;
    blocks = Math.ceil((value * bytes) / 8192);
  }
  if (!Number.isInteger(blocks) || blocks < 0 || blocks > MAX_NBLOCKS) return null;
  return blocks;
}

function attempt(size: string): number | null {
  try {
    return blocksFromSize(size);
  } catch {
    return null;
  }
}

const NUMBERS = [
  "0",
  "1",
  "1.5",
  "8",
  "100",
  "4096",
  "8192",
  "100000",
  "800",
  "32",
  "4294967295",
  "4294967296",
  "-1",
  ".5",
];
const UNITS = [
  ...Object.keys(OLD_UNIT_BYTES),
  "",
  "B",
  "kB",
  "KB",
  "MB",
  "GB",
  "TB",
  "KiB",
  "GiB",
  "block",
  "blocks",
  "Blocks",
  "BLOCKS",
  "Gb",
  "Mb",
  "Kb",
  "Tb",
  "k",
  "g",
  "d",
  "pages",
];

describe("blocksFromSize keeps the old grammar's results", () => {
  it("for every number x spacing x unit in the grid", () => {
    let compared = 0;
    for (const n of NUMBERS)
      for (const sp of ["", " "])
        for (const u of UNITS) {
          const input = `${n}${sp}${u}`;
          const ours = attempt(input);
          if (/^[KMGT]b$/.test(u)) {
            expect(ours, input).toBeNull();
            continue;
          }
          // fio's one-letter forms (k, m, g, t) are new words of the shared grammar.
          if (/^[kmgt]$/.test(u) && oldBlocksFromSize(input) === null) continue;
          expect(ours, input).toBe(oldBlocksFromSize(input));
          compared++;
        }
    expect(compared).toBeGreaterThan(500);
  });

  it("refuses 1Gb (gigabits), which it used to read as 1 GiB", () => {
    expect(oldBlocksFromSize("1Gb")).toBe(131072);
    expect(() => blocksFromSize("1Gb")).toThrow(/relation size/);
  });
});
