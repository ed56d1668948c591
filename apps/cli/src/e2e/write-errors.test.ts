/**
 * Output that cannot be written: every command that prints, with stdout on
 * /dev/full (no space left), exits 1 with one sentence on stderr and no
 * stack trace; a closed pipe (`| head`) stays quiet. (`scan` and `calibrate`
 * read the device: write-errors.live.test.ts.)
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FIXTURES, runBin } from "./run-bin.js";

const SENTENCE = "scanlab: cannot write to standard output: no space left on the device (ENOSPC).\n";

const commands: [string, string[]][] = [
  ["scanlab --help", ["--help"]],
  ["scanlab --version", ["--version"]],
  ["simulate --json", ["simulate", "--table-size", "64MB", "--json"]],
  ["simulate", ["simulate", "--table-size", "64MB"]],
  ["sweep --json", ["sweep", "--table-size", "64MB", "--vary", "workers=0,1", "--json"]],
  ["sweep", ["sweep", "--table-size", "64MB", "--vary", "workers=0,1"]],
  ["reproduce --json", ["reproduce", "T4", "--rows", "int-atomics", "--no-calibration", "--json"]],
  ["reproduce", ["reproduce", "T4", "--rows", "int-atomics", "--no-calibration"]],
  [
    "advise --json",
    ["advise", "--device", "hdd-7200rpm", "--os", "linux-5.4", "--table-size", "64MB", "--json"],
  ],
  ["profiles list", ["profiles", "list"]],
  ["profiles list --json", ["profiles", "list", "--json"]],
  ["profiles show", ["profiles", "show", "hdd-7200rpm"]],
  ["trace import --json", ["trace", "import", join(FIXTURES, "blkparse-hand.txt"), "--json"]],
  ["trace import", ["trace", "import", join(FIXTURES, "blkparse-hand.txt")]],
];

describe.runIf(existsSync("/dev/full"))("stdout on a full disk", () => {
  it.each(commands)("%s: exit 1, one sentence", async (_name, args) => {
    const r = await runBin(args, { stdoutFile: "/dev/full" });
    // The sentence once, last, and no stack trace (reproduce tells its wall time on stderr before it).
    expect(r.stderr.endsWith(SENTENCE)).toBe(true);
    expect(r.stderr.split("cannot write").length).toBe(2);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(1);
  });

  it("stderr on a full disk: a usage error still exits with a failure, and no crash", async () => {
    const r = await runBin(["simulate", "--no-such-flag"], { stderrFile: "/dev/full" });
    expect(r.code).toBe(1);
    expect(r.signal).toBeNull();
  });
});
