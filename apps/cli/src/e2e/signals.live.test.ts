/**
 * SIGINT and SIGTERM stop `scan` and `calibrate` cleanly (live: they read the
 * real device, and calibrate runs fio and reads /proc/diskstats): exit 130 or
 * 143, what was finished printed, nothing left beside the user's file or in
 * the temporary directory, and no process they started still running, fio
 * included, although the signal goes to the command's own process only.
 * And with stdout on /dev/full they exit 1 with one sentence.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { descendants, runBin } from "./run-bin.js";
import { stopWhenBusy } from "./signal-harness.js";

// The user's directory holds the data file only; the work module and its marker live elsewhere.
const base = existsSync("/var/tmp") ? "/var/tmp" : tmpdir();
const userDir = mkdtempSync(join(base, "scanlab-sig-user-"));
const helperDir = mkdtempSync(join(base, "scanlab-sig-helper-"));
afterAll(() => {
  rmSync(userDir, { recursive: true, force: true });
  rmSync(helperDir, { recursive: true, force: true });
});
const data = join(userDir, "data.bin");
writeFileSync(data, Buffer.alloc(32 * 1024 * 1024, 7));
const userFiles = () => readdirSync(userDir).sort();

const signals = [
  ["SIGINT", 130],
  ["SIGTERM", 143],
] as const;

describe("scan stops cleanly", () => {
  it.each(signals)("on %s: exit %d with the blocks read so far", async (signal, status) => {
    const marker = join(helperDir, `started-${signal}`);
    const slow = join(helperDir, `slow-${signal}.mjs`);
    // 2 ms of work per block: the 4,096 blocks take seconds, and the marker says the scan has begun.
    writeFileSync(
      slow,
      `import { writeFileSync, existsSync } from "node:fs";
export default function () {
  if (!existsSync(${JSON.stringify(marker)})) writeFileSync(${JSON.stringify(marker)}, "1");
  const t = performance.now();
  while (performance.now() - t < 2) {}
  return 1;
}
`,
    );
    const r = await stopWhenBusy(
      ["scan", data, "--workers", "2", "--work-module", slow, "--json"],
      signal,
      () => existsSync(marker),
    );
    expect(r.code).toBe(status);
    const json = JSON.parse(r.stdout).result;
    expect(json.interrupted).toBe(true);
    expect(json.runs[0].result.blocks).toBeGreaterThan(0);
    expect(r.tmpLeft).toEqual([]);
    expect(r.orphans).toEqual([]);
    expect(userFiles()).toEqual(["data.bin"]);
  });
});

const fio = spawnSync("fio", ["--version"]).status === 0;

describe("calibrate stops cleanly", () => {
  it.skipIf(!fio && process.env.SCANLAB_REQUIRE_LIVE !== "1").each(signals)(
    "with fio, on %s: exit %d, fio stopped with it",
    async (signal, status) => {
      const r = await stopWhenBusy(
        ["calibrate", data, "--method", "fio", "--phase-ms", "5000"],
        signal,
        (pid) => descendants(pid).some((p) => p.comm === "fio"),
      );
      expect(r.started.some((p) => p.comm === "fio")).toBe(true);
      expect(r.code).toBe(status);
      expect(r.stdout).toContain("nothing was written");
      expect(r.orphans).toEqual([]);
      expect(r.tmpLeft).toEqual([]);
      expect(userFiles()).toEqual(["data.bin"]);
    },
  );

  it.each(signals)(
    "during the readahead measurement, on %s: exit %d, its test file beside the data removed",
    async (signal, status) => {
      const r = await stopWhenBusy(
        ["calibrate", data, "--method", "node", "--phase-ms", "100", "--readahead-mib", "64"],
        signal,
        () => readdirSync(userDir).some((f) => f.startsWith("scanlab-ra-") && !f.includes("probe")),
      );
      if (r.code === 2 && /evict|page cache/i.test(r.stderr) && process.env.SCANLAB_REQUIRE_LIVE !== "1") {
        console.warn(`calibrate signal test skipped: ${r.stderr.trim()}`);
        return;
      }
      expect(r.code).toBe(status);
      // The device profile was finished and is printed; the readahead was not.
      expect(r.stdout).toContain("Device profile");
      expect(r.stdout).toContain("interrupted before it finished");
      expect(r.orphans).toEqual([]);
      expect(r.tmpLeft).toEqual([]);
      expect(userFiles()).toEqual(["data.bin"]);
    },
  );
});

describe.runIf(existsSync("/dev/full"))("scan and calibrate with stdout on a full disk", () => {
  it.each([
    ["scan --json", ["scan", data, "--json"]],
    [
      "calibrate --json",
      ["calibrate", data, "--method", "node", "--phase-ms", "100", "--no-readahead", "--json"],
    ],
  ])("%s: exit 1, one sentence", async (_name, args) => {
    const r = await runBin(args, { stdoutFile: "/dev/full" });
    if (r.code === 2 && /evict|page cache/i.test(r.stderr) && process.env.SCANLAB_REQUIRE_LIVE !== "1")
      return;
    expect(r.stderr).toBe(
      "scanlab: cannot write to standard output: no space left on the device (ENOSPC).\n",
    );
    expect(r.code).toBe(1);
    expect(userFiles()).toEqual(["data.bin"]);
  });
});
