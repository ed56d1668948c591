/**
 * Simulator speed, measured side by side in one run (`npm run bench`).
 *
 * Bars (issue 7): T3 (six 11-process queries over an 800 GB table) in under
 * 5 s and 1 GB; every built-in target's rows together in under 30 s. Each
 * line prints the wall time, the simulated time, the blocks the scans
 * processed per wall-clock second, and the ratio to its bar.
 *
 * Set SCANLAB_BENCH_ONLY=T1,T7 to run a subset.
 */
import { rowMetrics, simulate, TARGETS } from "../dist/index.js";

const only = process.env.SCANLAB_BENCH_ONLY?.split(",").map((s) => s.trim().toUpperCase());
let peakRss = 0;
const sampleRss = () => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
};
const timer = setInterval(sampleRss, 50);

function fmt(x: number, d = 1): string {
  return x.toFixed(d);
}

interface Line {
  target: string;
  rows: number;
  wallS: number;
  simulatedS: number;
  blocks: number;
}

const lines: Line[] = [];
for (const exp of TARGETS) {
  if (only && !only.includes(exp.id)) continue;
  let wall = 0;
  let sim = 0;
  let blocks = 0;
  const rows = exp.rows();
  for (const row of rows) {
    const t0 = performance.now();
    const result = simulate(row.scenario);
    wall += (performance.now() - t0) / 1000;
    sampleRss();
    sim += result.simulatedS;
    blocks += result.queries.flatMap((q) => q.runs).reduce((a, r) => a + r.blocks, 0);
    rowMetrics(result, row.scenario);
  }
  lines.push({ target: exp.id, rows: rows.length, wallS: wall, simulatedS: sim, blocks });
  console.log(
    `${exp.id.padEnd(4)} ${String(rows.length).padStart(4)} rows  wall ${fmt(wall).padStart(7)} s  simulated ${fmt(sim, 0).padStart(7)} s  ` +
      `${fmt(blocks / 1e6, 1).padStart(8)} M blocks  ${fmt(blocks / wall / 1e6, 2).padStart(7)} M blocks/s`,
  );
}
clearInterval(timer);

const total = lines.reduce((a, l) => a + l.wallS, 0);
const t3 = lines.find((l) => l.target === "T3");
console.log("");
console.log("bar                                   measured      target   measured/target");
if (t3)
  console.log(
    `T3 wall time                          ${fmt(t3.wallS).padStart(7)} s   ${"5.0 s".padStart(8)}   ${fmt(t3.wallS / 5, 2)}`,
  );
console.log(
  `peak memory (RSS)                     ${fmt(peakRss / 2 ** 20, 0).padStart(6)} MB  ${"1024 MB".padStart(8)}   ${fmt(peakRss / 2 ** 30, 2)}`,
);
if (!only)
  console.log(
    `all targets, wall time                ${fmt(total).padStart(7)} s   ${"30.0 s".padStart(8)}   ${fmt(total / 30, 2)}`,
  );
