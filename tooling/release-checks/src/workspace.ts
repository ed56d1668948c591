/**
 * The workspace as the release checks (and repo-checks, through the
 * `./workspace` export) see it: which packages are published
 * (every `packages/*` and `apps/*` package that is not `"private"`), where
 * they live, and which of our own packages each one needs at run time.
 *
 * Everything here is read from the package.json files on disk, so a new
 * package is checked the moment it exists, without editing this list.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Published packages that run only in Node, so the browser checks skip them:
 * file-scan and host read files with Node's fs and worker threads, lab runs
 * PostgreSQL servers, queue talks to Redis over TCP, and scanlab is the CLI.
 */
export const NODE_ONLY_PACKAGES: ReadonlySet<string> = new Set([
  "@scanlab/file-scan",
  "@scanlab/host",
  "@scanlab/lab",
  "@scanlab/queue",
  "scanlab",
]);

/** The monorepo root (this file is tooling/release-checks/src/workspace.ts). */
export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** The parts of a package.json the checks read. */
export interface Manifest {
  name: string;
  version: string;
  license?: string;
  homepage?: string;
  bugs?: { url?: string };
  repository?: { type?: string; url?: string; directory?: string };
  private?: boolean;
  publishConfig?: { access?: string; provenance?: boolean };
  type?: string;
  files?: string[];
  bin?: string | Record<string, string>;
  exports?: Record<string, unknown>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** One workspace package: its folder and its manifest. */
export interface WorkspacePackage {
  dir: string;
  manifest: Manifest;
}

function readManifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
}

/** Every workspace package under `tooling/`, `packages/` and `apps/`. */
export function allWorkspacePackages(): WorkspacePackage[] {
  const out: WorkspacePackage[] = [];
  for (const group of ["tooling", "packages", "apps"]) {
    const base = join(repoRoot, group);
    if (!existsSync(base)) continue;
    for (const d of readdirSync(base, { withFileTypes: true })) {
      const dir = join(base, d.name);
      if (d.isDirectory() && existsSync(join(dir, "package.json")))
        out.push({ dir, manifest: readManifest(dir) });
    }
  }
  return out.sort((a, b) => a.manifest.name.localeCompare(b.manifest.name));
}

/** The packages that go to npm: `packages/*` and `apps/*` that are not private. */
export function publishedPackages(): WorkspacePackage[] {
  return allWorkspacePackages().filter(
    (p) => !p.manifest.private && !p.dir.startsWith(join(repoRoot, "tooling")),
  );
}

/** Names of our own packages that `pkg` lists in `dependencies` (what `npm install` pulls in). */
export function internalRuntimeDeps(pkg: WorkspacePackage, names: ReadonlySet<string>): string[] {
  return Object.keys(pkg.manifest.dependencies ?? {}).filter((d) => names.has(d));
}

/** `pkg` and every package of ours it needs at run time, transitively (dependencies only). */
export function runtimeClosure(name: string, byName: ReadonlyMap<string, WorkspacePackage>): string[] {
  const names = new Set(byName.keys());
  const seen = new Set<string>();
  const stack = [name];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (seen.has(n)) continue;
    seen.add(n);
    const pkg = byName.get(n);
    if (pkg) stack.push(...internalRuntimeDeps(pkg, names));
  }
  return [...seen].sort();
}

/** The files git tracks (as they are in the working tree), relative to the repo root. */
export function trackedFiles(): string[] {
  return execFileSync("git", ["ls-files", "-z"], { cwd: repoRoot, encoding: "utf8", maxBuffer: 64 << 20 })
    .split("\0")
    .filter((f) => f.length > 0);
}
