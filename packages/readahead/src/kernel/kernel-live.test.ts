/**
 * The live version of the kernel comparison: measures this machine's kernel
 * now. Skipped, with the reason printed, where it cannot run (no Linux, no
 * /proc/diskstats, page-cache eviction not working, fincore missing), unless
 * SCANLAB_REQUIRE_LIVE=1, where a missing prerequisite fails.
 *
 * What it asserts is what holds on any machine and load: the initial window
 * and the ramp are identical (the rules are deterministic), and the single
 * reader's patterns (sequential, random) are within 15%. The multi-reader
 * patterns depend on thread scheduling (see the README); their comparison is
 * printed, and asserted in kernel-fixture.test.ts on a committed measurement.
 */
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  checkKernelMeasurementPossible,
  formatKernelMeasurement,
  measureKernelReadahead,
} from "./kernel-measurement.js";

// The temp directory, or, if that is not on a block device (tmpfs), the disk this checkout is on.
const candidates = process.env.SCANLAB_LIVE_DIR
  ? [process.env.SCANLAB_LIVE_DIR]
  : [tmpdir(), fileURLToPath(new URL("../..", import.meta.url))];
let dir = candidates[0]!;
let reason: string | null = null;
for (const d of candidates) {
  try {
    checkKernelMeasurementPossible(d);
    dir = d;
    reason = null;
    break;
  } catch (e) {
    reason = e instanceof Error ? e.message : String(e);
  }
}
const required = process.env.SCANLAB_REQUIRE_LIVE === "1";
if (reason !== null && !required) console.log(`kernel-live.test: skipped: ${reason}`);

describe.skipIf(reason !== null && !required)("the linux model against this machine's kernel (live)", () => {
  it("measures, and agrees on the ramp and on single readers", async () => {
    if (reason !== null) throw new Error(`live kernel measurement required but unavailable: ${reason}`);
    const m = await measureKernelReadahead({ dir, fileMiB: 512, repeats: 1 });
    console.log(formatKernelMeasurement(m));
    for (const r of m.ramps) expect(r.model).toEqual(r.kernel);
    for (const p of m.patterns.filter(
      (x) => x.pattern.kind === "sequential" || x.pattern.kind === "random",
    )) {
      expect(Math.abs(p.gap), p.name).toBeLessThanOrEqual(0.15);
    }
  }, 900_000);
});
