/**
 * Every built-in experiment's scenarios, the rows and every value its
 * calibration may try, pass the simulator's strict scenario schema.
 */
import { resolveScenario } from "@scanlab/simulator";
import { describe, expect, it } from "vitest";
import { TARGETS } from "./index.js";

describe("the experiments' scenarios are valid", () => {
  it("every built-in experiment row validates", () => {
    let rows = 0;
    for (const target of TARGETS) {
      for (const row of target.rows()) {
        expect(() => resolveScenario(row.scenario, `${target.id} ${row.id}`)).not.toThrow();
        rows++;
      }
      const c = target.calibration;
      if (c !== undefined) {
        for (const v of c.bounds) for (const row of c.apply(v)) resolveScenario(row.scenario);
      }
    }
    expect(rows).toBeGreaterThan(100);
  });
});
