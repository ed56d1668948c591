import { describe, expect, it } from "vitest";
import { direction, judgeComparisons, SAME_BAND } from "./comparisons.js";

describe("direction", () => {
  it("calls a change inside the band the same, outside it a direction", () => {
    expect(direction(100, 100 * (1 + SAME_BAND) - 0.01)).toBe("same");
    expect(direction(100, 100 * (1 - SAME_BAND) + 0.01)).toBe("same");
    expect(direction(100, 120)).toBe("a faster");
    expect(direction(100, 80)).toBe("b faster");
  });
});

describe("judgeComparisons", () => {
  const times = new Map([
    ["on", { measuredMs: 1000, predictedMs: 1200 }],
    ["off", { measuredMs: 1500, predictedMs: 1100 }],
    ["x", { measuredMs: 100, predictedMs: 100 }],
  ]);
  it("agrees when both sides point the same way, even with different magnitudes", () => {
    const [r] = judgeComparisons([{ varied: "synchronize_seqscans", a: "x", b: "on" }], times);
    expect(r!.measured).toBe("a faster");
    expect(r!.predicted).toBe("a faster");
    expect(r!.agrees).toBe(true);
  });
  it("disagrees when the model has the other cell faster", () => {
    const [r] = judgeComparisons([{ varied: "synchronize_seqscans", a: "on", b: "off" }], times);
    expect(r!.measured).toBe("a faster");
    expect(r!.predicted).toBe("b faster");
    expect(r!.agrees).toBe(false);
    expect(r!.measuredRatio).toBeCloseTo(1.5);
    expect(r!.predictedRatio).toBeCloseTo(1100 / 1200);
  });
  it("skips a comparison with an unfinished cell", () => {
    expect(judgeComparisons([{ varied: "pg", a: "on", b: "missing" }], times)).toEqual([]);
  });
});
