/**
 * The static server (scripts/serve.ts) that previews the site and that the browser test loads
 * it from: VitePress pages by clean URL, folders by index.html, a 404 for
 * what is not there, and nothing outside the served folder.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, serve } from "../scripts/serve.js";

let site: RunningServer;
const root = mkdtempSync(join(tmpdir(), "scanlab-docs-serve-"));

beforeAll(async () => {
  mkdirSync(join(root, "site", "guides"), { recursive: true });
  writeFileSync(join(root, "site", "index.html"), "<h1>home</h1>");
  writeFileSync(join(root, "site", "playground.html"), "<h1>playground</h1>");
  writeFileSync(join(root, "site", "guides", "index.html"), "<h1>guides</h1>");
  writeFileSync(join(root, "site", "app.js"), "export {}");
  writeFileSync(join(root, "secret.txt"), "outside");
  site = await serve(join(root, "site"), 0);
});
afterAll(async () => {
  await site.close();
  rmSync(root, { recursive: true, force: true });
});

describe("serve.mjs", () => {
  it("serves files with their content type", async () => {
    const r = await fetch(`${site.url}/app.js`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^text\/javascript/);
  });

  it("maps /playground to playground.html and /guides/ to guides/index.html", async () => {
    expect(await (await fetch(`${site.url}/playground`)).text()).toBe("<h1>playground</h1>");
    expect(await (await fetch(`${site.url}/guides/`)).text()).toBe("<h1>guides</h1>");
    expect(await (await fetch(`${site.url}/`)).text()).toBe("<h1>home</h1>");
  });

  it("answers 404 for a missing page and for paths that climb out of the root", async () => {
    expect((await fetch(`${site.url}/nope.html`)).status).toBe(404);
    expect((await fetch(`${site.url}/..%2fsecret.txt`)).status).toBe(404);
    expect((await fetch(`${site.url}/%2e%2e/secret.txt`)).status).toBe(404);
  });
});
