/**
 * Simulator speed, measured side by side in one run (`npm run bench`).
 *
 * Bars: T3 (six 11-process queries over an 800 GB table) in under
 * 5 s on a 2-core machine and under 1 GB; every built-in target's rows
 * together in under 30 s.
 *
 * Rows are independent simulations, so the bench runs them the way
 * `scanlab reproduce` does: on worker threads, one per core (at most
 * SCANLAB_BENCH_THREADS, default 2), each taking the next row of the target
 * as it finishes one. A target's wall time runs from its first row's start to
 * its last row's end; the next target starts after that. Beside it, "1 core"
 * is the sum of the rows' own times: what the same rows take on one thread.
 * Peak memory is the whole process's RSS, threads included.
 *
 * Speed is simulated blocks per second of wall time, and per core: the
 * blocks over "1 core", with its ratio to the bar of 20 M simulated blocks
 * per second per core.
 *
 * Set SCANLAB_BENCH_ONLY=T1,T7 to run a subset.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { TARGETS } from "../dist/index.js";

interface RowAnswer {
  wallS: number;
  simulatedS: number;
  blocks: number;
}

interface Line {
  target: string;
  rows: number;
  wallS: number;
  oneCoreS: number;
  simulatedS: number;
  blocks: number;
}

const only = process.env.SCANLAB_BENCH_ONLY?.split(",").map((s) => s.trim().toUpperCase());
const threads = Math.max(
  1,
  Math.min(Number(process.env.SCANLAB_BENCH_THREADS ?? 2) || 2, availableParallelism()),
);

let peakRss = 0;
const sampleRss = () => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
};
const timer = setInterval(sampleRss, 50);

/** Bar: simulated blocks per second per core, every target. */
const BLOCKS_PER_CORE_S = 20e6;

function fmt(x: number, d = 1): string {
  return x.toFixed(d);
}

const workers = Array.from(
  { length: threads },
  () => new Worker(new URL("./row-worker.mjs", import.meta.url)),
);

/** Runs one row on a thread. */
function runRow(worker: Worker, target: string, row: number): Promise<RowAnswer> {
  return new Promise((resolve, reject) => {
    const onError = (e: Error) => reject(e);
    worker.once("message", (answer: RowAnswer) => {
      worker.off("error", onError);
      resolve(answer);
    });
    worker.once("error", onError);
    worker.postMessage({ target, row });
  });
}

/** Runs every row of a target, each thread taking the next row as it frees up. */
async function runTarget(target: string, rowCount: number): Promise<Line> {
  let next = 0;
  const line: Line = { target, rows: rowCount, wallS: 0, oneCoreS: 0, simulatedS: 0, blocks: 0 };
  const t0 = performance.now();
  await Promise.all(
    workers.map(async (w) => {
      while (next < rowCount) {
        const a = await runRow(w, target, next++);
        sampleRss();
        line.oneCoreS += a.wallS;
        line.simulatedS += a.simulatedS;
        line.blocks += a.blocks;
      }
    }),
  );
  line.wallS = (performance.now() - t0) / 1000;
  return line;
}

console.log(`${threads} thread(s); "1 core" is the sum of the rows' own times`);
const lines: Line[] = [];
for (const exp of TARGETS) {
  if (only && !only.includes(exp.id)) continue;
  const line = await runTarget(exp.id, exp.rows().length);
  lines.push(line);
  console.log(
    `${line.target.padEnd(4)} ${String(line.rows).padStart(4)} rows  wall ${fmt(line.wallS).padStart(6)} s  1 core ${fmt(line.oneCoreS).padStart(6)} s  ` +
      `simulated ${fmt(line.simulatedS, 0).padStart(6)} s  ${fmt(line.blocks / 1e6, 1).padStart(7)} M blocks  ` +
      `${fmt(line.blocks / line.wallS / 1e6, 2).padStart(7)} M blocks/s  ` +
      `${fmt(line.blocks / line.oneCoreS / 1e6, 2).padStart(7)} M blocks/s per core ` +
      `(${fmt(line.blocks / line.oneCoreS / BLOCKS_PER_CORE_S, 3)} of 20 M)`,
  );
}
clearInterval(timer);
await Promise.all(workers.map((w) => w.terminate()));

const total = lines.reduce((a, l) => a + l.wallS, 0);
const totalOneCore = lines.reduce((a, l) => a + l.oneCoreS, 0);
const t3 = lines.find((l) => l.target === "T3");
const bar = (name: string, measured: string, target: string, ratio: number) =>
  console.log(`${name.padEnd(40)} ${measured.padStart(10)}  ${target.padStart(8)}   ${fmt(ratio, 2)}`);
console.log("");
console.log(`${"bar".padEnd(40)} ${"measured".padStart(10)}  ${"target".padStart(8)}   measured/target`);
if (t3) {
  bar(`T3 wall time (${threads} threads)`, `${fmt(t3.wallS)} s`, "5.0 s", t3.wallS / 5);
  bar("T3 on 1 core (for comparison)", `${fmt(t3.oneCoreS)} s`, "5.0 s", t3.oneCoreS / 5);
}
bar("peak memory (RSS, all threads)", `${fmt(peakRss / 2 ** 20, 0)} MB`, "1024 MB", peakRss / 2 ** 30);
if (!only) {
  bar(`all targets, wall time (${threads} threads)`, `${fmt(total)} s`, "30.0 s", total / 30);
  bar("all targets on 1 core (for comparison)", `${fmt(totalOneCore)} s`, "30.0 s", totalOneCore / 30);
}
