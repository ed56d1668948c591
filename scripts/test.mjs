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
// The exit status is non-zero if either pass failed, after both have run.
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const turbo = join(root, "node_modules", ".bin", "turbo");
const extra = process.argv.slice(2);

const passes = [
  { name: "lint, typecheck and unit tests", args: ["run", "lint", "typecheck", "test", "--continue", "--concurrency=2"] },
  { name: "live tests", args: ["run", "test:live", "--continue", "--concurrency=1"] },
];

const failed = [];
for (const pass of passes) {
  const r = spawnSync(turbo, [...pass.args, ...extra], { cwd: root, stdio: "inherit" });
  if (r.status !== 0) failed.push(`${pass.name} (exit ${r.status ?? r.signal})`);
}
if (failed.length > 0) {
  console.error(`\nscanlab: failed: ${failed.join("; ")}. Scroll up for the failing tasks.`);
  process.exit(1);
}
