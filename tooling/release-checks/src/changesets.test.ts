/**
 * Independent versioning with changesets, exercised for real: the files git
 * tracks are copied to a scratch folder (no node_modules; the root's
 * `changeset` binary is run there), the pending changesets are removed, one
 * new changeset is written, and `changeset version` runs. Then every
 * package.json and CHANGELOG.md of the copy is compared with the original.
 *
 * What changesets does (its assemble-release-plan, with this repo's
 * `.changeset/config.json`):
 * - the named package is bumped as asked, with a changelog entry;
 * - a package that depends on it (`dependencies`) is bumped `patch`, with an
 *   "Updated dependencies" entry, when the new version leaves the range it
 *   declares (`^0.1.0` is left by 0.2.0, not by 0.1.1): for 0.x packages a
 *   `minor` changeset is the breaking one;
 * - `updateInternalDependencies: "patch"`: when a dependent is released
 *   anyway, its range on a dependency that got only a patch is raised too;
 * - the docs app is a site, listed in `ignore`: never versioned, and a
 *   changeset that names it stays pending.
 * Nothing else moves: that is what "publishing independently" means.
 */
import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Manifest, repoRoot, trackedFiles } from "./workspace.js";

const DOCS_APP = "@scanlab/docs";
const changesetBin = join(repoRoot, "node_modules", ".bin", "changeset");
const scratchRoot = mkdtempSync(join(tmpdir(), "scanlab-changesets-"));
let base = "";

/** The copy's packages before versioning, by name, with folders relative to the root. */
let before = new Map<string, { rel: string; manifest: Manifest }>();
let published: [string, { rel: string; manifest: Manifest }][] = [];

/** Every package.json under tooling/, packages/ and apps/ of a copy of the repo. */
function readPackages(root: string): Map<string, { rel: string; manifest: Manifest }> {
  const out = new Map<string, { rel: string; manifest: Manifest }>();
  for (const group of ["tooling", "packages", "apps"]) {
    if (!existsSync(join(root, group))) continue;
    for (const d of readdirSync(join(root, group))) {
      const file = join(root, group, d, "package.json");
      if (!existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, "utf8")) as Manifest;
      out.set(manifest.name, { rel: join(group, d), manifest });
    }
  }
  return out;
}

/** The next version, for the bump types used here (x.y.z, no prerelease). */
function inc(version: string, type: "patch" | "minor"): string {
  const [major, minor, patch] = version.split(".").map(Number) as [number, number, number];
  return type === "minor" ? `${major}.${minor + 1}.0` : `${major}.${minor}.${patch + 1}`;
}

beforeAll(() => {
  base = join(scratchRoot, "base");
  for (const file of trackedFiles()) {
    const from = join(repoRoot, file);
    if (!existsSync(from)) continue; // deleted in the working tree, not yet committed
    mkdirSync(dirname(join(base, file)), { recursive: true });
    cpSync(from, join(base, file));
  }
  // What git tracks is what a release sees; work not yet committed is not part of it.
  before = readPackages(base);
  published = [...before.entries()].filter(([, p]) => !p.manifest.private && !p.rel.startsWith("tooling"));
  // Start from no pending changeset, so only the test's own one applies.
  for (const f of readdirSync(join(base, ".changeset"))) {
    if (f.endsWith(".md") && f !== "README.md") rmSync(join(base, ".changeset", f));
  }
});
afterAll(() => rmSync(scratchRoot, { recursive: true, force: true }));

interface Outcome {
  dir: string;
  /** name -> version after `changeset version`. */
  versions: Map<string, string>;
  manifests: Map<string, Manifest>;
  /** name -> CHANGELOG.md text (only for packages that have one afterwards). */
  changelogs: Map<string, string>;
  pendingChangesets: string[];
}

/** Copies the base, writes one changeset, runs `changeset version`, reads the result. */
function version(name: string, bumps: Record<string, "patch" | "minor">): Outcome {
  const dir = join(scratchRoot, name);
  cpSync(base, dir, { recursive: true });
  const front = Object.entries(bumps)
    .map(([pkg, type]) => `"${pkg}": ${type}`)
    .join("\n");
  writeFileSync(join(dir, ".changeset", `${name}.md`), `---\n${front}\n---\n\nRelease check: ${name}.\n`);
  try {
    execFileSync(changesetBin, ["version"], { cwd: dir, stdio: "pipe", timeout: 60_000 });
  } catch (e) {
    const err = e as { stdout?: Buffer; stderr?: Buffer; message: string };
    throw new Error(
      `changeset version failed: ${err.stderr?.toString() || err.stdout?.toString() || err.message}`,
    );
  }
  const versions = new Map<string, string>();
  const manifests = new Map<string, Manifest>();
  const changelogs = new Map<string, string>();
  for (const [pkgName, p] of before) {
    const file = join(dir, p.rel, "package.json");
    if (!existsSync(file)) continue;
    const m = JSON.parse(readFileSync(file, "utf8")) as Manifest;
    versions.set(pkgName, m.version);
    manifests.set(pkgName, m);
    const log = join(dir, p.rel, "CHANGELOG.md");
    const original = join(base, p.rel, "CHANGELOG.md");
    const text = existsSync(log) ? readFileSync(log, "utf8") : undefined;
    const was = existsSync(original) ? readFileSync(original, "utf8") : undefined;
    if (text !== undefined && text !== was) changelogs.set(pkgName, text);
  }
  const pendingChangesets = readdirSync(join(dir, ".changeset")).filter(
    (f) => f.endsWith(".md") && f !== "README.md",
  );
  return { dir, versions, manifests, changelogs, pendingChangesets };
}

