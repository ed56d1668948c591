/**
 * gucBlocks against the reader it replaced (kept here verbatim as the oracle):
 * every SHOW form the old one read gives the same block count.
 */
import { describe, expect, it } from "vitest";
import { gucBlocks } from "./stream-replay.js";

function oldBlocks(v: string): number | null {
  const m = /^(\d+)(kB|MB)?$/.exec(v.trim());
  if (m === null) return null;
  const n = Number(m[1]);
  return m[2] === "kB" ? n / 8 : m[2] === "MB" ? (n * 1024) / 8 : n;
}

describe("gucBlocks", () => {
  it("reads every SHOW form the old reader read as the same number of blocks", () => {
    let compared = 0;
    for (const n of ["0", "1", "8", "16", "32", "64", "128", "256", "1024", "16384"])
      for (const u of ["", "kB", "MB"])
        for (const pad of ["", " "]) {
          const text = `${pad}${n}${u}${pad}`;
          expect(gucBlocks(text), text).toBe(oldBlocks(text));
          compared++;
        }
    expect(compared).toBe(60);
  });

  it("still refuses what is not a size", () => {
    expect(oldBlocks("lots")).toBeNull();
    expect(() => gucBlocks("lots")).toThrow(/unexpected io_combine_limit/);
  });
});
