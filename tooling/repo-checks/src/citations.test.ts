/**
 * The citation check on small fixtures: VitePress's slugs, the anchors of a
 * page, what counts as a citation, and each kind of problem, shown by
 * mutating a fixture that passes. The retired names are assembled from parts
 * (`doc("postgres")`, `SECTION`) so that this file itself contains none of
 * them and stays clean when the repository-wide check covers tooling/.
 */
import { describe, expect, it } from "vitest";
import {
  type CitationProblem,
  checkCitations,
  findPageCitations,
  findRetiredCitations,
  headingAnchors,
  headingText,
  slugify,
} from "./citations.js";

const doc = (name: string) => `${name}.md`;
const SECTION = "\u00a7";
const seed = (n: string) => `${"seed"} ${n}`;

describe("slugify (VitePress 1.6)", () => {
  it.each([
    ["Sync path up to 6.9", "sync-path-up-to-6-9"],
    ["T7: effective_io_concurrency on SATA SSDs", "t7-effective-io-concurrency-on-sata-ssds"],
    ["PostgreSQL's tests", "postgresql-s-tests"],
    ["Copying 8 kB from the page cache", "copying-8-kb-from-the-page-cache"],
    ["io_method and I/O workers", "io-method-and-i-o-workers"],
    ["  --Trim me--  ", "trim-me"],
    ["7200 rpm disks", "_7200-rpm-disks"],
    ["Résumé", "resume"],
    ["a ≤ b", "a-≤-b"],
    ["“Quoted” ‘words’", "quoted-words"],
  ])("%s -> %s", (heading, slug) => {
    expect(slugify(heading)).toBe(slug);
  });
});

describe("headingText: what markdown-it-anchor slugs", () => {
  it("keeps the text of code spans and links, drops link targets, images and HTML tags", () => {
    expect(
      headingText("The `ondemand_readahead()` [path](./x.md#y) ![logo](a.svg) <Badge text='new'/>"),
    ).toBe("The ondemand_readahead() path");
  });

  it("decodes entities and backslash escapes", () => {
    expect(headingText("A &amp; B \\# C")).toBe("A & B # C");
  });
});

describe("headingAnchors", () => {
  it("gives every heading an anchor, in order, and numbers repeats from 1", () => {
    expect(headingAnchors("# Page\n\n## Setup\n\ntext\n\n## Setup\n\n### Setup\n")).toEqual([
      "page",
      "setup",
      "setup-1",
      "setup-2",
    ]);
  });

  it("uses an explicit {#id}", () => {
    expect(headingAnchors("## A long heading {#short}\n\n## Other\n")).toEqual(["short", "other"]);
  });

  it("reads setext headings and skips fenced code and front matter", () => {
    const md =
      "---\ntitle: x\n---\n\nTitle\n=====\n\n```md\n## Not a heading\n```\n\nSub\n---\n\n~~~\n# no\n~~~\n";
    expect(headingAnchors(md)).toEqual(["title", "sub"]);
  });

  it("does not take a thematic break or a table rule for a heading", () => {
    expect(headingAnchors("Text\n\n---\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")).toEqual([]);
  });
});

describe("findRetiredCitations", () => {
  it("finds each retired document with its section numbers, once", () => {
    const text = [
      `// see ${doc("postgres")} 1.4 step 2a`,
      ` * (${doc("readahead")} ${SECTION}2.5, ${SECTION}2.6)`,
      ` * reference/${doc("devices")} section 2,`,
      ` * ${doc("targets")} T7 (b) and ${doc("DESIGN")}, "Conventions"`,
    ].join("\n");
    const found = findRetiredCitations(text, "x.ts");
    expect(found.map((p) => [p.line, p.kind])).toEqual([
      [1, "retired-document"],
      [2, "retired-document"],
      [3, "retired-document"],
      [4, "retired-document"],
      [4, "retired-document"],
    ]);
    expect(found[1]!.text).toBe(`${doc("readahead")} ${SECTION}2.5, ${SECTION}2.6`);
  });

  it("follows a document name onto the next comment line", () => {
    const found = findRetiredCitations(`/** figures from ${doc("devices")}\n * sections 1 to 4 */`);
    expect(found).toHaveLength(1);
    expect(found[0]!.text).toContain("sections 1");
  });

  it("reports a section sign without a document as bare", () => {
    const found = findRetiredCitations(`// the sync path (${SECTION}2.5); UFS (${SECTION} 3)`);
    expect(found.map((p) => [p.kind, p.text])).toEqual([
      ["bare-section", `${SECTION}2.5`],
      ["bare-section", `${SECTION} 3`],
    ]);
  });

  it("finds seed files, singular and plural", () => {
    const found = findRetiredCitations(
      `// ${seed("004")}'s table; seeds 001 and 002; the ${"seed"}-004 bitmap`,
    );
    expect(found.map((p) => p.kind)).toEqual(["seed", "seed", "seed"]);
  });

  it("leaves alone names that only contain a retired name, PRNG seeds and identifiers", () => {
    const text = [
      "<!--@include: ../generated/conformance-readahead.md-->",
      "const r = rng(seed 1); // seeds 0..999",
      `export const ${"seed"}004Table = 1;`,
      "apps/docs/src/reference/linux-readahead-window.md#sizing-functions",
    ].join("\n");
    expect(findRetiredCitations(text)).toEqual([]);
  });
});

