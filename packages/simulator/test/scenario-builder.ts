/**
 * Test helper: a small scenario (8 cores, 4 GB, Linux 5.4, the Intel 320, no
 * CPU jitter, one 20 000-block table "t" and one query "q" on it), with the
 * parts a test cares about changed.
 */
import type { ScenarioInput } from "../src/scenario/schema.js";

export type MachineIn = ScenarioInput["machine"];
export type TableIn = ScenarioInput["tables"][number];
export type QueryIn = ScenarioInput["queries"][number];

export function testScenario(
  over: {
    name?: string;
    machine?: Partial<MachineIn>;
    /** Fields changed in the one default table. */
    table?: Partial<TableIn>;
    /** The tables instead (the query scans the first). */
    tables?: TableIn[];
    query?: Partial<QueryIn>;
  } = {},
): ScenarioInput {
  const tables = over.tables ?? [{ name: "t", blocks: 20_000, tuplesPerPage: 100, ...over.table } as TableIn];
  return {
    name: over.name ?? "test",
    machine: {
      cores: 8,
      ram: "4GB",
      os: "linux-5.4",
      device: "intel-ssd-320-120gb",
      cpu: { jitter: 0 },
      ...over.machine,
    },
    tables,
    queries: [{ name: "q", table: tables[0]!.name, ...over.query }],
  };
}
