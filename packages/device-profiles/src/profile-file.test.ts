/**
 * Device profile files through the Node entry: a profile round-trips through
 * JSON; a file that is missing, not JSON, not a regular file or holds a bad
 * field is named with the problem; fio JSON files import through the same
 * guarded reader.
 */
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { getBuiltinProfile } from "./builtin-profiles.js";
import { importFioJsonFile, readDeviceProfileFile, writeDeviceProfileFile } from "./node.js";

const dir = mkdtempSync(join(tmpdir(), "scanlab-profile-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fixture = (name: string) => join(import.meta.dirname, "..", "fixtures", "fio", name);

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
      new RegExp(`^The device profile ${path} is not valid JSON`),
    );
    expect(() => readDeviceProfileFile(join(dir, "nope.json"))).toThrow(/does not exist: check the path\.$/);
  });

  it("refuses a device, a directory and a symbolic-link loop before reading (the guarded reader)", () => {
    expect(() => readDeviceProfileFile("/dev/zero")).toThrow(
      "The device profile /dev/zero is a character device, not a regular file: give a regular file.",
    );
    expect(() => readDeviceProfileFile(dir, { what: "--device file" })).toThrow(
      `The --device file ${dir} is a directory: give a file.`,
    );
    const loop = join(dir, "loop.json");
    symlinkSync(loop, loop);
    expect(() => readDeviceProfileFile(loop)).toThrow(/loop of symbolic links/);
  });

  it("names the file and the field of a bad profile", () => {
    const path = join(dir, "bad.json");
    writeFileSync(path, JSON.stringify({ ...getBuiltinProfile("hdd-7200rpm"), rpm: -7200 }));
    expect(() => readDeviceProfileFile(path)).toThrow(
      `Device profile ${path}: field "rpm" must be greater than 0`,
    );
  });
});

describe("fio JSON files", () => {
  it("imports a recorded fio run", () => {
    const profile = importFioJsonFile(fixture("vda-ext4-libaio.json"), { name: "vda" });
    expect(profile.name).toBe("vda");
    expect(profile.measuredWith).toContain("vda-ext4-libaio.json");
    expect(profile.randomReadIops).toBeGreaterThan(0);
  });

  it("refuses what is not a fio result file, in one sentence", () => {
    expect(() => importFioJsonFile("/dev/zero")).toThrow(
      /^The fio JSON file \/dev\/zero is a character device/,
    );
    const notes = join(dir, "notes.json");
    writeFileSync(notes, '{"hello": 1}');
    expect(() => importFioJsonFile(notes)).toThrow(/notes\.json/);
  });
});
