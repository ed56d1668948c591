/**
 * The CLI's start-up, measured side by side in one run: wall time of
 * `scanlab --version`, `scanlab --help`, `scanlab simulate --help` and a
 * small `scanlab simulate` (a cold 64 MB scan, where start-up is nearly all
 * of the time) against `node -e 0` (Node's own start, the floor). Each
 * command runs ROUNDS times, interleaved with the floor, and the median and
 * range of each are compared. Bar: `scanlab --version` under 150 ms.
 *
 * SCANLAB_BENCH_ROUNDS sets the rounds (default 15). SCANLAB_BENCH_BEFORE
 * names another build's dist/bin.js (an older checkout): its commands run
 * interleaved with these, so a change is measured under the same load.
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const BIN = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "bin.js");
const ROUNDS = Number(process.env.SCANLAB_BENCH_ROUNDS ?? 15);
const BEFORE = process.env.SCANLAB_BENCH_BEFORE;
const BAR_MS = 150;

const commands = [
  { name: "--version", args: ["--version"] },
  { name: "--help", args: ["--help"] },
  { name: "simulate --help", args: ["simulate", "--help"] },
  {
    name: "simulate (64 MB scan)",
    args: ["simulate", "--table-size", "64MB", "--device", "intel-ssd-320-120gb", "--json"],
  },
];
const cases = [{ name: "node -e 0 (floor)", args: ["-e", "0"] }];
for (const c of commands) {
  if (BEFORE !== undefined) cases.push({ name: `before: scanlab ${c.name}`, args: [BEFORE, ...c.args] });
  cases.push({ name: `scanlab ${c.name}`, args: [BIN, ...c.args] });
}

/** Wall time of one run, in ms. */
function once(args) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const times = new Map(cases.map((c) => [c.name, []]));
for (let i = 0; i < ROUNDS; i++) for (const c of cases) times.get(c.name).push(once(c.args));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const floor = median(times.get(cases[0].name));

console.log(`CLI start-up (median and range of ${ROUNDS} runs each, interleaved):`);
for (const c of cases) {
  const xs = times.get(c.name);
  const m = median(xs);
  const range = `${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)}`;
  console.log(
    `  ${c.name.padEnd(38)} ${m.toFixed(0).padStart(5)} ms (${range.padStart(9)})  ${(m / floor).toFixed(2)}x node's own start`,
  );
}
const version = median(times.get("scanlab --version"));
console.log(
  `  bar: scanlab --version under ${BAR_MS} ms: ${version.toFixed(0)} ms, ${(version / BAR_MS).toFixed(2)} of the bar: ${version < BAR_MS ? "met" : "NOT met"}`,
);
