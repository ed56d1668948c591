/**
 * Captures fixtures from real servers: `npm run capture -- <row|all> [major ...]`
 * (default: every major where the row exists). Writes
 * fixtures/<row>/pg<major>.json. Run it under the machine-wide lock when other
 * measurements share the machine; each version takes seconds to a minute.
 */
import { type Major, VERSIONS, writeFixture } from "./fixtures.js";
import { ROWS } from "./rows.js";
import { captureFixture } from "./servers.js";

const [which = "all", ...majorArgs] = process.argv.slice(2);
const rows = which === "all" ? ROWS : ROWS.filter((r) => r.name === which);
if (rows.length === 0) {
  console.error(`unknown row ${which}: one of ${ROWS.map((r) => r.name).join(", ")}, or all`);
  process.exit(2);
}
const majors = majorArgs.length > 0 ? majorArgs.map(Number) : [...VERSIONS];
for (const m of majors) {
  if (!VERSIONS.includes(m as Major)) {
    console.error(`no server for PostgreSQL ${m}: one of ${VERSIONS.join(", ")}`);
    process.exit(2);
  }
}
for (const row of rows) {
  for (const major of majors as Major[]) {
    if (!row.versions.includes(major)) continue;
    const t0 = performance.now();
    const fixture = await captureFixture(row, major);
    writeFixture(fixture);
    const problems = fixture.cases
      .map((c) => [c.name, row.replay(c, major)] as const)
      .filter(([, p]) => p !== null);
    console.log(
      `${row.name} pg${major} (${fixture.postgres}): ${fixture.cases.length} cases, ${fixture.cases.length - problems.length} match the model, ${Math.round(performance.now() - t0)} ms`,
    );
    for (const [name, p] of problems) console.log(`  ${name}: ${p}`);
  }
}
