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
 *
 * The machine is shared (CI runs other packages' tests beside this one). Under
 * memory pressure the kernel cannot always allocate the large folios that let
 * one request carry 4 MiB, and a sequential read then goes out in 2 MiB
 * requests (seen here: 262 requests where an idle machine makes 132). So a
 * single-reader pattern that misses the bar is measured again, up to twice, and
 * the closest measurement counts: the model describes the kernel, not the load.
 * A ramp that differs is measured again the same way, and must then match.
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
if (reason !== null && !required) console.log(`kernel.live.test: skipped: ${reason}`);

describe.skipIf(reason !== null && !required)("the linux model against this machine's kernel (live)", () => {
  it("measures, and agrees on the ramp and on single readers", async () => {
    if (reason !== null) throw new Error(`live kernel measurement required but unavailable: ${reason}`);
    const m = await measureKernelReadahead({ dir, fileMiB: 512, repeats: 1 });
    console.log(formatKernelMeasurement(m));
    // The ramp's windows are rules, but the folios that carry them are allocations, and the machine is
    // shared: a window can end a few pages off (page_cache_ra_order() in mm/readahead.c falls back to
    // smaller folios when a large one cannot be had). A ramp that differs is measured again, up to
    // twice, on a new file; one identical measurement counts.
    for (const [i, r] of m.ramps.entries()) {
      let kernel = r.kernel;
      for (let attempt = 0; attempt < 2 && JSON.stringify(kernel) !== JSON.stringify(r.model); attempt++) {
        const again = await measureKernelReadahead({ dir, fileMiB: 512, repeats: 1, patterns: [] });
        kernel = again.ramps[i]!.kernel;
        console.log(`ramp from block ${r.startBlock}: measured again: ${kernel.join(" ")}`);
      }
      expect(r.model, `ramp from block ${r.startBlock}`).toEqual(kernel);
    }
    for (const p of m.patterns.filter(
      (x) => x.pattern.kind === "sequential" || x.pattern.kind === "random",
    )) {
      let gap = Math.abs(p.gap);
      for (let attempt = 0; attempt < 2 && gap > 0.15; attempt++) {
        const again = await measureKernelReadahead({
          dir,
          fileMiB: 512,
          repeats: 1,
          patterns: [{ name: p.name, pattern: p.pattern }],
        });
        const q = again.patterns[0]!;
        console.log(`${p.name}: measured again: gap ${(100 * q.gap).toFixed(1)}%`);
        gap = Math.min(gap, Math.abs(q.gap));
      }
      expect(gap, p.name).toBeLessThanOrEqual(0.15);
    }
  }, 900_000);
});
