/**
 * Every committed fixture replayed through the models (no PostgreSQL needed):
 * each case must agree exactly (or obey the row's stated rule), and each row
 * must be able to fail: on every version, at least one of the row's wrong
 * models (a changed constant) is rejected by at least one case.
 */
import { describe, expect, it } from "vitest";
import { readFixture } from "./fixtures.js";
import { KNOWN_MISMATCHES } from "./known-mismatches.js";
import { conformanceMatrix } from "./matrix.js";
import { ROWS } from "./rows.js";

// Which wrong models each cell's cases reject: computed once, as the report prints it.
const matrix = conformanceMatrix();

for (const row of ROWS) {
  describe(`${row.title}`, () => {
    for (const major of row.versions) {
      const fixture = readFixture<{ name: string }>(row.name, major);
      it(`PG${major}: a fixture was captured from a real PostgreSQL ${major}`, () => {
        expect(
          fixture,
          `fixtures/${row.name}/pg${major}.json is missing: npm run capture -- ${row.name} ${major}`,
        ).not.toBeNull();
        expect(fixture!.postgres).toMatch(new RegExp(`^${major}\\.`));
        expect(fixture!.cases.length).toBeGreaterThan(0);
      });
      if (fixture === null) continue;
      for (const c of fixture.cases) {
        const known = KNOWN_MISMATCHES.find(
          (k) => k.row === row.name && k.major === major && k.caseName === c.name,
        );
        const test = known ? it.fails : it;
        test(`PG${major} ${c.name}: the model agrees with the server${known ? ` (known mismatch: ${known.why})` : ""}`, () => {
          expect(row.replay(c, major)).toBeNull();
        });
      }
      it(`PG${major}: a wrong model is rejected (the replay can fail)`, () => {
        const cell = matrix.find((r) => r.name === row.name)?.cells[major];
        expect(
          cell?.rejects.length ?? 0,
          `no mutation of ${row.name} is rejected on PG${major}`,
        ).toBeGreaterThan(0);
      });
    }
    it("every wrong model is rejected on some version", () => {
      const cells = Object.values(matrix.find((r) => r.name === row.name)?.cells ?? {});
      for (const m of row.mutations) {
        expect(
          cells.some((c) => c?.rejects.includes(m.name)),
          m.name,
        ).toBe(true);
      }
    });
  });
}
