/**
 * One posix_fadvise(WILLNEED) on an absent block, timed on the real kernel:
 * the figure `scanlab calibrate` stores as the profile's `cpu.fadviseUs`.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeTempDir, writeBlockFile } from "../test/files.js";
import { measureAdviceCall } from "./advice-cost.js";

const tmp = makeTempDir();
afterAll(() => tmp.remove());

const digest = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

describe("measureAdviceCall", () => {
  it("times WILLNEED on absent 8 kB blocks, and leaves the file as it was", () => {
    // 8,192 blocks of 8 kB (64 MiB): twice the 2,000 distinct blocks with room to spare.
    const path = join(tmp.dir, "advised.dat");
    writeBlockFile(path, 8192 * 8192);
    const before = digest(path);
    const cost = measureAdviceCall(path);
    if (!cost.ok) throw new Error(cost.reason);
    // A system call that allocates two pages and submits a bio: more than nothing, far less than a read.
    expect(cost.fadviseUs).toBeGreaterThan(0);
    expect(cost.fadviseUs).toBeLessThan(1000);
    expect(cost.measuredWith).toMatch(/median of 2000 posix_fadvise\(WILLNEED\) calls/);
    expect(digest(path)).toBe(before);
  });

  it("refuses a file too small for the distinct blocks, in one sentence", () => {
    const path = join(tmp.dir, "small.dat");
    writeBlockFile(path, 16 * 8192);
    expect(measureAdviceCall(path)).toEqual({
      ok: false,
      reason: `${path} has fewer than 4000 blocks of 8 kB to advise.`,
    });
  });
});
