/**
 * The simulator engine's seam rule: inside `packages/simulator/src/engine`,
 * only `seam/` imports a `@scanlab/*` package.
 *
 * The problem: the engine composes the model packages (block allocation,
 * syncscan, readahead, devices, bitmap prefetch, read streams, shared
 * buffers) and the shared leaf. Once
 * one participant imports a model class directly, the engine changes with
 * that package's API, cannot be driven by scripted models in tests, and the
 * next import "just this once" follows. Nothing in TypeScript forbids it.
 *
 * The insight: the rule is about module specifiers, and those are plain
 * strings in the source. So the check reads every file of the engine outside
 * `seam/` (its tests too: a test that imports a model package reaches past
 * the ports just the same) and reports every specifier that names a
 * `@scanlab/` package, in any form a module can be brought in: `import ...
 * from`, `export ... from`, a bare `import "..."`, `import(...)` (also in a
 * type position), `require(...)`, and a test's `vi.mock(...)`.
 *
 * Only code counts: a match on a comment line (a doc comment's `@example`
 * shows how a caller imports the package) is skipped, as in shared-leaf.ts.
 */
import type { SourceFile } from "./shared-leaf.js";

/** The engine's folder, from the repository root. */
export const ENGINE_DIR = "packages/simulator/src/engine/";
/** The one folder of the engine allowed to import `@scanlab/*` packages. */
export const SEAM_DIR = `${ENGINE_DIR}seam/`;

/** An import of a `@scanlab/*` package by an engine file outside the seam. */
export interface SeamBreach {
  readonly path: string;
  /** 1-based line of the specifier. */
  readonly line: number;
  /** The package specifier imported. */
  readonly specifier: string;
}

const SPECIFIER =
  /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*|\bvi\.mock\s*\(\s*)(["'`])(@scanlab\/[^"'`]+)\1/g;

/** Whether a repository path is an engine file the rule applies to (under the engine, not in the seam). */
export function outsideSeam(path: string): boolean {
  const p = path.split("\\").join("/");
  return p.startsWith(ENGINE_DIR) && !p.startsWith(SEAM_DIR);
}

/** Every import of a `@scanlab/*` package by an engine file outside `seam/` among `files`. */
export function findSeamBreaches(files: readonly SourceFile[]): SeamBreach[] {
  const breaches: SeamBreach[] = [];
  for (const file of files) {
    if (!outsideSeam(file.path)) continue;
    for (const m of file.text.matchAll(SPECIFIER)) {
      const lineStart = file.text.lastIndexOf("\n", m.index) + 1;
      if (/^\s*(?:\*|\/\/|\/\*)/.test(file.text.slice(lineStart, m.index))) continue;
      const line = file.text.slice(0, m.index).split("\n").length;
      breaches.push({ path: file.path, line, specifier: m[2]! });
    }
  }
  return breaches.sort((a, b) => (a.path === b.path ? a.line - b.line : a.path < b.path ? -1 : 1));
}
