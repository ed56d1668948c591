import { describe, expect, it } from "vitest";
import { BitmapPrefetchError } from "./errors.js";
import {
  prefetchMaximum,
  spindlesToPrefetchPages,
  validateEffectiveIoConcurrency,
} from "./io-concurrency.js";

describe("effective_io_concurrency before and after PostgreSQL 13 (apps/docs/src/reference/bitmap-heap-scan-prefetch.md#spindle-formula)", () => {
  it("8.4-12 spindle formula: 1 -> 1, 2 -> 3, 3 -> 6 (5.5 rounded by rint), 4 -> 8, 10 -> 29", () => {
    expect([1, 2, 3, 4, 10].map(spindlesToPrefetchPages)).toEqual([1, 3, 6, 8, 29]);
    expect(prefetchMaximum(10, "pg84")).toBe(29);
    expect(spindlesToPrefetchPages(0)).toBe(0);
  });

  it("13+: the value is the prefetch distance itself", () => {
    for (const n of [0, 1, 16, 1000]) expect(prefetchMaximum(n)).toBe(n);
  });

  it("accepts 0..1000 and rejects anything else with one sentence naming the setting", () => {
    expect(validateEffectiveIoConcurrency(1000)).toBe(1000);
    for (const bad of [-1, 1001, 0.5, Number.POSITIVE_INFINITY]) {
      expect(() => validateEffectiveIoConcurrency(bad)).toThrow(BitmapPrefetchError);
      expect(() => validateEffectiveIoConcurrency(bad)).toThrow(
        /^effective_io_concurrency must be an integer from 0 to 1000, got [^\n]*\.$/,
      );
    }
    expect(() => prefetchMaximum(4, "pg12" as "pg13")).toThrow(/eicFormula/);
  });
});
