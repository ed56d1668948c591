/**
 * The shared-leaf rule over the repository: no package, app or tool other
 * than `@scanlab/core` defines an error class extending Error, a seeded
 * generator, the block size or a size/duration parser (see shared-leaf.ts).
 * Scanned: the TypeScript and JavaScript under packages/, apps/ and tooling/,
 * without build output; skipped: packages/core itself, the rule's own files,
 * and `*.oracle.test.ts`
 * files, which keep a replaced copy verbatim to prove core gives the same
 * numbers.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { repoRoot } from "@scanlab/release-checks/workspace";
import { describe, expect, it } from "vitest";
import { findLeafCopies, type SourceFile } from "./shared-leaf.js";

const SKIP_DIRS = new Set(["node_modules", "dist", "docs-dist", "coverage", "fixtures"]);

function walk(dir: string, out: SourceFile[]): void {
  for (const name of readdirSync(dir)) {
    if (SKIP_DIRS.has(name) || name.startsWith(".")) continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else if (
      /\.(?:ts|tsx|mts|js|mjs)$/.test(name) &&
      !name.endsWith(".oracle.test.ts") &&
      !name.endsWith(".d.ts")
    )
      out.push({ path: relative(repoRoot, full), text: readFileSync(full, "utf8") });
  }
}

describe("@scanlab/core is the only home of its definitions", () => {
  const files: SourceFile[] = [];
  for (const top of ["packages", "apps", "tooling"]) walk(join(repoRoot, top), files);
  // The rule's own sources spell out the shapes they look for.
  const RULE_FILES = new Set(
    ["shared-leaf.ts", "shared-leaf.test.ts"].map((n) => join("tooling", "repo-checks", "src", n)),
  );
  const outside = files.filter(
    (f) => !f.path.startsWith(join("packages", "core")) && !RULE_FILES.has(f.path),
  );

  it("scans the repository's sources (core and the others)", () => {
    expect(outside.length).toBeGreaterThan(100);
    expect(files.some((f) => f.path === join("packages", "core", "src", "seeded-random.ts"))).toBe(true);
  });

  it("finds the definitions in core itself (the rule sees what it looks for)", () => {
    const inCore = findLeafCopies(files.filter((f) => f.path.startsWith(join("packages", "core", "src"))));
    expect(new Set(inCore.map((c) => c.kind))).toEqual(
      new Set(["error-class", "prng", "block-size", "size-parser"]),
    );
  });

  it("finds no copy anywhere else", () => {
    const copies = findLeafCopies(outside).map((c) => `${c.path}:${c.line} ${c.kind}: ${c.match}`);
    expect(copies).toEqual([]);
  });
});
