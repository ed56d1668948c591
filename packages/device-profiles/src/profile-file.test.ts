/**
 * Device profile files through the Node entry: a profile round-trips through
 * JSON, and a file that is missing, not JSON or holds a bad field is named
 * with the problem.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { getBuiltinProfile } from "./builtin-profiles.js";
import { readDeviceProfileFile, writeDeviceProfileFile } from "./node.js";

const dir = mkdtempSync(join(tmpdir(), "scanlab-profile-files-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("profile files", () => {
  it("round-trips a profile through a JSON file", () => {
    const path = join(dir, "raid.json");
    const raid = getBuiltinProfile("raid0-6x-intel-s3600-100gb");
    writeDeviceProfileFile(path, raid);
    expect(readDeviceProfileFile(path)).toEqual(raid);
  });

  it("names the file when it is not JSON or does not exist", () => {
    const path = join(dir, "broken.json");
    writeFileSync(path, "{ kind: nvme");
    expect(() => readDeviceProfileFile(path)).toThrow(
      new RegExp(`^Device profile ${path} is not valid JSON`),
    );
    expect(() => readDeviceProfileFile(join(dir, "nope.json"))).toThrow(/cannot be read \(ENOENT\)\.$/);
  });

  it("names the file and the field of a bad profile", () => {
    const path = join(dir, "bad.json");
    writeFileSync(path, JSON.stringify({ ...getBuiltinProfile("hdd-7200rpm"), rpm: -7200 }));
    expect(() => readDeviceProfileFile(path)).toThrow(
      `Device profile ${path}: field "rpm" must be greater than 0`,
    );
  });
});
