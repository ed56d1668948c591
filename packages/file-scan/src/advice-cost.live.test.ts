/**
 * What advising an absent block costs a reader, on the real kernel: the
 * figure `scanlab calibrate` stores as the profile's `cpu.fadviseUs`.
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
  it("measures the system time of advised cold reads beyond cached ones, and leaves the file as it was", async () => {
    // 8,192 blocks of 8 kB (64 MiB): a tenth of them, about 820, are advised and read each pass.
    const path = join(tmp.dir, "advised.dat");
    writeBlockFile(path, 8192 * 8192);
    const before = digest(path);
    const cost = await measureAdviceCall(path, 3);
    if (!cost.ok) throw new Error(cost.reason);
    // A system call that allocates two pages and submits a bio, and the read's completion: more than
    // nothing, far less than a millisecond; the call alone is part of it.
    expect(cost.fadviseUs).toBeGreaterThanOrEqual(0);
    expect(cost.fadviseUs).toBeLessThan(1000);
    expect(cost.callUs).toBeGreaterThan(0);
    expect(cost.callUs).toBeLessThan(1000);
    expect(cost.measuredWith).toMatch(/posix_fadvise\(WILLNEED\) 16 blocks ahead/);
    expect(digest(path)).toBe(before);
  });

  it("refuses a file too small for the distinct blocks, in one sentence", async () => {
    const path = join(tmp.dir, "small.dat");
    writeBlockFile(path, 16 * 8192);
    expect(await measureAdviceCall(path)).toEqual({
      ok: false,
      reason: `${path} is too small to advise 400 blocks: it needs at least 37 MiB.`,
    });
  });
});
