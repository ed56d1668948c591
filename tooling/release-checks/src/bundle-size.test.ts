/**
 * What a browser pays for each package: its main entry bundled the way a web
 * app's bundler would (esbuild, browser platform, minified, every export
 * kept), with its dependencies, against a budget in bytes (KB = 10^3).
 *
 * The budget is 150 KB for every browser-safe package. The scenario and
 * profile schemas are built with zod's tree-shakable `zod/mini` API, so zod
 * costs about 27 KB of that instead of 440 KB. Two packages carry a larger
 * budget and say why: the simulator is every model at once (allocator,
 * syncscan, readahead, bitmap prefetch, read streams, buffers, devices), and
 * the advisor runs the simulator. Their budget is the measured size rounded up,
 * so growth fails the check.
 */
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { NODE_ONLY_PACKAGES, publishedPackages, repoRoot } from "./workspace.js";

const DEFAULT_BUDGET_BYTES = 150e3;
const BUDGET_BYTES: Record<string, number> = {
  // Every model of the project in one entry (with the plain-file reader with advice, the bitmap index
  // scan, the I/O worker pool on the CPU share and the fitted controller read-ahead): scanlab's own code
  // is about 198 KB of it.
  "@scanlab/simulator": 235.6e3,
  // The simulator plus the advisor's sweeps.
  "@scanlab/advisor": 242.1e3,
};

/** Bytes of the minified browser bundle of everything a package's main entry exports. */
async function bundleBytes(name: string): Promise<number> {
  const result = await build({
    stdin: { contents: `export * from ${JSON.stringify(name)};`, resolveDir: repoRoot, loader: "js" },
    bundle: true,
    minify: true,
    write: false,
    platform: "browser",
    format: "esm",
    logLevel: "silent",
  });
  return result.outputFiles[0]!.contents.length;
}

describe("browser bundle budgets", () => {
  const browserSafe = publishedPackages().filter((p) => !NODE_ONLY_PACKAGES.has(p.manifest.name));

  it("covers every browser-safe package, and budgets only packages that exist", () => {
    const names = new Set(browserSafe.map((p) => p.manifest.name));
    expect(names.size).toBeGreaterThan(5);
    expect(Object.keys(BUDGET_BYTES).filter((n) => !names.has(n))).toEqual([]);
  });

  for (const pkg of browserSafe) {
    const name = pkg.manifest.name;
    const budget = BUDGET_BYTES[name] ?? DEFAULT_BUDGET_BYTES;
    // Bundling the simulator takes a few seconds on a loaded 2-core machine.
    it(`${name}: main entry bundles to at most ${budget / 1e3} KB minified`, {
      timeout: 120_000,
    }, async () => {
      const bytes = await bundleBytes(name);
      console.log(`${name}: ${(bytes / 1e3).toFixed(1)} KB minified (budget ${budget / 1e3} KB)`);
      expect(bytes).toBeLessThanOrEqual(budget);
    });
  }
});
