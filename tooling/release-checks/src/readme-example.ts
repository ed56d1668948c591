/**
 * A package README's runnable example, as a user who installed the package
 * alone would run it.
 *
 * The example is the README's first fenced block tagged `ts` (or
 * `typescript`). It is checked twice in the user's project:
 *
 * 1. Type-checked by the TypeScript compiler against the *installed*
 *    package's `.d.ts` files, with `moduleResolution: "NodeNext"` (Node's own
 *    rules for `exports`), `strict`, and Node's typings. That is what an
 *    editor shows the user who pastes the example.
 * 2. Run by plain `node` after the types are stripped by
 *    `ts.transpileModule` (no tsx, no loader hooks): that is the JavaScript a
 *    user gets, importing the package's published `dist/` through its
 *    `exports` map. The file is written as `.mjs` so top-level `await` works.
 *
 * Choosing plain `node` over `tsx` keeps the run honest: tsx resolves
 * TypeScript-only paths and conditions that a published package must not
 * depend on.
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import type * as TS from "typescript";
import { repoRoot } from "./workspace.js";

// TypeScript is a devDependency of the monorepo root; load it from there.
const ts = createRequire(join(repoRoot, "package.json"))("typescript") as typeof TS;

/** The first fenced ```ts block of a markdown text, or undefined when there is none. */
export function firstTsExample(markdown: string): string | undefined {
  const fence = /^(```+|~~~+)[ \t]*(ts|typescript)\b[^\n]*\n([\s\S]*?)^\1[ \t]*$/m;
  const m = fence.exec(markdown);
  return m?.[3];
}

/** The example as ESM JavaScript: types removed, nothing else changed. */
export function stripTypes(source: string, fileName = "example.ts"): string {
  const out = ts.transpileModule(source, {
    fileName,
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      verbatimModuleSyntax: true,
      sourceMap: false,
    },
    reportDiagnostics: true,
  });
  const errors = (out.diagnostics ?? []).filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (errors.length > 0) throw new Error(`example does not parse: ${formatDiagnostics(errors)}`);
  return out.outputText;
}

/**
 * Type errors of `file` (inside a project whose node_modules holds the
 * installed packages), or [] when it compiles. Node's typings come
 * from the monorepo root, since the user's project would install
 * `@types/node` itself.
 */
export function typeErrors(file: string): string[] {
  const options: TS.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2023.d.ts"],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    types: ["node"],
    typeRoots: [join(repoRoot, "node_modules", "@types")],
  };
  const host = ts.createCompilerHost(options);
  const program = ts.createProgram({ rootNames: [file], options, host });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  return diagnostics.length === 0 ? [] : [formatDiagnostics(diagnostics)];
}

function formatDiagnostics(diagnostics: readonly TS.Diagnostic[]): string {
  return ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => repoRoot,
    getNewLine: () => "\n",
  });
}
