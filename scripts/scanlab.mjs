#!/usr/bin/env node
// `npm run scanlab -- ARGS` in a clone of the repository: installs the
// workspace if needed, builds the CLI and what it depends on (turbo's cache
// makes this instant when nothing changed), then runs `scanlab ARGS`. The
// build's output goes to stderr, so `--json` on stdout stays clean; Ctrl-C
// reaches scanlab, which keeps what it finished, and its exit code is ours.
import { spawn, spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const step = (cmd, args) => {
  const r = spawnSync(cmd, args, { cwd: root, stdio: ["ignore", 2, 2] });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
step(process.execPath, [join(root, "scripts", "ensure-installed.mjs")]);
step("npx", ["turbo", "run", "build", "--filter=scanlab", "--output-logs=errors-only"]);

const child = spawn(process.execPath, [join(root, "apps", "cli", "dist", "bin.js"), ...process.argv.slice(2)], {
  stdio: "inherit",
});
// The terminal sends Ctrl-C to scanlab too; wait for it to finish instead of dying first.
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => {
  process.exitCode = code ?? 128 + ({ SIGINT: 2, SIGTERM: 15 }[signal] ?? 1);
});
