import { ScanlabError } from "@scanlab/core";
import { describe, expect, it } from "vitest";
import { baselineRatios, planSweep, type SweepAxis, SweepPlanError, sweepCellName } from "./sweep-plan.js";

const workers: SweepAxis<number | string> = { name: "workers", values: [0, 1, 3], labels: ["0", "1", "3"] };
const allocator: SweepAxis<number | string> = {
  name: "allocator",
  values: ["pg11", "pg14"],
  labels: ["pg11", "pg14"],
};

describe("planSweep", () => {
  it("one setting: a cell per value, in order", () => {
    const plan = planSweep([workers]);
    expect(plan.rows).toBeNull();
    expect(plan.cells.map((c) => [c.at, c.values, c.label])).toEqual([
      [[0], [0], "workers=0"],
      [[1], [1], "workers=1"],
      [[2], [3], "workers=3"],
    ]);
    expect(plan.baselineLabel).toBe("workers=0");
  });

  it("two settings: row-major, the first setting across, labels columns first", () => {
    const plan = planSweep([workers, allocator], 2);
    expect(plan.cells.map((c) => c.label)).toEqual([
      "workers=0, allocator=pg11",
      "workers=1, allocator=pg11",
      "workers=3, allocator=pg11",
      "workers=0, allocator=pg14",
      "workers=1, allocator=pg14",
      "workers=3, allocator=pg14",
    ]);
    expect(plan.cells[4]).toEqual({
      index: 4,
      at: [1, 1],
      values: [1, "pg14"],
      labels: { workers: "1", allocator: "pg14" },
      label: "workers=1, allocator=pg14",
    });
    expect(Object.keys(plan.cells[0]!.labels)).toEqual(["workers", "allocator"]);
    expect(plan.baselineLabel).toBe("workers=3");
    expect(sweepCellName("scan", plan.cells[5]!)).toBe("scan [workers=3, allocator=pg14]");
  });

  it("refuses what is not a grid, with a user error", () => {
    const codes = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(SweepPlanError);
        expect(ScanlabError.isInstance(e) && e.kind).toBe("user");
        return (e as SweepPlanError).code;
      }
      return "no error";
    };
    expect(codes(() => planSweep([]))).toBe("SWEEP_AXES");
    expect(codes(() => planSweep([workers, allocator, workers]))).toBe("SWEEP_AXES");
    expect(codes(() => planSweep([workers, workers]))).toBe("SWEEP_AXES");
    expect(codes(() => planSweep([{ name: "x", values: [1, 2], labels: ["1"] }]))).toBe("SWEEP_AXES");
    expect(codes(() => planSweep([{ name: "x", values: [1, 1.0001], labels: ["1", "1"] }]))).toBe(
      "SWEEP_DUPLICATE_VALUE",
    );
    expect(codes(() => planSweep([workers], 3))).toBe("SWEEP_BAD_BASELINE");
    expect(codes(() => planSweep([workers], -1))).toBe("SWEEP_BAD_BASELINE");
  });
});

describe("baselineRatios", () => {
  it("divides by the baseline column of the same row", () => {
    const plan = planSweep([workers, allocator], 1);
    const times = [4, 2, 1, 9, 3, null];
    expect(baselineRatios(plan, times)).toEqual([2, 1, 0.5, 3, 1, null]);
  });

  it("is null for every cell of a row whose baseline is missing", () => {
    const plan = planSweep([workers, allocator]);
    expect(baselineRatios(plan, [undefined, 2, 1, 8, 4, 2])).toEqual([null, null, null, 1, 0.5, 0.25]);
  });
});
