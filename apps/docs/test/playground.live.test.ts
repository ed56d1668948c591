/**
 * The playground in a real browser: headless Chromium (Debian's `chromium`)
 * driven by playwright-core loads the built site from a local static server
 * (scripts/serve.ts), runs the default scenario, changes a parameter, runs
 * again, and checks that
 * - the charts were drawn and changed with the parameter;
 * - the scenario the page ran is the built-in one with that parameter
 *   written in (built here in Node with the same playground model);
 * - every number the page shows equals, exactly, what @scanlab/simulator
 *   computes in Node for the same scenario and seed;
 * - settings advice on the page's scenario (@scanlab/advisor's `advise`, run
 *   in the page's advice worker) shows, row by row, what `advise` gives in
 *   Node for the same scenario and simulated size.
 *
 * Without Chromium the test is skipped with the reason, except under
 * SCANLAB_REQUIRE_LIVE=1 (CI), where a missing browser is a failure.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { advise } from "@scanlab/advisor";
import { simulate } from "@scanlab/simulator";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildHash } from "../scripts/build-hash.js";
import { type RunningServer, serve } from "../scripts/serve.js";
import { parseSimSize, SIM_SIZE_OPTION, shownAdvice } from "../src/lib/advice-model.js";
import { applyParams, builtinScenarios, paramsOf, shownMetrics } from "../src/lib/playground-model.js";

const CHROMIUM = "/usr/bin/chromium";
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const dist = fileURLToPath(new URL("../dist", import.meta.url));
const requireLive = process.env.SCANLAB_REQUIRE_LIVE === "1";
const missing = !existsSync(CHROMIUM) ? `${CHROMIUM} is not installed (apt-get install chromium)` : undefined;
if (missing && !requireLive) console.warn(`skipping the browser test: ${missing}`);

describe.skipIf(missing !== undefined && !requireLive)("the playground in headless Chromium", () => {
  let server: RunningServer;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (missing) throw new Error(`SCANLAB_REQUIRE_LIVE=1 but ${missing}`);
    expect(existsSync(join(dist, "playground.html")), "the site is built (turbo runs the build first)").toBe(
      true,
    );
    // The page's simulator is the one bundled at build time; Node's is today's dist/.
    const info = JSON.parse(readFileSync(join(dist, "build-info.json"), "utf8")) as { packagesHash: string };
    expect(info.packagesHash, "the site was built from other builds of the packages: rebuild it").toBe(
      buildHash(),
    );
    server = await serve(dist, 0);
    profile = mkdtempSync(join(tmpdir(), "scanlab-chromium-"));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
    });
    page = await context.newPage();
    page.on("pageerror", (e) => pageErrors.push(e.message));
    page.on("console", (m) => {
      if (m.type() === "error") pageErrors.push(`${m.text()} (${m.location().url})`);
    });
    page.on("response", (r) => {
      if (r.status() >= 400) pageErrors.push(`${r.status()} ${r.url()}`);
    });
  });

  afterAll(async () => {
    await context?.close();
    await server?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  /** Presses Run and waits until the page has finished run number `n`. */
  async function runAndWait(n: number): Promise<void> {
    await page.getByTestId("run").click();
    await page.waitForSelector(`[data-testid=status][data-runs="${n}"]`, { timeout: 90_000 });
    const status = await page.getByTestId("status").getAttribute("data-status");
    expect(status, (await page.getByTestId("status").textContent()) ?? "").toBe("done");
  }

  async function shown(): Promise<Record<string, string>> {
    return page.$$eval("[data-testid=metrics] tr[data-metric]", (rows) =>
      Object.fromEntries(rows.map((r) => [r.getAttribute("data-metric")!, r.getAttribute("data-value")!])),
    );
  }

  it("runs the default scenario, then a changed one, with Node's numbers", async () => {
    await page.goto(`${server.url}/playground.html`);
    await page.waitForSelector("[data-testid=run]", { timeout: 30_000 });
    const selected = await page.getByTestId("scenario").inputValue();
    const builtin = builtinScenarios().find((s) => s.id === selected);
    expect(builtin, `${selected} is a built-in scenario`).toBeDefined();

    await runAndWait(1);
    const chartBefore = await page.getByTestId("chart-participants").innerHTML();
    const throughputBefore = await page.getByTestId("chart-throughput").innerHTML();
    expect(chartBefore).toContain("<svg");
    expect(throughputBefore).toContain("<path");

    // Change a parameter: three workers instead of the scenario's own count.
    const before = paramsOf(JSON.parse((await page.getByTestId("scenario-json").textContent()) ?? "{}"));
    const workers = before.workers === 3 ? 2 : 3;
    await page.getByTestId("workers").fill(String(workers));
    await runAndWait(2);

    const ranText = (await page.getByTestId("scenario-json").textContent()) ?? "";
    const ran = JSON.parse(ranText);
    expect(ran).toEqual(applyParams(builtin!.scenario, { ...before, workers }));

    const chartAfter = await page.getByTestId("chart-participants").innerHTML();
    expect(chartAfter).not.toBe(chartBefore);
    // One leader and `workers` workers: that many groups of bars.
    expect(chartAfter.match(/>worker \d+</g)?.length).toBe(workers);
    expect(await page.getByTestId("chart-throughput").innerHTML()).not.toBe(throughputBefore);

    const inNode = Object.fromEntries(shownMetrics(simulate(ran), ran).map((m) => [m.key, String(m.value)]));
    expect(await shown()).toEqual(inNode);
    expect(pageErrors).toEqual([]);
  });

  it("advises on the playground's scenario with Node's rows", async () => {
    // Runs after the test above, on the page it left: the default scenario with its workers changed.
    const selected = await page.getByTestId("scenario").inputValue();
    const builtin = builtinScenarios().find((s) => s.id === selected)!;
    const params = paramsOf(JSON.parse((await page.getByTestId("scenario-json").textContent()) ?? "{}"));
    // 64 MB: the smallest simulated size, so the dozen simulations take seconds.
    await page.getByTestId("simSize").fill("64MB");
    await page.getByTestId("advise").click();
    await page.waitForSelector('[data-testid=advice-status][data-runs="1"]', { timeout: 300_000 });
    const status = page.getByTestId("advice-status");
    expect(await status.getAttribute("data-status"), (await status.textContent()) ?? "").toBe("done");

    const advised = JSON.parse((await page.getByTestId("advised-json").textContent()) ?? "{}");
    expect(advised).toEqual(applyParams(builtin.scenario, params));
    const inNode = shownAdvice(
      await advise(advised, { simBytes: parseSimSize("64MB"), simSizeOption: SIM_SIZE_OPTION }),
    );
    expect(inNode.length).toBeGreaterThan(0);
    const rows = await page.$$eval("[data-testid=advice-rows] tbody tr", (trs) =>
      trs.map((tr) => ({
        key: tr.getAttribute("data-key"),
        gain: tr.getAttribute("data-gain"),
        why: tr.getAttribute("title"),
        cells: [...tr.querySelectorAll("td")].map((td) => td.textContent?.trim()),
      })),
    );
    expect(rows).toEqual(
      inNode.map((r) => ({
        key: r.key,
        gain: r.gain,
        why: r.why,
        cells: [r.setting, r.defaultValue, r.recommended, r.gainText, r.timesText],
      })),
    );
    expect(pageErrors).toEqual([]);
  });
});
