import { describe, expect, it } from "vitest";
import { ioConcurrencyProblem, MAX_IO_CONCURRENCY } from "../src/index.js";

describe("ioConcurrencyProblem", () => {
  it("accepts every integer a server accepts, 0 to MAX_IO_CONCURRENCY", () => {
    for (const v of [0, 1, 16, 256, MAX_IO_CONCURRENCY]) expect(ioConcurrencyProblem(v)).toBeNull();
  });

  it("names the setting and the value it refuses", () => {
    expect(ioConcurrencyProblem(1001)).toBe(
      "effective_io_concurrency must be an integer from 0 to 1000, got 1001.",
    );
    expect(ioConcurrencyProblem(-1, "maintenance_io_concurrency")).toBe(
      "maintenance_io_concurrency must be an integer from 0 to 1000, got -1.",
    );
    for (const v of [1.5, Number.NaN, Number.POSITIVE_INFINITY])
      expect(ioConcurrencyProblem(v)).toMatch(/got /);
  });
});
