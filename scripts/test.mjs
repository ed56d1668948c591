#!/usr/bin/env node
// The README's test command, in two passes that both always run:
//
// 1. lint, typecheck and the unit tests of every package, two tasks at a time
//    (`--continue`: one failing task never hides the others);
// 2. the live tests (`*.live.test.ts`: real disk, page cache, /proc/diskstats,
//    PostgreSQL, strace, fio, a browser), one package at a time, because
//    /proc/diskstats counts every process's reads and two live tests running
//    at once would measure each other.
//
// The live pass holds a machine-wide lock (flock(1) on
// $TMPDIR/scanlab-live-tests.lock) for the same reason: two checkouts tested
// side by side on one machine take turns for their live passes instead of
// measuring each other. Without flock(1) the pass runs unlocked, with a note.
//
// `node scripts/test.mjs unit` or `live` runs one pass (npm run test:unit,
// test:live). The exit status is non-zero if any pass failed, after all ran.
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const turbo = join(root, "node_modules", ".bin", "turbo");
const args = process.argv.slice(2);
const only = args[0] === "unit" || args[0] === "live" ? args.shift() : null;
const LIVE_LOCK = join(tmpdir(), "scanlab-live-tests.lock");

const passes = [
  {
    key: "unit",
    name: "lint, typecheck and unit tests",
    args: ["run", "lint", "typecheck", "test", "--continue", "--concurrency=2"],
  },
  {
    key: "live",
    name: "live tests",
    args: ["run", "test:live", "--continue", "--concurrency=1"],
    locked: true,
  },
].filter((p) => only === null || p.key === only);

const hasFlock = spawnSync("flock", ["--version"], { stdio: "ignore" }).status === 0;

/** Runs turbo, under the machine-wide live lock when the pass asks for it. */
function runPass(pass) {
  const turboArgs = [...pass.args, ...args];
  if (!pass.locked) return spawnSync(turbo, turboArgs, { cwd: root, stdio: "inherit" });
  if (!hasFlock) {
    console.error("scanlab: flock(1) not found; the live pass runs without the machine-wide lock.");
    return spawnSync(turbo, turboArgs, { cwd: root, stdio: "inherit" });
  }
  const free = spawnSync("flock", ["--nonblock", LIVE_LOCK, "true"], { stdio: "ignore" }).status === 0;
  if (!free) console.error(`scanlab: another live pass holds ${LIVE_LOCK}; waiting for it to finish ...`);
  return spawnSync("flock", [LIVE_LOCK, turbo, ...turboArgs], { cwd: root, stdio: "inherit" });
}

const failed = [];
for (const pass of passes) {
  const r = runPass(pass);
  if (r.status !== 0) failed.push(`${pass.name} (exit ${r.status ?? r.signal})`);
}
if (failed.length > 0) {
  console.error(`\nscanlab: failed: ${failed.join("; ")}. Scroll up for the failing tasks.`);
  process.exit(1);
}
