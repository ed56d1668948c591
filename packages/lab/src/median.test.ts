import { describe, expect, it } from "vitest";
import { median } from "./median.js";

describe("median", () => {
  it("takes the middle of an odd count, ignoring order", () => {
    expect(median([30, 10, 20])).toBe(20);
    expect(median([5, 1000, 6])).toBe(6); // one disturbed run out of three is ignored
  });
  it("averages the two middle values of an even count", () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
  it("does not reorder its input", () => {
    const v = [3, 1, 2];
    median(v);
    expect(v).toEqual([3, 1, 2]);
  });
  it("refuses an empty list", () => {
    expect(() => median([])).toThrow();
  });
});
