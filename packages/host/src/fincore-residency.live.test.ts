/**
 * Residency and eviction against the real page cache (fincore from
 * util-linux, dd from coreutils) of a file written here.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { evictFromPageCache } from "./fadvise-eviction.js";
import { measureResidency, residencyVisible } from "./fincore-residency.js";

const dir = mkdtempSync(join(tmpdir(), "scanlab-host-cache-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const REQUIRE_LIVE = process.env.SCANLAB_REQUIRE_LIVE === "1";
const have = (tool: string) => spawnSync(tool, ["--version"], { stdio: "ignore" }).status === 0;

describe("the real page cache", () => {
  const missing = ["fincore", "dd"].filter((t) => !have(t));
  const reason = `${missing.join(" and ")} not installed, so residency cannot be measured or changed`;

  it("a file just read is resident; after evictFromPageCache at most 1% is", () => {
    if (missing.length > 0) {
      if (REQUIRE_LIVE) throw new Error(reason);
      console.log(`skipped: ${reason}`);
      return;
    }
    const p = join(dir, "cache.dat");
    const bytes = 32 * 1024 * 1024;
    writeFileSync(p, new Uint8Array(bytes).fill(7));
    spawnSync("dd", [`if=${p}`, "of=/dev/null", "bs=1M", "status=none"]);
    const warm = measureResidency([p]);
    expect(warm).toMatchObject({ known: true, totalBytes: bytes });
    expect(warm.known && warm.fraction).toBeGreaterThan(0.99);
    expect(evictFromPageCache([p])).toEqual({ ok: true });
    const cold = measureResidency([p, p]);
    expect(cold).toMatchObject({ known: true, totalBytes: 2 * bytes });
    expect(cold.known && cold.fraction).toBeLessThanOrEqual(0.01);
  });

  it("without the tools on the PATH, residency is unknown and eviction says why", () => {
    const saved = process.env.PATH;
    process.env.PATH = join(dir, "empty-path");
    try {
      expect(measureResidency([join(dir, "whatever")])).toEqual({
        known: false,
        reason: "fincore (util-linux) is not installed, so residency is unknown.",
      });
      const e = evictFromPageCache([join(dir, "whatever")]);
      expect(e.ok).toBe(false);
      expect(e.reason).toMatch(/dd \(GNU coreutils\) is not installed/);
    } finally {
      process.env.PATH = saved;
    }
  });

  it("residency is visible for a file this caller owns", () => {
    const p = join(dir, "mine.dat");
    writeFileSync(p, "x");
    chmodSync(p, 0o444);
    expect(residencyVisible(p)).toBe(true);
  });
});
