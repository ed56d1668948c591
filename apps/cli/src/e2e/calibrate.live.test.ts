/**
 * `calibrate` on a real file, as a user runs it: it evicts the file from the
 * page cache, measures the device underneath with Node's worker threads, and
 * writes a profile that `simulate --device` accepts. Where the page cache
 * cannot be emptied (tmpfs) the test is skipped with the reason, unless
 * SCANLAB_REQUIRE_LIVE=1 (CI), where it fails.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { typeCheckJson } from "./json-type-check.js";
import { calibrateArgs, runBin } from "./run-bin.js";

const dir = mkdtempSync(join(existsSync("/var/tmp") ? "/var/tmp" : tmpdir(), "scanlab-calibrate-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("calibrate", () => {
  it("measures a real file and writes a profile that simulate --device accepts", async () => {
    const data = join(dir, "cal.dat");
    writeFileSync(data, Buffer.alloc(16 * 1024 * 1024, 3));
    const out = join(dir, "my-disk.json");
    const r = await runBin([...calibrateArgs(data, out, 200), "--json"]);
    if (r.code === 2 && /evict|page cache/i.test(r.stderr) && process.env.SCANLAB_REQUIRE_LIVE !== "1") {
      console.warn(`calibrate test skipped: ${r.stderr.trim()}`);
      return;
    }
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(
      typeCheckJson([{ name: "calibrate", command: "calibrate", json: r.stdout }]).get("calibrate"),
    ).toEqual([]);
    const json = JSON.parse(r.stdout).result;
    expect(json.profile.basis).toBe("measurement");
    expect(json.kernelReadaheadSkipped).toContain("--no-readahead");
    const sim = await runBin(["simulate", "--table-size", "64MB", "--device", out], {
      env: { COLUMNS: "250" },
    });
    expect(sim.code).toBe(0);
    expect(sim.stdout).toContain(json.profile.name);
  });
});
