/**
 * The citation check (@scanlab/repo-checks/citations) computes the anchors of
 * a page the way VitePress does, so a citation it accepts is a link that
 * works on the site. Held here against VitePress's own Markdown renderer, for
 * every page of the site and for a page of awkward headings.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { headingAnchors } from "@scanlab/repo-checks/citations";
import { createMarkdownRenderer } from "vitepress";
import { describe, expect, it } from "vitest";

const src = fileURLToPath(new URL("../src", import.meta.url));

/** Every Markdown page of the site (generated fragments are not pages). */
function pages(dir = src): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith(".") || entry.name === "generated" || entry.name === "public") continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...pages(full));
    else if (entry.name.endsWith(".md")) out.push(full);
  }
  return out.sort();
}

async function vitepressAnchors(markdown: string, file: string): Promise<string[]> {
  const md = await createMarkdownRenderer(src);
  const html = md.render(markdown, { path: file, relativePath: relative(src, file), cleanUrls: false });
  return [...html.matchAll(/<h[1-6][^>]*\sid="([^"]*)"/g)].map((m) => decodeEntities(m[1]!));
}

function decodeEntities(s: string): string {
  return s
    .replace(/&amp;/g, "&")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">");
}

const AWKWARD = [
  "# Awkward headings",
  "## Sync path up to 6.9",
  "## The `ondemand_readahead()` path",
  "## [Linked](./x.md) heading with **bold** and _emphasis_",
  "## effective_io_concurrency & maintenance_io_concurrency",
  "## 7200 rpm disks",
  "## Résumé ≤ 6.9",
  "## Setup",
  "### Setup",
  "## Setup",
  "## A long heading {#short-id}",
  '## PostgreSQL\'s "quoted" words',
  "Setext heading\n--------------",
  "```md",
  "## Not a heading",
  "```",
].join("\n\n");

describe("anchors: the citation check agrees with VitePress", () => {
  const files = pages();

  it("finds the site's pages", () => {
    expect(files.map((f) => relative(src, f))).toContain(join("reference", "experiments.md"));
  });

  for (const file of files) {
    it(relative(src, file), async () => {
      const markdown = readFileSync(file, "utf8");
      expect(headingAnchors(markdown)).toEqual(await vitepressAnchors(markdown, file));
    });
  }

  it("on a page of awkward headings", async () => {
    const anchors = await vitepressAnchors(AWKWARD, join(src, "awkward.md"));
    expect(anchors).toHaveLength(13);
    expect(headingAnchors(AWKWARD)).toEqual(anchors);
  });
});
