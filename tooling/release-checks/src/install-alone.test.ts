/**
 * "npm install individual packages": for every published package, a fresh
 * project outside the monorepo installs that one tarball (as `npm publish`
 * would upload it) and nothing else of ours except the tarballs of the
 * `@scanlab/*` packages it depends on, since nothing is on the registry yet.
 * Those are wired through `overrides`, so the project's own package.json
 * names only the package under test, like a user's would; third-party
 * dependencies (zod, ...) come from the registry.
 *
 * Then the README's first ```ts example must type-check against the
 * installed `.d.ts` files and run under plain `node` (see
 * readme-example.ts for why not tsx). A package with a `bin` must also
 * answer `--help` through `npx` from the installed copy.
 */
import { execFile } from "node:child_process";
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, inject, it } from "vitest";
import { firstTsExample, stripTypes, typeErrors } from "./readme-example.js";
import { publishedPackages, runtimeClosure } from "./workspace.js";

const run = promisify(execFile);
const tarballs = inject("tarballs");
const packages = publishedPackages();
const byName = new Map(packages.map((p) => [p.manifest.name, p]));
const scratch = mkdtempSync(join(tmpdir(), "scanlab-install-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A fresh project with `name` installed from its tarball; returns its folder. */
async function installAlone(name: string): Promise<string> {
  const dir = mkdtempSync(join(scratch, `${name.replace(/[@/]/g, "_")}-`));
  const file = (n: string) => {
    const t = tarballs[n];
    if (t === undefined) throw new Error(`no tarball for ${n}`);
    return `file:${t}`;
  };
  const deps = runtimeClosure(name, byName).filter((n) => n !== name);
  const manifest = {
    name: "scanlab-user",
    private: true,
    type: "module",
    dependencies: { [name]: file(name) },
    overrides: Object.fromEntries(deps.map((d) => [d, file(d)])),
  };
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  await run("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts=false", "--loglevel=error"], {
    cwd: dir,
    timeout: 240_000,
  });
  return dir;
}

/**
 * What an install may weigh (node_modules, apparent size, MB = 10^6 bytes):
 * the CLI draws its report charts as plain SVG with @scanlab/charts, and
 * PNG comes from an optional peer dependency a user adds only to get PNGs.
 */
const INSTALL_BUDGET_BYTES: Record<string, number> = { scanlab: 15e6 };

/** The apparent size of every file below `dir` (symbolic links counted as links). */
function treeBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? treeBytes(path) : lstatSync(path).size;
  }
  return total;
}

describe("each published package installs alone and its README example runs", () => {
  for (const pkg of packages) {
    const name = pkg.manifest.name;
    it(name, async () => {
      const readme = readFileSync(join(pkg.dir, "README.md"), "utf8");
      const example = firstTsExample(readme);
      const dir = await installAlone(name);

      // Only the package and its own dependencies were installed.
      const { stdout: tree } = await run("npm", ["ls", "--all", "--json"], { cwd: dir });
      const installed = Object.keys(JSON.parse(tree).dependencies ?? {});
      expect(installed).toEqual([name]);
      const budget = INSTALL_BUDGET_BYTES[name];
      if (budget !== undefined) {
        const bytes = treeBytes(join(dir, "node_modules"));
        console.log(
          `${name}: installed ${(bytes / 1e6).toFixed(1)} MB (budget ${(budget / 1e6).toFixed(0)} MB)`,
        );
        expect(bytes, `${name} installed, in bytes`).toBeLessThan(budget);
      }

      if (pkg.manifest.bin !== undefined) {
        const bins = typeof pkg.manifest.bin === "string" ? [name] : Object.keys(pkg.manifest.bin);
        for (const bin of bins) {
          const { stdout } = await run("npx", ["--no-install", bin, "--help"], { cwd: dir, timeout: 60_000 });
          expect(stdout.length, `${bin} --help prints usage`).toBeGreaterThan(0);
        }
      }
      if (name === "scanlab") {
        // The queue backend is a package of its own: without it, --queue is one sentence naming it.
        const worker = await run(
          "npx",
          ["--no-install", "scanlab", "worker", "--queue", "redis://127.0.0.1:1/0"],
          {
            cwd: dir,
            timeout: 60_000,
          },
        ).then(
          () => ({ code: 0, stderr: "" }),
          (e: { code: number; stderr: string }) => e,
        );
        expect(worker.code).toBe(2);
        expect(worker.stderr).toMatch(/^scanlab worker: .*npm install @scanlab\/queue.*\n$/);
      }
      if (example === undefined) {
        // A CLI may document itself with shell examples only; a library may not.
        expect(pkg.manifest.bin, `${name}: README has no fenced \`\`\`ts example`).toBeDefined();
        return;
      }

      const tsFile = join(dir, "example.ts");
      writeFileSync(tsFile, example);
      expect(typeErrors(tsFile), "README example type-checks against the installed .d.ts").toEqual([]);

      writeFileSync(join(dir, "example.mjs"), stripTypes(example));
      const result = await run("node", ["example.mjs"], { cwd: dir, timeout: 120_000 }).catch(
        (e: { stderr?: string; message: string }) => {
          throw new Error(`README example failed under node: ${e.stderr || e.message}`);
        },
      );
      expect(result.stdout.length, "the example prints what it shows").toBeGreaterThan(0);
    });
  }
});
