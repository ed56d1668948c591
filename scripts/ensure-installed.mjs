#!/usr/bin/env node
// Makes the README's two commands work on a fresh clone: if the workspace's
// dependencies are missing or older than package-lock.json, run `npm ci` once.
// Everything else (building packages before tests) is turbo's job.
import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const lock = join(root, "package-lock.json");
const installed = join(root, "node_modules", ".package-lock.json");

const stale = !existsSync(installed) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(installed).mtimeMs);
if (stale) {
  console.error("scanlab: installing dependencies (npm ci) ...");
  const r = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: root, stdio: "inherit" });
  if (r.status !== 0) {
    console.error("scanlab: `npm ci` failed; see the output above.");
    process.exit(r.status ?? 1);
  }
}
