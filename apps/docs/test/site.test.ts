/**
 * The built site (apps/docs/dist, built by `npm run build -w @scanlab/docs`,
 * which turbo runs before this test) is complete: every guide is there with
 * its generated figures and tables, nothing a guide includes went missing,
 * every image it references exists, and the API reference has a page for
 * every published package.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PG_VERSIONS, PG_VERSIONS_WITH_SERVER } from "@scanlab/simulator";
import { describe, expect, it } from "vitest";

const dist = fileURLToPath(new URL("../dist", import.meta.url));
const src = fileURLToPath(new URL("../src", import.meta.url));
const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));
const GUIDES = [
  "parallel-scans-readahead",
  "synchronized-scans",
  "effective-io-concurrency",
  "measure-your-disk",
  "faithful",
];

function published(): string[] {
  const names: string[] = [];
  for (const group of ["packages", "apps"]) {
    for (const d of readdirSync(join(repoRoot, group))) {
      const file = join(repoRoot, group, d, "package.json");
      if (!existsSync(file)) continue;
      const m = JSON.parse(readFileSync(file, "utf8")) as { name: string; private?: boolean };
      if (!m.private) names.push(m.name);
    }
  }
  return names.sort();
}

describe("the built site", () => {
  it("has the home page, the playground and the guides", () => {
    for (const page of [
      "index.html",
      "playground.html",
      "guides/index.html",
      "guides/getting-started.html",
      ...GUIDES.map((g) => `guides/${g}.html`),
    ]) {
      expect(existsSync(join(dist, page)), page).toBe(true);
    }
  });

  for (const guide of GUIDES) {
    it(`${guide}: every include was generated and every figure exists`, () => {
      const html = readFileSync(join(dist, "guides", `${guide}.html`), "utf8");
      expect(html).not.toContain("@include");
      const images = [...html.matchAll(/<img[^>]+src="([^"]+)"/g)].map((m) => m[1]!);
      for (const src of images) {
        expect(src.startsWith("/"), `${src} is a site path`).toBe(true);
        expect(existsSync(join(dist, decodeURIComponent(src))), `${guide} shows ${src}`).toBe(true);
      }
      const apiLinks = [...html.matchAll(/href="(\/api\/[^"#]+)/g)].map((m) => m[1]!);
      for (const href of apiLinks) expect(existsSync(join(dist, href)), `${guide} links ${href}`).toBe(true);
      if (guide !== "measure-your-disk") expect(images.length, `${guide} has figures`).toBeGreaterThan(0);
      // Generated tables: published beside simulated (or the CLI's own output for the measuring guide).
      expect(html).toMatch(
        guide === "measure-your-disk" ? /scanlab advise --device/ : /sim \/ pub|kernel avg KiB/,
      );
    });
  }

  it("measure-your-disk: the lab's section has its generated help and the replay command", () => {
    const html = readFileSync(join(dist, "guides", "measure-your-disk.html"), "utf8");
    expect(html).not.toContain("@include");
    const text = html.replace(/<[^>]+>/g, "");
    expect(text).toContain("$ scanlab lab --help");
    expect(text).toContain("--replay");
    expect(text).toMatch(/scanlab lab --replay lab-full\.json --profile other-disk\.json/);
  });

  it("sweeps-across-machines: the page is built with the worker's generated help and the commands", () => {
    const html = readFileSync(join(dist, "guides", "sweeps-across-machines.html"), "utf8");
    expect(html).not.toContain("@include");
    // Code is highlighted token by token: read the text without its tags.
    const text = html.replace(/<[^>]+>/g, "");
    expect(text).toContain("$ scanlab worker --help");
    expect(text).toMatch(/scanlab sweep --table-size[^$]*--queue/);
    expect(text).toMatch(/scanlab worker --queue/);
  });

  it("faithful: the conformance matrix has a column for every version with a server, the mapping a row for every version --pg takes", () => {
    const html = readFileSync(join(dist, "guides", "faithful.html"), "utf8");
    const matrix = html.slice(html.indexOf('id="the-postgresql-conformance-matrix"'));
    const firstTable = matrix.slice(0, matrix.indexOf("</table>"));
    for (const v of PG_VERSIONS_WITH_SERVER)
      expect(firstTable, `matrix column PG${v}`).toMatch(new RegExp(`<th[^>]*>PG${v}</th>`));
    // a matched/total cell per row and server-backed version, e.g. "3/3"
    expect(firstTable.match(/<td[^>]*>\d+\/\d+<\/td>/g)?.length ?? 0).toBeGreaterThanOrEqual(
      PG_VERSIONS_WITH_SERVER.length,
    );
    const mapping = html.slice(html.indexOf('id="which-model-runs-for-each-postgresql-version"'));
    const mappingTable = mapping.slice(0, mapping.indexOf("</table>"));
    for (const v of PG_VERSIONS)
      expect(mappingTable, `mapping row ${v}`).toMatch(new RegExp(`<tr><td>${v.replace(".", "\\.")}</td>`));
    expect(html).toContain("io_uring");
    // every row lists the wrong models its cases reject, with the versions that reject them
    const canFail = html.slice(html.indexOf('id="every-cell-can-fail"'));
    const canFailTable = canFail.slice(0, canFail.indexOf("</table>"));
    expect(canFailTable.match(/<tr><td>/g)?.length ?? 0).toBeGreaterThanOrEqual(6);
    expect(canFailTable).toMatch(/PG18<\/td>/);
  });

  it("has a page for every reference page, reachable from the reference overview", () => {
    const sources = readdirSync(join(src, "reference")).filter((f) => f.endsWith(".md"));
    expect(sources.length).toBeGreaterThan(0);
    const overview = readFileSync(join(dist, "reference", "index.html"), "utf8");
    for (const source of sources) {
      const page = source.replace(/\.md$/, ".html");
      expect(existsSync(join(dist, "reference", page)), `reference/${page}`).toBe(true);
      if (source !== "index.md")
        expect(overview, `the overview links ${page}`).toContain(`href="/reference/${page}`);
    }
  });

  it("has an API page for every published package, with TypeDoc's search", () => {
    expect(existsSync(join(dist, "api", "index.html")), "api/index.html").toBe(true);
    const modules = readdirSync(join(dist, "api", "modules"));
    for (const name of published()) {
      const file = `${name.replace(/^@/, "_").replace(/\//g, "_")}.html`;
      expect(modules, name).toContain(file);
    }
  });
});
