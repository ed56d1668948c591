/**
 * The simulator's version mapping (which model runs for `--pg N`, per
 * mechanism) held against the real servers: for every major with fixtures,
 * each row replays its cases through the model the mapping names for that
 * major and that row's mechanism. A mapping that names a model the server
 * does not behave like (PG16's syncscan as 17's look-ahead, say) fails here.
 */
import {
  PG_MECHANISMS,
  PG_MODEL_TABLE,
  PG_VERSIONS_WITH_SERVER,
  type PgMechanism,
  type PgModel,
  type PgVersion,
  pgModel,
} from "@scanlab/simulator";
import { describe, expect, it } from "vitest";
import { type Major, readFixture, VERSIONS } from "./fixtures.js";
import { KNOWN_MISMATCHES } from "./known-mismatches.js";
import { ROWS } from "./rows.js";

type Table = typeof PG_MODEL_TABLE;

/** Every disagreement between a mapping and the fixtures (known mismatches excepted), optionally of some majors only. */
function mappingProblems(table: Table, majors: readonly Major[] = VERSIONS): string[] {
  const problems: string[] = [];
  for (const row of ROWS) {
    for (const major of row.versions) {
      if (!majors.includes(major)) continue;
      const model: PgModel = pgModel(String(major) as PgVersion, table);
      for (const c of readFixture<{ name: string }>(row.name, major)?.cases ?? []) {
        if (KNOWN_MISMATCHES.some((k) => k.row === row.name && k.major === major && k.caseName === c.name))
          continue;
        const problem = row.replay(c, major, undefined, model);
        if (problem !== null)
          problems.push(
            `PG${major} ${row.mechanism} = ${model[row.mechanism]}, ${row.name} "${c.name}": ${problem}`,
          );
      }
    }
  }
  return problems;
}

/** The mapping with some cells of one major changed. */
function withCells(major: Major, cells: Partial<Record<PgMechanism, string>>): Table {
  const v = String(major) as PgVersion;
  return { ...PG_MODEL_TABLE, [v]: { ...PG_MODEL_TABLE[v], ...cells } };
}

/** Every model of a mechanism that some version runs. */
const modelsOf = (m: PgMechanism) => [...new Set(Object.values(PG_MODEL_TABLE).map((r) => r[m]))];

describe("the simulator's version mapping, held against the conformance fixtures", () => {
  it("the versions the mapping calls server-backed are the versions with fixtures", () => {
    expect([...PG_VERSIONS_WITH_SERVER].map(Number)).toEqual([...VERSIONS]);
  });

  it("every mechanism of the mapping is observed by some row", () => {
    for (const m of PG_MECHANISMS)
      expect(
        ROWS.some((r) => r.mechanism === m),
        m,
      ).toBe(true);
  });

  it("for every version with a server, every row matches the model the mapping names", () => {
    expect(mappingProblems(PG_MODEL_TABLE)).toEqual([]);
  });

  // The check can fail: each of these wrong mappings is rejected. A single cell of syncscan or
  // read streams (up to 16, or 17+) breaks the simulator's coupling of the two and is rejected
  // by that rule alone; changing both together shows the fixtures themselves reject it.
  const wrong: [Major, Partial<Record<PgMechanism, string>>][] = [
    [16, { syncscan: "pg17" }],
    [16, { syncscan: "pg17", readStreams: "pg17" }],
    [14, { syncscan: "pg17", readStreams: "pg17" }],
    [17, { syncscan: "pg96", readStreams: "none" }],
    [16, { readStreams: "pg17" }],
    [13, { allocator: "pg14" }],
    [15, { allocator: "pg11" }],
    [11, { bitmapPrefetch: "pg13" }],
    [13, { bitmapPrefetch: "pg12" }],
    [16, { bitmapPrefetch: "pg18" }],
    [17, { readStreams: "pg18" }],
    [18, { readStreams: "pg17" }],
    [18, { readStreams: "pg19" }],
    [17, { ring: "pg18" }],
    [18, { ring: "pg96" }],
  ];
  for (const [major, cells] of wrong) {
    const label = Object.entries(cells)
      .map(([m, model]) => `${m} as ${model}`)
      .join(" and ");
    it(`rejects PG${major} ${label}`, () => {
      for (const [m, model] of Object.entries(cells))
        expect(PG_MODEL_TABLE[String(major) as PgVersion][m as PgMechanism]).not.toBe(model);
      expect(mappingProblems(withCells(major, cells), [major]).length).toBeGreaterThan(0);
    });
  }

  // Replays every row of a version once per alternative model: about a minute on a loaded 2-core machine.
  it("which other model a server-backed cell could take without a fixture noticing", {
    timeout: 600_000,
  }, () => {
    const unnoticed: string[] = [];
    for (const major of VERSIONS) {
      for (const m of PG_MECHANISMS) {
        if (!ROWS.some((r) => r.mechanism === m && r.versions.includes(major))) continue;
        for (const model of modelsOf(m)) {
          if (model === PG_MODEL_TABLE[String(major) as PgVersion][m]) continue;
          if (mappingProblems(withCells(major, { [m]: model }), [major]).length === 0)
            unnoticed.push(`PG${major} ${m}=${model}`);
        }
      }
    }
    expect(unnoticed).toEqual(UNNOTICED);
  });
});

/**
 * Model swaps the fixtures cannot tell apart, with the reason.
 */
const UNNOTICED: string[] = [
  // 9.6's spinlock and 11's atomic counter both hand out one block per claim: the read
  // traces are the same, the difference is CPU time per claim, which no row captures.
  "PG11 allocator=pg96",
  "PG13 allocator=pg96",
];