describe("findPageCitations", () => {
  it("finds paths from the repository root anywhere, with or without an anchor", () => {
    const text =
      "// (apps/docs/src/reference/linux-readahead-window.md#sync-path-up-to-6-9, apps/docs/src/reference/experiments.md)";
    expect(findPageCitations(text, "packages/x/src/a.ts")).toEqual([
      {
        line: 1,
        text: "apps/docs/src/reference/linux-readahead-window.md#sync-path-up-to-6-9",
        page: "apps/docs/src/reference/linux-readahead-window.md",
        anchor: "sync-path-up-to-6-9",
      },
      {
        line: 1,
        text: "apps/docs/src/reference/experiments.md",
        page: "apps/docs/src/reference/experiments.md",
        anchor: null,
      },
    ]);
  });

  it("resolves the links of a docs page the way VitePress does", () => {
    const page = "apps/docs/src/reference/a.md";
    const text = [
      "[same page](#local) [sibling](./b.md#x) [no extension](b#y) [html](./b.html)",
      "[other folder](../guides/faithful.md) [site path](/reference/c#z) [index](./)",
      "[api](/api/index.html) [figure](/figures/t1.svg) [web](https://postgr.es/m/x@y) ![img](./b.md)",
      "```md",
      "[in code](./nowhere.md)",
      "```",
    ].join("\n");
    expect(findPageCitations(text, page).map((c) => [c.page, c.anchor])).toEqual([
      ["apps/docs/src/reference/a.md", "local"],
      ["apps/docs/src/reference/b.md", "x"],
      ["apps/docs/src/reference/b.md", "y"],
      ["apps/docs/src/reference/b.md", null],
      ["apps/docs/src/guides/faithful.md", null],
      ["apps/docs/src/reference/c.md", "z"],
      ["apps/docs/src/reference/index.md", null],
    ]);
  });

  it("in a README, checks only relative links that lead into the docs app", () => {
    const text = "[ref](../../apps/docs/src/reference/b.md#x) [sibling](./other.md#y) [site](/reference/b)";
    expect(findPageCitations(text, "packages/foo/README.md").map((c) => [c.page, c.anchor])).toEqual([
      ["apps/docs/src/reference/b.md", "x"],
    ]);
  });
});

/** A small repository: two reference pages and a source file citing them. */
const PAGES: Record<string, string> = {
  "apps/docs/src/reference/linux.md": "# Linux readahead\n\n## Sizing functions\n\n## Sync path up to 6.9\n",
  "apps/docs/src/reference/hardware.md": "# Devices\n\n## Intel SSD 320\n",
};
const SOURCE = [
  "/**",
  " * Window sizes: apps/docs/src/reference/linux.md#sizing-functions, and the",
  " * sync path, apps/docs/src/reference/linux.md#sync-path-up-to-6-9.",
  " */",
  "export const RA_PAGES = 32;",
].join("\n");
const GUIDE = "# Guide\n\nSee [sizing](../reference/linux.md#sizing-functions) and [above](#guide).\n";

function check(source: string, guide = GUIDE): CitationProblem[] {
  return checkCitations(
    [
      { path: "packages/readahead/src/linux.ts", text: source },
      { path: "apps/docs/src/guides/g.md", text: guide },
    ],
    (p) => PAGES[p] ?? (p === "apps/docs/src/guides/g.md" ? guide : undefined),
  );
}

describe("checkCitations: a fixture that passes, and the mutations it catches", () => {
  it("passes as written", () => {
    expect(check(SOURCE)).toEqual([]);
  });

  it("catches a wrong anchor", () => {
    const problems = check(SOURCE.replace("#sizing-functions", "#sizing-function"));
    expect(problems.map((p) => [p.file, p.line, p.kind])).toEqual([
      ["packages/readahead/src/linux.ts", 2, "dead-anchor"],
    ]);
    expect(problems[0]!.message).toContain("#sizing-function,");
  });

  it("catches a dead page", () => {
    const problems = check(
      SOURCE.replace("reference/linux.md#sizing", "reference/linux-readahead-window.md#sizing"),
    );
    expect(problems.map((p) => [p.line, p.kind])).toEqual([[2, "dead-page"]]);
  });

  it("catches a bare section number", () => {
    const problems = check(SOURCE.replace("the\n * sync path,", `the\n * sync path (${SECTION}3),`));
    expect(problems.map((p) => [p.line, p.kind, p.text])).toEqual([[3, "bare-section", `${SECTION}3`]]);
  });

  it("catches a retired document, the design note and a seed file", () => {
    const mutated = `${SOURCE}\n// ${doc("readahead")} 2.4; ${doc("DESIGN")}; ${seed("001")}\n`;
    expect(check(mutated).map((p) => [p.line, p.kind])).toEqual([
      [6, "retired-document"],
      [6, "retired-document"],
      [6, "seed"],
    ]);
  });

  it("catches a wrong anchor in a guide's link and in a link to its own heading", () => {
    const guide = GUIDE.replace("linux.md#sizing-functions", "linux.md#sizing").replace(
      "(#guide)",
      "(#guides)",
    );
    expect(check(SOURCE, guide).map((p) => [p.file, p.kind, p.text])).toEqual([
      ["apps/docs/src/guides/g.md", "dead-anchor", "[sizing](../reference/linux.md#sizing)"],
      ["apps/docs/src/guides/g.md", "dead-anchor", "[above](#guides)"],
    ]);
  });

  it("catches an anchor that a renamed heading no longer has", () => {
    const before = PAGES["apps/docs/src/reference/linux.md"]!;
    PAGES["apps/docs/src/reference/linux.md"] = before.replace("## Sizing functions", "## Window sizes");
    try {
      expect(check(SOURCE).map((p) => [p.file, p.kind])).toEqual([
        ["packages/readahead/src/linux.ts", "dead-anchor"],
        ["apps/docs/src/guides/g.md", "dead-anchor"],
      ]);
    } finally {
      PAGES["apps/docs/src/reference/linux.md"] = before;
    }
  });
});
