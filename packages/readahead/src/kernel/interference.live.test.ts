/**
 * The readahead measurement on a device another program is reading: a
 * sequential run that another program's small O_DIRECT reads leave
 * uncertain is measured again and, disturbed in every attempt, marked so;
 * on the quieter device the largest request seen is reported between its
 * average-based lower bound and max_sectors_kb. Live (writes a test file,
 * evicts it, reads /proc/diskstats). Skipped where the measurement cannot
 * run, unless SCANLAB_REQUIRE_LIVE=1.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  checkKernelMeasurementPossible,
  KERNEL_PATTERNS,
  measureKernelReadahead,
} from "./kernel-measurement.js";

const base = existsSync("/var/tmp") ? "/var/tmp" : tmpdir();
let reason: string | null = null;
try {
  checkKernelMeasurementPossible(base);
} catch (e) {
  reason = e instanceof Error ? e.message : String(e);
}
const required = process.env.SCANLAB_REQUIRE_LIVE === "1";
const dir = mkdtempSync(join(base, "scanlab-ra-busy-"));
let hog: ChildProcess | undefined;
const stopHog = () => {
  if (hog?.pid !== undefined) process.kill(-hog.pid, "SIGKILL");
  hog = undefined;
};
afterAll(() => {
  stopHog();
  rmSync(dir, { recursive: true, force: true });
});
const sequential = KERNEL_PATTERNS.filter((p) => p.name === "sequential");
const options = { dir, fileMiB: 32, patterns: sequential, repeats: 1, attempts: 2, rampReads: 4 };

describe.skipIf(reason !== null && !required)("interference during a measured pattern", () => {
  it("another program's small reads: measured again, then marked disturbed", async () => {
    const other = join(dir, "other.bin");
    writeFileSync(other, Buffer.alloc(64 * 1024 * 1024, 9));
    hog = spawn(
      "sh",
      ["-c", `while :; do dd if=${other} of=/dev/null bs=4k iflag=direct status=none; done`],
      {
        detached: true,
        stdio: "ignore",
      },
    );
    await new Promise((r) => setTimeout(r, 300));
    const lines: string[] = [];
    const m = await measureKernelReadahead({ ...options, log: (l) => lines.push(l) });
    stopHog();
    const seq = m.patterns[0]!;
    expect(seq.kernel.backgroundBytes).toBeGreaterThan(0);
    expect(seq.kernel.disturbed).toBe(true);
    expect(seq.kernel.foreignRequestsMax!).toBeGreaterThan(seq.kernel.foreignRequestsMin!);
    expect(lines.some((l) => l.includes("measuring again"))).toBe(true);
    // Progress lines are sentences, never raw JSON.
    for (const l of lines) expect(l).not.toMatch(/\{"/);
  });

  it("the largest request seen lies between its lower bound and max_sectors_kb", async () => {
    stopHog();
    const m = await measureKernelReadahead(options);
    const big = m.largestRequest;
    if (big === null || big === undefined) return; // every run disturbed by the machine's own load
    expect(big.ceilingBytes).toBe(m.machine.maxSectorsKb * 1024);
    expect(big.atLeastBytes).toBeGreaterThan(0);
    expect(big.atLeastBytes).toBeLessThanOrEqual(big.ceilingBytes);
    expect(big.pattern).toBe("sequential");
  });
});
