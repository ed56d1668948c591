/**
 * `npm run conformance`: prints the conformance matrix (versions as columns,
 * mechanisms as rows, matched/total fixture cases per cell) and every
 * disagreement; `--json` prints the matrix as JSON. Needs no PostgreSQL.
 * With `--check` it exits 1 when a cell has a disagreement.
 */
import { conformanceMatrix, formatMatrix } from "./matrix.js";

const rows = conformanceMatrix();
if (process.argv.includes("--json")) {
  console.log(JSON.stringify(rows, null, 2));
} else {
  console.log(formatMatrix(rows));
  for (const r of rows) {
    for (const [v, c] of Object.entries(r.cells)) {
      for (const p of c?.problems ?? []) console.log(`\n${r.name} PG${v}, ${p.name}: ${p.problem}`);
    }
  }
}
const disagrees = rows.some((r) => Object.values(r.cells).some((c) => (c?.problems.length ?? 0) > 0));
if (process.argv.includes("--check") && disagrees) process.exitCode = 1;
