/**
 * The CLI's start-up, measured side by side in one run: wall time of
 * `scanlab --version`, `scanlab --help` and `scanlab simulate --help`
 * against `node -e 0` (Node's own start, the floor). Each command runs
 * ROUNDS times, interleaved with the floor, and the median of each is
 * compared. Bar: `scanlab --version` under 150 ms.
 *
 * SCANLAB_BENCH_ROUNDS sets the rounds (default 15).
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const BIN = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "bin.js");
const ROUNDS = Number(process.env.SCANLAB_BENCH_ROUNDS ?? 15);
const BAR_MS = 150;

const cases = [
  { name: "node -e 0 (floor)", args: ["-e", "0"] },
  { name: "scanlab --version", args: [BIN, "--version"] },
  { name: "scanlab --help", args: [BIN, "--help"] },
  { name: "scanlab simulate --help", args: [BIN, "simulate", "--help"] },
];

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

console.log(`CLI start-up (median of ${ROUNDS} runs each, interleaved):`);
for (const c of cases) {
  const m = median(times.get(c.name));
  console.log(
    `  ${c.name.padEnd(26)} ${m.toFixed(0).padStart(5)} ms  ${(m / floor).toFixed(2)}x node's own start`,
  );
}
const version = median(times.get("scanlab --version"));
console.log(
  `  bar: scanlab --version under ${BAR_MS} ms: ${version.toFixed(0)} ms, ${(version / BAR_MS).toFixed(2)} of the bar: ${version < BAR_MS ? "met" : "NOT met"}`,
);