/** Names whose version changed. */
function bumped(o: Outcome): string[] {
  return [...o.versions]
    .filter(([n, v]) => before.get(n)?.manifest.version !== v)
    .map(([n]) => n)
    .sort();
}

/** Published packages that list `name` in `dependencies`. */
function directDependents(name: string): string[] {
  return published
    .filter(([, p]) => Object.hasOwn(p.manifest.dependencies ?? {}, name))
    .map(([n]) => n)
    .sort();
}

/** The newest section of a changelog: its version heading and its text. */
function newestEntry(changelog: string): { version: string; body: string } {
  const m = /^## (\S+)\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(changelog);
  return { version: m?.[1] ?? "", body: m?.[2] ?? "" };
}

describe("changeset version on a scratch copy of the repo", () => {
  it("finds the packages it is about (the docs app and a leaf package with dependents)", () => {
    expect(before.has(DOCS_APP), `${DOCS_APP} exists`).toBe(true);
    expect(before.get(DOCS_APP)?.manifest.private).toBe(true);
    expect(directDependents("@scanlab/syncscan").length).toBeGreaterThan(0);
    expect(existsSync(changesetBin), "the root's @changesets/cli is installed").toBe(true);
  });

  it("a minor (breaking, 0.x) change of syncscan bumps syncscan and patches exactly its direct dependents", () => {
    const target = "@scanlab/syncscan";
    const from = before.get(target)!.manifest.version;
    const o = version("syncscan-minor", { [target]: "minor" });
    const dependents = directDependents(target);
    expect(bumped(o)).toEqual([target, ...dependents].sort());
    expect(o.versions.get(target)).toBe(inc(from, "minor"));

    const own = newestEntry(o.changelogs.get(target) ?? "");
    expect(own.version).toBe(inc(from, "minor"));
    expect(own.body).toMatch(/### Minor Changes[\s\S]*Release check: syncscan-minor\./);

    for (const d of dependents) {
      const was = before.get(d)!.manifest.version;
      expect(o.versions.get(d), d).toBe(inc(was, "patch"));
      expect(o.manifests.get(d)?.dependencies?.[target], `${d} now asks for the new ${target}`).toBe(
        `^${inc(from, "minor")}`,
      );
      const entry = newestEntry(o.changelogs.get(d) ?? "");
      expect(entry.version, `${d} CHANGELOG`).toBe(inc(was, "patch"));
      expect(entry.body).toMatch(/### Patch Changes[\s\S]*Updated dependencies/);
      expect(entry.body).toContain(`${target}@${inc(from, "minor")}`);
    }
    // Everything else, the docs app and the private tooling included, is untouched and gets no changelog.
    expect([...o.changelogs.keys()].sort()).toEqual([target, ...dependents].sort());
    expect(o.versions.get(DOCS_APP)).toBe(before.get(DOCS_APP)!.manifest.version);
  });

  it("a patch of device-profiles stays inside its dependents' ranges: only device-profiles moves", () => {
    const target = "@scanlab/device-profiles";
    const from = before.get(target)!.manifest.version;
    expect(directDependents(target).length, "device-profiles has dependents").toBeGreaterThan(0);
    const o = version("device-profiles-patch", { [target]: "patch" });
    expect(bumped(o)).toEqual([target]);
    expect(o.versions.get(target)).toBe(inc(from, "patch"));
    expect(newestEntry(o.changelogs.get(target) ?? "").body).toMatch(
      /### Patch Changes[\s\S]*device-profiles-patch/,
    );
    for (const d of directDependents(target)) {
      expect(o.manifests.get(d)?.dependencies?.[target]).toBe(before.get(d)!.manifest.dependencies?.[target]);
    }
    expect([...o.changelogs.keys()]).toEqual([target]);
  });

  it("updateInternalDependencies: patch raises a released dependent's range to the patched dependency", () => {
    const dependency = "@scanlab/device-profiles";
    const dependent = directDependents(dependency)[0]!;
    const o = version("both-patch", { [dependency]: "patch", [dependent]: "patch" });
    expect(bumped(o)).toEqual([dependency, dependent].sort());
    const patched = inc(before.get(dependency)!.manifest.version, "patch");
    expect(o.manifests.get(dependent)?.dependencies?.[dependency]).toBe(`^${patched}`);
    expect(newestEntry(o.changelogs.get(dependent) ?? "").body).toContain(`${dependency}@${patched}`);
  });

  it("the docs app is never versioned: a changeset that names it changes nothing and stays pending", () => {
    const o = version("docs-only", { [DOCS_APP]: "minor" });
    expect(bumped(o)).toEqual([]);
    expect(o.changelogs.size).toBe(0);
    expect(o.pendingChangesets).toEqual(["docs-only.md"]);
  });
});
