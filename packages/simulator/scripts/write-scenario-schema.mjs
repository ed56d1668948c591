/**
 * Writes dist/scenario.schema.json: the JSON Schema (draft 2020-12) of a
 * scenario file, generated from the zod schema the simulator validates with
 * (`z.toJSONSchema`, input side: what a file may contain before defaults are
 * filled in). Editors use it through a scenario file's `$schema`; rules that
 * span fields (shared_buffers below the RAM, a table's blocks below
 * MaxBlockNumber) and units inside strings are checked by the simulator only.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { z } from "zod/mini";
import { scenarioSchema } from "../dist/index.js";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const generated = z.toJSONSchema(scenarioSchema, { io: "input", unrepresentable: "any" });
const schema = {
  $schema: generated.$schema,
  $id: `https://unpkg.com/${pkg.name}@${pkg.version}/dist/scenario.schema.json`,
  title: "scanlab scenario",
  description: `A scenario of ${pkg.name} ${pkg.version}: a machine, its tables and the queries that run on them.`,
  ...Object.fromEntries(Object.entries(generated).filter(([k]) => k !== "$schema")),
};
writeFileSync(
  new URL("../dist/scenario.schema.json", import.meta.url),
  `${JSON.stringify(schema, null, 2)}\n`,
);
