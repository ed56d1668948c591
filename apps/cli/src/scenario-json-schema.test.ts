/**
 * The scenario file's JSON Schema (`@scanlab/simulator/scenario.schema.json`)
 * describes every scenario scanlab itself writes: the default of `simulate`,
 * what `--print-scenario` prints (which names the schema in `$schema`), and
 * every row of the published experiments. Files it refuses are in the
 * bad-input table (e2e/bad-input-table.test.ts).
 */
import { createRequire } from "node:module";
import { TARGETS } from "@scanlab/experiments";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { runInProcess } from "./e2e/run-in-process.js";
import { DEFAULT_SCENARIO } from "./scenario-flags.js";

const schema = createRequire(import.meta.url)("@scanlab/simulator/scenario.schema.json") as { $id: string };
const validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema);
const valid = (scenario: unknown) => {
  const ok = validate(JSON.parse(JSON.stringify(scenario)));
  return ok ? "valid" : JSON.stringify(validate.errors);
};

describe("the scenario JSON Schema", () => {
  it("describes simulate's default scenario", () => {
    expect(valid(DEFAULT_SCENARIO)).toBe("valid");
  });

  it("describes what --print-scenario prints, and is what it names as $schema", async () => {
    const r = await runInProcess(["simulate", "--pg", "17", "--workers", "4", "--print-scenario"]);
    expect(r.code).toBe(0);
    const printed = JSON.parse(r.stdout) as { $schema: string };
    expect(printed.$schema).toBe(schema.$id);
    expect(valid(printed)).toBe("valid");
  });

  const rows = TARGETS.flatMap((t) => t.rows().map((r) => [`${t.id} ${r.id}`, r.scenario] as const));
  it.each(rows)("describes the scenario of %s", (_id, scenario) => {
    expect(valid(scenario)).toBe("valid");
  });

  it("covers every published experiment", () => {
    expect(rows.length).toBeGreaterThan(100);
  });
});
