/**
 * `npm run conformance`: prints the conformance matrix (versions as columns,
 * mechanisms as rows, matched/total fixture cases per cell), every
 * disagreement, the wrong models each version's captured cases reject (so
 * every cell can fail), and the simulator's version mapping; `--json` prints the
 * same as one JSON document ({@link conformanceReport}), which the docs
 * build renders. Needs no PostgreSQL. With `--check` it exits 1 when a cell
 * has a disagreement.
 */
import { conformanceReport } from "./conformance-report.js";
import { formatMatrix, formatRejections } from "./matrix.js";

const report = conformanceReport();
if (process.argv.includes("--json")) {
  console.log(JSON.stringify(report, null, 2));
} else {
  console.log(formatMatrix(report.rows));
  for (const r of report.rows) {
    for (const [v, c] of Object.entries(r.cells)) {
      for (const p of c?.problems ?? []) console.log(`\n${r.name} PG${v}, ${p.name}: ${p.problem}`);
    }
  }
  console.log(
    "\nWrong models (one constant or rule changed) and the versions whose captured cases reject them:",
  );
  console.log(formatRejections(report.rows));
  console.log("\nWhich model runs for each version (scanlab simulate --pg N):");
  for (const m of report.mapping) console.log(`  ${m.line}`);
}
const disagrees = report.rows.some((r) => Object.values(r.cells).some((c) => (c?.problems.length ?? 0) > 0));
if (process.argv.includes("--check") && disagrees) process.exitCode = 1;
