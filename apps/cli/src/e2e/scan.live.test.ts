/**
 * `scan --cold --compare` on a real temporary file, as a user runs it: the
 * file is evicted from the page cache before each policy runs, every block is
 * read once, each policy gives its claim size (PostgreSQL 11-13 hand out one
 * block per call; Munro's 2020 prototype ranges of up to 64 blocks), and the
 * simulator's prediction for a device stands beside each run.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runBin } from "./run-bin.js";

// A real file system, not tmpfs, when one is at hand (eviction and device counters then mean something).
const base = existsSync("/var/tmp") ? "/var/tmp" : tmpdir();
const dir = mkdtempSync(join(base, "scanlab-cli-scan-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const MiB = 1024 * 1024;
const file = join(dir, "table.dat");
const data = Buffer.alloc(16 * MiB);
for (let i = 0; i < data.length; i += 4096) data[i] = (i / 4096) & 0xff;
writeFileSync(file, data);
const NBLOCKS = (16 * MiB) / 8192;

describe("scan --cold", () => {
  it("--compare runs the policies back to back, with the prediction for a device beside each", async () => {
    const r = await runBin([
      "scan",
      file,
      "--workers",
      "2",
      "--cold",
      "--compare",
      "pg11,munro2020",
      "--device",
      "intel-ssd-320-120gb",
      "--json",
    ]);
    expect(r.code).toBe(0);
    const runs = JSON.parse(r.stdout).result.runs;
    expect(runs.map((x: { policy: string }) => x.policy)).toEqual(["pg11", "munro2020"]);
    const blocksPerClaim = (x: { result: { perWorker: { blocks: number; claims: number }[] } }) =>
      x.result.perWorker.reduce((a, w) => a + w.blocks, 0) /
      x.result.perWorker.reduce((a, w) => a + w.claims, 0);
    // apps/docs/src/reference/experiments.md#t12-constants-the-simulator-encodes: PG11-13 hand out 1 block per request; Munro's 2020 prototype ranges of up to 64 (T1).
    expect(blocksPerClaim(runs[0])).toBe(1);
    expect(blocksPerClaim(runs[1])).toBeGreaterThan(2);
    expect(blocksPerClaim(runs[1])).toBeLessThanOrEqual(64);
    for (const x of runs) {
      expect(x.result.cover.exact).toBe(true);
      expect(x.result.blocks).toBe(NBLOCKS);
      expect(x.prediction.timeS).toBeGreaterThan(0);
    }
  });
});
