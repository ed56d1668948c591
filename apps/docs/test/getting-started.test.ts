/**
 * The getting-started guide's commands work as written: every `scanlab
 * simulate`, `sweep` and `advise` line of its shell blocks runs through the
 * built CLI and exits 0 (with `--json`, so the output is checked to be one
 * JSON document). The lines that read a real file (`scan`, `calibrate`) and
 * the install lines are covered by the CLI's own tests and the release checks.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const guide = readFileSync(
  fileURLToPath(new URL("../src/guides/getting-started.md", import.meta.url)),
  "utf8",
);
const cliDir = dirname(createRequire(import.meta.url).resolve("scanlab/package.json"));
const bin = join(cliDir, "dist", "bin.js");

/** Each `scanlab ...` command of the guide's sh blocks, continuation lines joined, split into words. */
function commands(): string[][] {
  const blocks = [...guide.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.replace(/\\\n\s*/g, ""));
  return blocks
    .flatMap((b) => b.split("\n"))
    .map((line) => line.trim())
    .filter((line) => line.startsWith("scanlab "))
    .map((line) => line.split(/\s+/).slice(1));
}

describe("getting started: the simulating commands run as written", () => {
  const simulating = commands().filter((words) => ["simulate", "sweep", "advise"].includes(words[0]!));

  it("the guide has simulate, sweep and advise commands", () => {
    expect(new Set(simulating.map((w) => w[0]))).toEqual(new Set(["simulate", "sweep", "advise"]));
  });

  for (const words of simulating.filter((w) => !w.some((a) => a.endsWith(".json") && !a.startsWith("--")))) {
    // Simulations of a few GB take seconds on a loaded 2-core machine: a generous timeout catches hangs only.
    it(`scanlab ${words.join(" ")}`, { timeout: 300_000 }, () => {
      const run = spawnSync(process.execPath, [bin, ...words, "--json"], { encoding: "utf8" });
      expect(run.stderr).not.toMatch(/^scanlab: /m);
      expect(run.status).toBe(0);
      expect(() => JSON.parse(run.stdout)).not.toThrow();
    });
  }
});
