import { describe, expect, it } from "vitest";
import { pickWithin, timing } from "./pick.js";

describe("pickWithin", () => {
  it("takes the smallest value within the tolerance of the fastest, not the fastest", () => {
    expect(pickWithin([10, 5.05, 5, 4.99], 0.02)).toBe(1);
    expect(pickWithin([10, 5.2, 5, 4.99], 0.02)).toBe(2);
    expect(pickWithin([3, 2, 1], 0)).toBe(2);
  });

  it("never picks a missing or non-finite time", () => {
    expect(pickWithin([null, Number.NaN, 7, 6.9], 0.02)).toBe(2);
    expect(pickWithin([null, null], 0.02)).toBe(0);
  });
});

describe("timing: one gain convention", () => {
  it("gain = time(default) / time(recommended) - 1", () => {
    expect(timing([12.5, 10], 0, 1)).toEqual({ gain: 0.25, defaultTimeS: 12.5, recommendedTimeS: 10 });
    // A recommendation slower than the default (within the tolerance) has a negative gain.
    expect(timing([10, 10.4], 0, 1).gain).toBeCloseTo(10 / 10.4 - 1, 12);
  });

  it("0 when the default is recommended, null when a time is missing", () => {
    expect(timing([4, 3], 1, 1)).toEqual({ gain: 0, defaultTimeS: 3, recommendedTimeS: 3 });
    expect(timing([null, 3], 0, 1)).toEqual({ gain: null, defaultTimeS: null, recommendedTimeS: 3 });
    expect(timing([4, 3], -1, 1)).toEqual({ gain: null, defaultTimeS: null, recommendedTimeS: 3 });
  });
});
