/**
 * One bench thread (see index.ts): simulates the rows it is handed, one at a
 * time, and answers with the row's wall time and what it simulated. Plain
 * JavaScript over the built package, so the thread needs no TypeScript loader.
 */
import { parentPort } from "node:worker_threads";
import { rowMetrics, simulate } from "@scanlab/simulator";
import { TARGETS } from "../dist/index.js";

const rowsOf = new Map();
parentPort.on("message", ({ target, row }) => {
  let rows = rowsOf.get(target);
  if (rows === undefined) {
    rows = TARGETS.find((t) => t.id === target).rows();
    rowsOf.set(target, rows);
  }
  const { scenario } = rows[row];
  const t0 = performance.now();
  const result = simulate(scenario);
  rowMetrics(result, scenario);
  const wallS = (performance.now() - t0) / 1000;
  const blocks = result.queries.flatMap((q) => q.runs).reduce((a, r) => a + r.blocks, 0);
  parentPort.postMessage({ wallS, simulatedS: result.simulatedS, blocks });
});
