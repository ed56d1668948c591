/**
 * The repository's citations resolve: nothing names a document that does not
 * ship, and every citation of a docs page names a page and a heading that
 * exist (see citations.ts for the rules).
 *
 * Scope: the whole repository that ships or documents it: every package,
 * app and tool (sources, tests, READMEs, docs pages, scripts), the root
 * README. Not searched (see EXCLUDED): CHANGELOG.md files, which are history
 * and quote what was written at the time; test fixtures, which are data
 * (recorded outputs and traces); the docs app's generated fragments (build
 * output); and the checker's own rule tests, whose
 * fixture strings name retired documents on purpose. Dependencies and build
 * output are skipped by the walk itself.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "@scanlab/release-checks/workspace";
import { describe, expect, it } from "vitest";
import { type CitationProblem, checkCitations, checkRepositoryCitations } from "./citations.js";

const SCOPES = ["packages", "apps", "tooling", "scripts", "README.md"];

/** Files whose citations are not checked, by path from the repository root. */
const EXCLUDED: readonly RegExp[] = [
  /(^|\/)CHANGELOG\.md$/,
  /(^|\/)fixtures\//,
  // Build output of the docs app (gitignored): fragments written from the simulator's and the CLI's
  // output, whose own sources are checked, and whose anchors live in the pages that include them.
  /^apps\/docs\/src\/generated\//,
  /^tooling\/repo-checks\/src\/citations\.test\.ts$/,
];

const checked = (problems: CitationProblem[]) =>
  problems.filter((p) => !EXCLUDED.some((re) => re.test(p.file)));

describe("citations resolve inside the repository", () => {
  it(`in ${SCOPES.join(", ")}`, () => {
    const problems = checked(checkRepositoryCitations(repoRoot, SCOPES)).map(
      (p) => `${p.file}:${p.line}: ${p.message}`,
    );
    expect(problems).toEqual([]);
  });

  it("the scope covers sources, tests and READMEs of every package, and the exclusions are only what they say", () => {
    // A citation problem planted in memory in one file of each kind is reported, and not excluded.
    const read = (p: string) => {
      try {
        return readFileSync(join(repoRoot, p), "utf8");
      } catch {
        return undefined;
      }
    };
    const planted = [
      "packages/syncscan/src/constants.ts",
      "packages/block-allocator/src/parallel-scan.test.ts",
      "packages/readahead/README.md",
      "apps/cli/src/program.ts",
      "tooling/repo-checks/src/citations.ts",
    ].map((path) => ({ path, text: `${read(path)}\n// see ${"postgres"}.md \u00a73\n` }));
    const found = checked(checkCitations(planted, read)).filter((p) => p.kind === "retired-document");
    expect(found.map((p) => p.file).sort()).toEqual(planted.map((f) => f.path).sort());
    expect(EXCLUDED.some((re) => re.test("packages/readahead/CHANGELOG.md"))).toBe(true);
    expect(EXCLUDED.some((re) => re.test("apps/cli/test/fixtures/golden/reproduce-T4-q2.json"))).toBe(true);
    expect(EXCLUDED.some((re) => re.test("packages/readahead/src/linux.ts"))).toBe(false);
  });

  it("the scope holds the reference pages, and they cite one another", () => {
    const pages = readdirSync(join(repoRoot, "apps/docs/src/reference")).filter((f) => f.endsWith(".md"));
    expect(pages).toContain("experiments.md");
    expect(pages.length).toBeGreaterThan(10);
    const links = pages
      .map((f) => readFileSync(join(repoRoot, "apps/docs/src/reference", f), "utf8"))
      .join("\n")
      .match(/\]\(\.\/[\w-]+\.md#[\w-]+\)/g);
    expect(links?.length ?? 0).toBeGreaterThan(50);
  });

  it("would catch a broken citation in the real pages", () => {
    // The real files of the scope, with one citation broken in memory each time.
    const file = "apps/docs/src/reference/version-map.md";
    const text = readFileSync(join(repoRoot, file), "utf8");
    const read = (p: string) => {
      try {
        return readFileSync(join(repoRoot, p), "utf8");
      } catch {
        return undefined;
      }
    };
    expect(checkCitations([{ path: file, text }], read)).toEqual([]);
    const mutations: [string, string, string][] = [
      ["#chunked-allocation", "#chunked-allocations", "dead-anchor"],
      ["./buffer-ring.md", "./bulk-ring.md", "dead-page"],
      ["under a spinlock", `under a spinlock (\u00a73)`, "bare-section"],
    ];
    for (const [from, to, kind] of mutations) {
      expect(text, from).toContain(from);
      const problems = checkCitations([{ path: file, text: text.replace(from, to) }], read);
      expect(
        problems.map((p) => p.kind),
        `${from} -> ${to}`,
      ).toContain(kind);
    }
  });
});
