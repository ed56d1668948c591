/**
 * Sweeps on the job queue against local threads, side by side in one run:
 * the same 48-cell sweep (cold bitmap heap scans of the 2022 `random` data set,
 * `--vary effective_io_concurrency=0..64 --vary selectivity=0.02..0.5`, on a
 * table sized for cells of a second or more) run
 *
 * - on local worker threads (`--jobs` = the machine's cores), and
 * - on a real redis-server (started on a free loopback port for the bench)
 *   served by 1, 2 and 4 `scanlab worker --jobs 1` processes,
 *
 * each with a fresh sweep id (nothing reused). Printed: wall time, cells per
 * second, the speed-up over one queue worker, and the ratio to local
 * threads; every queue run's `--json` must equal the local run's, byte for
 * byte. Bar: with as many queue workers as local threads (the same cores),
 * the queue's overhead is under 10% for cells of a second or more.
 *
 * Bitmap heap scans, because a sequential scan's steady middle is skipped by
 * the simulator's warp and its cells last a fraction of a second whatever the
 * table's size. The bench prints the cell's measured cost (one core's wall
 * time per cell of the local run, start-up included), so the bar's premise is
 * shown, not assumed.
 *
 * SCANLAB_BENCH_TABLE sets the table size (default 16GB: about a second and a
 * half of one core per cell), SCANLAB_BENCH_ROUNDS the rounds (default 3; each
 * configuration once per round, interleaved, the median kept: on a shared
 * machine a single round of one configuration can be off by a third).
 */
import { spawn, spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { redisAvailable, startRedis } from "@scanlab/queue/testing";

const BIN = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "bin.js");
const TABLE = process.env.SCANLAB_BENCH_TABLE ?? "16GB";
const ROUNDS = Number(process.env.SCANLAB_BENCH_ROUNDS ?? 3);
const CORES = availableParallelism();
const BAR = 0.1;
const args = [
  "sweep",
  "--table-size",
  TABLE,
  "--device",
  "intel-ssd-320-120gb",
  "--cores",
  "4",
  "--ram",
  "2GB",
  "--workload",
  "bitmap",
  "--dataset",
  "random",
  "--vary",
  "effective_io_concurrency=0,1,2,4,8,16,32,64",
  "--vary",
  "selectivity=0.02,0.05,0.1,0.18,0.25,0.5",
  "--json",
  "--over-budget",
];
const CELLS = 48;

if (!redisAvailable()) {
  console.log("queue bench: redis-server is not installed (apt-get install redis-server); skipped.");
  process.exit(0);
}

/** Runs the CLI, returns wall seconds and stdout. */
function timed(extra) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [BIN, ...args, ...extra], { encoding: "utf8", maxBuffer: 64 << 20 });
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0)
    throw new Error(`scanlab ${[...args, ...extra].join(" ")} exited ${r.status}: ${r.stderr}`);
  return { s, stdout: r.stdout, stderr: r.stderr };
}

/** Starts n workers and resolves once each serves the queue. */
async function startWorkers(url, n) {
  return Promise.all(
    Array.from({ length: n }, () => {
      const child = spawn(process.execPath, [BIN, "worker", "--queue", url, "--jobs", "1"], {
        stdio: ["ignore", "ignore", "pipe"],
      });
      let err = "";
      return new Promise((resolve, reject) => {
        child.stderr.setEncoding("utf8").on("data", (d) => {
          err += d;
          if (/ as worker /.test(err)) resolve(child);
        });
        child.once("exit", (code) => reject(new Error(`worker exited ${code}: ${err}`)));
      });
    }),
  );
}

async function stopWorkers(children) {
  await Promise.all(
    children.map(
      (c) =>
        new Promise((resolve) => {
          c.removeAllListeners("exit");
          c.once("exit", resolve);
          c.kill("SIGTERM");
        }),
    ),
  );
}

const redis = await startRedis();
const configs = [
  { name: `local threads (--jobs ${CORES})`, workers: 0 },
  ...[1, 2, 4].map((n) => ({ name: `queue, ${n} worker${n === 1 ? "" : "s"}`, workers: n })),
];
const times = new Map(configs.map((c) => [c.name, []]));
let local = null;
const mismatches = [];
let sweep = 0;
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of configs) {
      if (c.workers === 0) {
        const r = timed(["--jobs", String(CORES)]);
        local ??= r.stdout;
        if (r.stdout !== local) mismatches.push(`${c.name} round ${round + 1}`);
        times.get(c.name).push(r.s);
        continue;
      }
      const workers = await startWorkers(redis.url, c.workers);
      try {
        const r = timed(["--queue", redis.url, "--sweep-id", `bench-${process.pid}-${++sweep}`]);
        if (local !== null && r.stdout !== local) mismatches.push(`${c.name} round ${round + 1}`);
        times.get(c.name).push(r.s);
      } finally {
        await stopWorkers(workers);
      }
    }
  }
} finally {
  await redis.stop();
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const localS = median(times.get(configs[0].name));
const oneS = median(times.get(configs[1].name));
console.log(
  `Queue sweeps vs local threads: ${CELLS} cells (cold bitmap heap scans, table ${TABLE}), ${CORES} cores, median of ${ROUNDS} round${ROUNDS === 1 ? "" : "s"}:`,
);
console.log(
  `  a cell costs ${((localS * CORES) / CELLS).toFixed(2)} s of one core (local run, start-up included)`,
);
console.log(
  `  ${"configuration".padEnd(26)} ${"wall s".padStart(8)} ${"cells/s".padStart(8)} ${"vs 1 worker".padStart(12)} ${"vs local".padStart(9)}`,
);
for (const c of configs) {
  const s = median(times.get(c.name));
  console.log(
    `  ${c.name.padEnd(26)} ${s.toFixed(1).padStart(8)} ${(CELLS / s).toFixed(2).padStart(8)} ${c.workers === 0 ? "".padStart(12) : `${(oneS / s).toFixed(2)}x`.padStart(12)} ${`${(localS / s).toFixed(2)}x`.padStart(9)}`,
  );
}
console.log(
  `  --json identical to local threads: ${mismatches.length === 0 ? "yes, every run" : `NO (${mismatches.join(", ")})`}`,
);
const same = configs.find((c) => c.workers === CORES);
if (same !== undefined) {
  const overhead = median(times.get(same.name)) / localS - 1;
  console.log(
    `  bar: ${CORES} queue workers vs ${CORES} local threads (same cores), overhead under ${BAR * 100}%: ${(overhead * 100).toFixed(1)}%: ${overhead < BAR ? "met" : "NOT met"}`,
  );
}
if (mismatches.length > 0) process.exitCode = 1;
