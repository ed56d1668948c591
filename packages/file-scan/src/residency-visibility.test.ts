import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { classifyByDeviceReads, residencyVisibility } from "./residency-visibility.js";

const dir = mkdtempSync(join(tmpdir(), "scanlab-rv-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, "f");
writeFileSync(file, "x");

describe("classifyByDeviceReads", () => {
  it("uses the share of the scanned bytes the device read, with the residency rule's margins", () => {
    expect(classifyByDeviceReads(1000, 1000)).toBe("cold");
    // Readahead past the last block: more than was scanned is still all of it.
    expect(classifyByDeviceReads(1500, 1000)).toBe("cold");
    expect(classifyByDeviceReads(995, 1000)).toBe("cold");
    expect(classifyByDeviceReads(980, 1000)).toBe("mixed");
    expect(classifyByDeviceReads(10, 1000)).toBe("warm");
    expect(classifyByDeviceReads(0, 1000)).toBe("warm");
    expect(classifyByDeviceReads(null, 1000)).toBe("unknown");
  });
});

describe("residencyVisibility", () => {
  it("is visible to the file's owner, elsewhere than Linux and before Linux 5.0", () => {
    expect(residencyVisibility([file]).visible).toBe(true); // this process wrote it
    expect(residencyVisibility(["/no/such"], { platform: "darwin" }).visible).toBe(true);
    expect(residencyVisibility(["/no/such"], { platform: "linux", release: "4.19.0" }).visible).toBe(true);
  });
});
