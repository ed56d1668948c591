import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readAheadControl, readAheadPath } from "./read-ahead.js";

const dir = mkdtempSync(join(tmpdir(), "scanlab-lab-ra-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("readAheadControl", () => {
  it("sets the value and always writes the original back", () => {
    const file = join(dir, "read_ahead_kb");
    writeFileSync(file, "8192\n");
    const ra = readAheadControl(file);
    expect(ra.originalKb).toBe(8192);
    expect(ra.refusal).toBeNull();
    ra.set(128);
    expect(readFileSync(file, "utf8").trim()).toBe("128");
    ra.reset();
    expect(readFileSync(file, "utf8").trim()).toBe("8192");
    ra.set(256);
    ra.restore();
    expect(readFileSync(file, "utf8").trim()).toBe("8192");
    ra.restore();
    expect(readFileSync(file, "utf8").trim()).toBe("8192");
  });

  it("finds a device's queue, or its whole disk's for a partition", () => {
    const sys = join(dir, "sys");
    const q = join(sys, "block", "vda", "queue");
    mkdirSync(q, { recursive: true });
    writeFileSync(join(q, "read_ahead_kb"), "128\n");
    expect(readAheadPath("vda", "vda", sys)).toBe(join(q, "read_ahead_kb"));
    expect(readAheadPath("vda1", "vda", sys)).toBe(join(q, "read_ahead_kb"));
    expect(readAheadPath("nvme9", "nvme9", sys)).toBeNull();
  });
});
