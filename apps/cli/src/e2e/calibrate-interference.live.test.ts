/**
 * calibrate's text output with the kernel readahead measured: each pattern
 * row says what other programs read during it (and marks a disturbed row),
 * the largest request seen is printed as the estimate it is, the profile's
 * largest I/O is labelled assumed, and no raw JSON appears. (Interference
 * itself is provoked in @scanlab/readahead's interference.live.test.ts.)
 * Live: it writes a test file, evicts the page cache and reads the device.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runBin } from "./run-bin.js";

const base = existsSync("/var/tmp") ? "/var/tmp" : tmpdir();
const dir = mkdtempSync(join(base, "scanlab-cal-text-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const data = join(dir, "data.bin");
writeFileSync(data, Buffer.alloc(16 * 1024 * 1024, 5));

describe("calibrate's readahead table", () => {
  it("says what other programs read, the largest request seen as an estimate, and prints no raw JSON", async () => {
    const r = await runBin(
      ["calibrate", data, "--method", "node", "--phase-ms", "100", "--readahead-mib", "32"],
      { env: { COLUMNS: "250" } },
    ); // the rows are read whole: a table that fits on one line each
    if (r.code === 2 && process.env.SCANLAB_REQUIRE_LIVE !== "1") {
      console.warn(`calibrate text test skipped: ${r.stderr.trim()}`);
      return;
    }
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("other programs");
    expect(r.stdout).toMatch(
      /│ sequential .*│ +(none|[\d,]+ KiB, within 2%|disturbed: [\d,]+ KiB, [\d,]+-[\d,]+ requests) │/,
    );
    expect(r.stdout).toMatch(
      /largest request seen: (at least [\d,]+ KiB .*an estimate from \/proc\/diskstats|unknown)/,
    );
    // The profile's largest I/O says where it came from: the device's max_sectors_kb, or assumed where sysfs has none.
    expect(r.stdout).toMatch(/\d KiB \((assumed|max_sectors_kb)\)/);
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/\{"/);
  });
});
