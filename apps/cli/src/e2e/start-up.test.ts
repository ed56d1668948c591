/**
 * Start-up loads what the command needs and nothing more: `scanlab --version`,
 * `scanlab --help` and `scanlab help` (exit 0) resolve no model package (and no zod), while
 * `scanlab simulate --help` and `scanlab profiles list` load the packages
 * their output comes from. (Start-up time is measured in `npm run bench`.)
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, PKG } from "./run-bin.js";

const dir = mkdtempSync(join(tmpdir(), "scanlab-cli-start-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const HOOK = join(PKG, "test", "support", "import-log.mjs");

/** The bare specifiers the CLI resolves while running `args`. */
function importsOf(args: string[]): Set<string> {
  const log = join(dir, `${args.join("_").replace(/\W/g, "_")}.log`);
  const r = spawnSync(process.execPath, ["--import", HOOK, BIN, ...args], {
    env: { ...process.env, SCANLAB_IMPORT_LOG: log, NO_COLOR: "1" },
    encoding: "utf8",
  });
  expect(r.status, r.stderr).toBe(0);
  return new Set(readFileSync(log, "utf8").split("\n").filter(Boolean));
}

const MODELS =
  /^(@scanlab\/(simulator|device-profiles|block-allocator|readahead|bitmap-prefetch|syncscan|experiments|lab|file-scan)|zod)(\/|$)/;

describe("start-up", () => {
  it.each([["--version"], ["--help"], ["help"]])("scanlab %s loads no model package", (arg) => {
    const loaded = [...importsOf([arg])];
    // --version alone is answered before commander loads; help needs commander.
    expect(loaded.includes("commander")).toBe(arg !== "--version");
    expect(loaded.filter((s) => MODELS.test(s))).toEqual([]);
  });

  it("scanlab simulate --help loads the simulator for its flags' limits", () => {
    expect(importsOf(["simulate", "--help"]).has("@scanlab/simulator")).toBe(true);
  });

  it("scanlab profiles list loads the device profiles and not the simulator", () => {
    const loaded = importsOf(["profiles", "list"]);
    expect(loaded.has("@scanlab/device-profiles")).toBe(true);
    expect(loaded.has("@scanlab/simulator")).toBe(false);
  });
});
