import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readAheadControl } from "./read-ahead.js";

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
});
