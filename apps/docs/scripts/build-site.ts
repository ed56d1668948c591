/**
 * Builds the whole site into apps/docs/dist, offline:
 *
 * 1. figures: runs the simulator (and reads the conformance fixtures of the
 *    model packages) and writes the guides' SVG figures and number tables
 *    into src/generated/ (never committed: they are rebuilt every time);
 * 2. VitePress renders the guides and the playground (src/) into dist/;
 * 3. TypeDoc renders the API reference of every published package into
 *    dist/api/, with the root typedoc.json (packages mode, validation on).
 *
 * VitePress empties its output folder, so TypeDoc runs after it.
 */
import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildHash } from "./build-hash.js";

const app = fileURLToPath(new URL("..", import.meta.url));
const repoRoot = join(app, "..", "..");
const require = createRequire(import.meta.url);

function step(title: string, fn: () => void): void {
  const start = Date.now();
  process.stdout.write(`docs: ${title}\n`);
  fn();
  process.stdout.write(`docs: ${title} done in ${((Date.now() - start) / 1000).toFixed(1)} s\n`);
}

function run(command: string, args: string[], cwd: string): void {
  const r = spawnSync(command, args, { cwd, stdio: "inherit", env: process.env });
  if (r.status !== 0) {
    process.stderr.write(`docs: ${[command, ...args].join(" ")} failed (exit ${r.status ?? r.signal})\n`);
    process.exit(r.status ?? 1);
  }
}

const packagesHash = buildHash();

const figures = join(app, "scripts", "figures.ts");
if (existsSync(figures)) {
  const tsx = join(dirname(require.resolve("tsx/package.json")), "dist", "cli.mjs");
  step("figures from the simulator", () => run(process.execPath, [tsx, figures], app));
}

step("guides and playground (VitePress)", () => {
  const vitepress = join(dirname(require.resolve("vitepress/package.json")), "bin", "vitepress.js");
  run(process.execPath, [vitepress, "build", "src"], app);
});

step("API reference (TypeDoc)", () => {
  const typedoc = join(dirname(require.resolve("typedoc/package.json")), "bin", "typedoc");
  run(process.execPath, [typedoc, "--options", "typedoc.json", "--logLevel", "Warn"], repoRoot);
});

// Which package builds the site (and the playground's bundled simulator) was made from.
writeFileSync(join(app, "dist", "build-info.json"), `${JSON.stringify({ packagesHash }, null, 2)}\n`);
if (buildHash() !== packagesHash) {
  process.stderr.write("docs: warning: the packages were rebuilt while the site was being built\n");
}
process.stdout.write(`docs: site in ${join(app, "dist")} (preview: npm run preview -w @scanlab/docs)\n`);
