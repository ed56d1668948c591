/**
 * The API reference is complete: a user who runs `npm install @scanlab/x`
 * and opens x's page finds every export documented.
 *
 * TypeDoc runs over the workspace with the root typedoc.json (the same
 * configuration `npm run docs` renders), with its validation on:
 * - notDocumented: every export, every member of an exported class or
 *   interface, and every property of an exported object type has a doc
 *   comment (TypeDoc only checks `packagesRequiringDocumentation`, so that
 *   list must name every published package);
 * - notExported: no type reachable from the public API is left out of the
 *   docs (a user could not find or name it);
 * - invalidLink: every `{@link}` resolves.
 * Each failure names the package and the symbol, so its owner can fix it.
 *
 * On top of TypeDoc's rules, each entry point (`.` and `./node`) carries at
 * least one `@example`; exported functions and classes without one are
 * listed in the test output (apps/docs/src/reference/design.md asks for examples "on the main ones",
 * which a test cannot decide).
 */
import { relative } from "node:path";
import type { JSONOutput } from "typedoc";
import { beforeAll, describe, expect, it } from "vitest";
import { runTypeDoc, type TypeDocRun } from "./typedoc-project.js";
import { publishedPackages, repoRoot } from "./workspace.js";

const packages = publishedPackages();
let run: TypeDocRun;

beforeAll(async () => {
  run = await runTypeDoc();
}, 300_000);

/**
 * Messages that are about `name`'s own code: they start with a path in its
 * folder, or name one of its symbols (`@scanlab/x.Symbol`, `@scanlab/x/src/...`).
 */
function messagesOf(name: string): string[] {
  const pkg = packages.find((p) => p.manifest.name === name)!;
  const folder = `${relative(repoRoot, pkg.dir)}/`;
  const escaped = name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  const about = new RegExp(`(^|\\s)${escaped}[./]`);
  return run.messages
    .filter((m) => m.text.startsWith(folder) || about.test(m.text))
    .map((m) => `${m.level}: ${m.text}`);
}

type Reflection = JSONOutput.DeclarationReflection;
const KIND_MODULE = 2;
const KIND_FUNCTION = 64;
const KIND_CLASS = 128;

function hasExample(r: Reflection): boolean {
  const comments = [r.comment, ...(r.signatures ?? []).map((s) => s.comment)];
  return comments.some((c) => (c?.blockTags ?? []).some((t) => t.tag === "@example"));
}

/** The entry-point modules of one package in the merged project (one when the package has a single entry). */
function entryModules(name: string): Reflection[] {
  const pkg = run.json?.children?.find((c) => c.name === name);
  if (!pkg) return [];
  const children = pkg.children ?? [];
  const isMultiEntry = children.length > 0 && children.every((c) => c.kind === KIND_MODULE);
  return isMultiEntry ? children : [pkg];
}

describe("TypeDoc over every published package", () => {
  it("converts the whole workspace without errors", () => {
    expect(run.messages.filter((m) => m.level === "error").map((m) => m.text)).toEqual([]);
    expect(run.json?.children?.map((c) => c.name).sort()).toEqual(
      packages.map((p) => p.manifest.name).sort(),
    );
  });

  it("requires documentation of every published package (typedoc.json packagesRequiringDocumentation)", () => {
    expect([...run.packagesRequiringDocumentation].sort()).toEqual(
      packages.map((p) => p.manifest.name).sort(),
    );
  });

  it("reports nothing it cannot attribute to a package (e.g. a broken option)", () => {
    const names = packages.map((p) => p.manifest.name);
    const orphan = run.messages
      .filter((m) => !names.some((n) => messagesOf(n).includes(`${m.level}: ${m.text}`)))
      .map((m) => m.text);
    expect(orphan).toEqual([]);
  });

  for (const pkg of packages) {
    const name = pkg.manifest.name;
    describe(name, () => {
      it("has no TypeDoc validation warning (undocumented export or member, unexported type, broken link)", () => {
        expect(messagesOf(name)).toEqual([]);
      });

      it("shows at least one @example on each entry point", () => {
        const modules = entryModules(name);
        expect(modules.length, `${name} is in the API reference`).toBeGreaterThan(0);
        const withoutExamples: string[] = [];
        for (const mod of modules) {
          const exported = mod.children ?? [];
          if (!exported.some(hasExample))
            withoutExamples.push(mod === modules[0] && modules.length === 1 ? "." : mod.name);
          const missing = exported
            .filter((c) => (c.kind === KIND_FUNCTION || c.kind === KIND_CLASS) && !hasExample(c))
            .filter((c) => !/Error$/.test(c.name))
            .map((c) => c.name);
          if (missing.length > 0) {
            console.log(`${name} (${mod.name}): functions/classes without @example: ${missing.join(", ")}`);
          }
        }
        expect(withoutExamples, `${name}: entry points with no @example at all`).toEqual([]);
      });
    });
  }
});
