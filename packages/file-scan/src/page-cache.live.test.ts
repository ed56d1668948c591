/**
 * Residency and eviction against the real page cache (fincore and dd from
 * util-linux / coreutils), and the cold / warm / mixed rule.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { evictFromPageCache, measureResidency } from "@scanlab/host";
import { afterAll, describe, expect, it } from "vitest";
import { makeTempDir, writeBlockFile } from "../test/files.js";
import { COLD_MAX_RESIDENT_FRACTION, classifyCache, WARM_MIN_RESIDENT_FRACTION } from "./page-cache.js";

const tmp = makeTempDir();
afterAll(() => tmp.remove());
const REQUIRE_LIVE = process.env.SCANLAB_REQUIRE_LIVE === "1";

function have(tool: string): boolean {
  return spawnSync(tool, ["--version"], { stdio: "ignore" }).status === 0;
}

describe("classifyCache", () => {
  const at = (fraction: number) =>
    classifyCache({ known: true, residentBytes: fraction * 1000, totalBytes: 1000, fraction });
  it("cold up to 1% resident, warm from 99%, mixed between, unknown without a measurement", () => {
    expect([
      at(0),
      at(COLD_MAX_RESIDENT_FRACTION),
      at(0.02),
      at(0.5),
      at(WARM_MIN_RESIDENT_FRACTION),
      at(1),
    ]).toEqual(["cold", "cold", "mixed", "mixed", "warm", "warm"]);
    expect(classifyCache({ known: false, reason: "no fincore." })).toBe("unknown");
  });
});

describe("the real page cache", () => {
  const missing = ["fincore", "dd"].filter((t) => !have(t));
  const reason = `${missing.join(" and ")} not installed, so residency cannot be measured or changed`;

  it("a file just read is warm; evicted with dd iflag=nocache it is cold", async () => {
    if (missing.length > 0) {
      if (REQUIRE_LIVE) throw new Error(reason);
      console.log(`skipped: ${reason}`);
      return;
    }
    const p = join(tmp.dir, "cache.dat");
    writeBlockFile(p, 64 * 1024 * 1024);
    spawnSync("dd", [`if=${p}`, "of=/dev/null", "bs=1M", "status=none"]);
    const warm = measureResidency([p]);
    expect(warm).toMatchObject({ known: true, totalBytes: 64 * 1024 * 1024 });
    expect(classifyCache(warm)).toBe("warm");
    const report = evictFromPageCache([p]);
    expect(report).toEqual({ ok: true });
    const cold = measureResidency([p]);
    expect(classifyCache(cold)).toBe("cold");
  });

  it("without fincore on the PATH residency is unknown, with the reason", () => {
    const saved = process.env.PATH;
    process.env.PATH = join(tmp.dir, "empty-path");
    try {
      const r = measureResidency([join(tmp.dir, "whatever")]);
      expect(r).toEqual({
        known: false,
        reason: "fincore (util-linux) is not installed, so residency is unknown.",
      });
      const e = evictFromPageCache([join(tmp.dir, "whatever")]);
      expect(e.ok).toBe(false);
      expect(e.reason).toMatch(/dd \(GNU coreutils\) is not installed/);
    } finally {
      process.env.PATH = saved;
    }
  });
});
