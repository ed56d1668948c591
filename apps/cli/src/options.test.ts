/** Flag value parsers: one sentence naming the flag and the value on every mistake. */
import { describe, expect, it } from "vitest";
import { parseFraction, parseIntFlag, parseOnOff, parseSizeFlag, splitList } from "./options.js";
import { ratioBar } from "./output/target-report.js";

describe("flag values", () => {
  it("sizes are binary, as PostgreSQL's settings", () => {
    expect(parseSizeFlag("128MB", "x")).toBe(128 * 1024 * 1024);
    expect(parseSizeFlag("8kB", "x")).toBe(8192);
    expect(() => parseSizeFlag("12 parsecs", "table-size")).toThrow(
      /^--table-size "12 parsecs" is not a size/,
    );
    expect(() => parseSizeFlag("1kB", "ram", 1 << 20)).toThrow(/too small/);
  });
  it("integers refuse fractions, signs out of range, and words", () => {
    expect(parseIntFlag(" 16 ", "x", 0, 100)).toBe(16);
    for (const bad of ["2.5", "-1", "1e3", "ten", ""])
      expect(() => parseIntFlag(bad, "workers", 0, 100)).toThrow(/--workers/);
  });
  it("booleans take PostgreSQL's spellings", () => {
    expect(["on", "TRUE", "yes", "1"].map((v) => parseOnOff(v, "x"))).toEqual([true, true, true, true]);
    expect(["off", "false", "No", "0"].map((v) => parseOnOff(v, "x"))).toEqual([false, false, false, false]);
    expect(() => parseOnOff("maybe", "synchronize-seqscans")).toThrow(/on or off/);
  });
  it("fractions as 0.05 or 5%", () => {
    expect(parseFraction("5%", "s")).toBeCloseTo(0.05, 12);
    expect(parseFraction("0.5", "s")).toBe(0.5);
    expect(() => parseFraction("0", "s")).toThrow();
    expect(() => parseFraction("150%", "s")).toThrow();
  });
  it("lists refuse empty items", () => {
    expect(splitList("1, 2,4", "vary")).toEqual(["1", "2", "4"]);
    expect(() => splitList("1,,2", "vary")).toThrow(/empty item/);
  });
});

describe("ratio bar", () => {
  it("marks the gap on a scale of twice the tolerance, the band heavy", () => {
    expect(ratioBar(0, 0.25, 9)).toBe("──━━●━━──");
    expect(ratioBar(Number.NaN, 0.25, 9)).toBe("──━━┃━━──");
    expect(ratioBar(0.25, 0.25, 9)).toBe("──━━┃━●──");
    expect(ratioBar(-0.5, 0.25, 9)).toBe("●─━━┃━━──");
    expect(ratioBar(3, 0.25, 9)).toBe("──━━┃━━─▶");
  });
});
