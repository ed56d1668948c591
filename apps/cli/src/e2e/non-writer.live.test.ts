/**
 * A user who may read a file but not write it: Linux's mincore() reports
 * every page of such a file resident, so fincore cannot tell cold from warm.
 * Run as `nobody` on a file owned by root (mode 644), `scan --cold` must be
 * labelled cold from what the device read, a scan right after it warm, and
 * the JSON names the method; `calibrate` runs instead of refusing, with its
 * eviction labelled unverified. Live: it evicts the page cache and reads the
 * device. Needs root (to act as `nobody`).
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runBin } from "./run-bin.js";

const NOBODY = 65534;
const root = process.getuid?.() === 0;
const dir = mkdtempSync(join("/var/tmp", "scanlab-nonwriter-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
chmodSync(dir, 0o755);
const file = join(dir, "table.dat");
const data = Buffer.alloc(32 * 1024 * 1024);
for (let i = 0; i < data.length; i += 4096) data[i] = (i / 4096) & 0xff;
writeFileSync(file, data, { mode: 0o644 });

describe.runIf(root || process.env.SCANLAB_REQUIRE_LIVE === "1")(
  "a reader who may not write the file",
  () => {
    it("scan --cold is cold and the scan after it warm, both from the device's reads", async () => {
      // The working directory must be one nobody may enter.
      // Wide, so phrases the test looks for are never broken across lines.
      const asNobody = (args: string[]) => runBin(args, { uid: NOBODY, cwd: dir, env: { COLUMNS: "250" } });
      const cold = await asNobody(["scan", file, "--cold", "--json"]);
      expect(cold.stderr).toBe("");
      expect(cold.code).toBe(0);
      const c = JSON.parse(cold.stdout).result.runs[0].result.cache;
      expect(c.method).toBe("device-reads");
      // What mincore() told nobody: every page resident, although the file was just evicted.
      expect(c.before.fraction).toBe(1);
      expect(c.state).toBe("cold");
      expect(c.deviceReadBytes).toBeGreaterThanOrEqual(data.length * 0.99);

      const warm = await asNobody(["scan", file, "--json"]);
      const w = JSON.parse(warm.stdout).result.runs[0].result.cache;
      expect(w.method).toBe("device-reads");
      expect(w.state).toBe("warm");

      const text = await asNobody(["scan", file, "--cold"]);
      expect(text.stdout).toContain("cold (device reads)");
      expect(text.stdout).toContain("can_do_mincore");

      // root may write the file: residency is measured as before.
      const asRoot = await runBin(["scan", file, "--cold", "--json"]);
      const r = JSON.parse(asRoot.stdout).result.runs[0].result.cache;
      expect(r.method).toBe("mincore");
      expect(r.state).toBe("cold");
    });

    it("calibrate runs, its eviction labelled unverified", async () => {
      const r = await runBin(
        ["calibrate", file, "--method", "node", "--phase-ms", "100", "--no-readahead", "--json"],
        { uid: NOBODY, cwd: dir },
      );
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).result.profile.measuredWith).toContain("unverified");
    });
  },
);
