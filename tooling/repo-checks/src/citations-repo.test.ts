/**
 * The repository's citations resolve: nothing names a document that does not
 * ship, and every citation of a docs page names a page and a heading that
 * exist (see citations.ts for the rules).
 *
 * Scope: the reference pages and the guides of the docs app. The rest of the
 * repository still cites the retired documents; widen SCOPES as it is
 * rewritten (the whole repository is `["packages", "apps", "tooling",
 * "README.md"]`).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "@scanlab/release-checks/workspace";
import { describe, expect, it } from "vitest";
import { checkCitations, checkRepositoryCitations } from "./citations.js";

const SCOPES = ["apps/docs/src/reference", "apps/docs/src/guides"];

describe("citations resolve inside the repository", () => {
  it(`in ${SCOPES.join(", ")}`, () => {
    const problems = checkRepositoryCitations(repoRoot, SCOPES).map(
      (p) => `${p.file}:${p.line}: ${p.message}`,
    );
    expect(problems).toEqual([]);
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
