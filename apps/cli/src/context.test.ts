import { describe, expect, it } from "vitest";
import { outputWidth } from "./context.js";

describe("outputWidth", () => {
  it("is the terminal's columns on a terminal", () => {
    expect(outputWidth({ isTTY: true, columns: 132 }, { COLUMNS: "100" })).toBe(132);
  });

  it("is COLUMNS off a terminal, or on one that does not say", () => {
    expect(outputWidth({}, { COLUMNS: "100" })).toBe(100);
    expect(outputWidth({ isTTY: false, columns: 132 }, { COLUMNS: "100" })).toBe(100);
    expect(outputWidth({ isTTY: true, columns: 0 }, { COLUMNS: "100" })).toBe(100);
  });

  it("is 80 without a usable COLUMNS", () => {
    for (const COLUMNS of [undefined, "", "0", "-5", "abc", "80x", "1.5"])
      expect(outputWidth({}, { COLUMNS }), String(COLUMNS)).toBe(80);
  });
});
