import { describe, expect, it } from "vitest";
import { prefetchMaximum, spindlesToPrefetchPages } from "./io-concurrency.js";

describe("8.4-12 spindle formula rint(n H(n)) by hand (reference 3.1)", () => {
  // n = 5: 5 + 2.5 + 1.667 + 1.25 + 1 = 11.42 -> 11
  // n = 6: 6 + 3 + 2 + 1.5 + 1.2 + 1 = 14.7 -> 15
  // n = 8: 8 + 4 + 2.667 + 2 + 1.6 + 1.333 + 1.143 + 1 = 21.74 -> 22
  // n = 16: 16 x H(16) = 16 x 3.3807 = 54.09 -> 54
  // n = 32: 32 x H(32) = 32 x 4.0585 = 129.87 -> 130
  it("5 -> 11, 6 -> 15, 8 -> 22, 16 -> 54, 32 -> 130", () => {
    expect([5, 6, 8, 16, 32].map(spindlesToPrefetchPages)).toEqual([11, 15, 22, 54, 130]);
    expect([5, 6, 8, 16, 32].map((n) => prefetchMaximum(n, "pg84"))).toEqual([11, 15, 22, 54, 130]);
  });

  // T7 (b)'s settings read as 8.4-12 spindles (the same query on 9.3 behaved alike, apps/docs/src/reference/experiments.md#t7-effective-io-concurrency-on-sata-ssds):
  // 1 -> 1, 2 -> 3, 4 -> 8.33 -> 8, 64 -> 64 x H(64) = 64 x 4.7439 = 303.6 -> 304.
  it("T7 settings as spindles: 1 -> 1, 2 -> 3, 4 -> 8, 64 -> 304", () => {
    expect([1, 2, 4, 64].map(spindlesToPrefetchPages)).toEqual([1, 3, 8, 304]);
  });
});
