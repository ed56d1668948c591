import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkOutputFile, prepareOutputDir } from "./output-location.js";

const dir = mkdtempSync(join(tmpdir(), "scanlab-out-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("prepareOutputDir (--report)", () => {
  it("creates missing parents one at a time and leaves no probe behind", () => {
    const target = join(dir, "a", "b", "c");
    expect(prepareOutputDir(target)).toBe(target);
    expect(readdirSync(target)).toEqual([]);
    expect(prepareOutputDir(target)).toBe(target); // an existing directory is fine too
  });

  it("refuses /proc at once (a recursive mkdir there never returns)", () => {
    expect(() => prepareOutputDir("/proc/scanlab-x")).toThrow(
      "--report /proc/scanlab-x is on the kernel's proc file system, where reports cannot be kept: give a writable directory.",
    );
  });

  it("refuses a file, and a path through a file", () => {
    const file = join(dir, "plain");
    writeFileSync(file, "x");
    expect(() => prepareOutputDir(file)).toThrow(/is a file, not a directory/);
    expect(() => prepareOutputDir(join(file, "sub"))).toThrow(/a part of its path is a file/);
    expect(readFileSync(file, "utf8")).toBe("x");
  });
});

describe("checkOutputFile (calibrate --out)", () => {
  it("accepts a new name and an existing file, and leaves the file's bytes alone", () => {
    expect(checkOutputFile(join(dir, "new.json"))).toBe(join(dir, "new.json"));
    expect(existsSync(join(dir, "new.json"))).toBe(false);
    const kept = join(dir, "kept.json");
    writeFileSync(kept, "the user's data");
    checkOutputFile(kept);
    expect(readFileSync(kept, "utf8")).toBe("the user's data");
    expect(readdirSync(dir).filter((f) => f.includes("probe"))).toEqual([]);
  });

  it("refuses a kernel file, a FIFO, a directory and a missing directory", () => {
    expect(() => checkOutputFile("/proc/version")).toThrow(/kernel's proc file system/);
    const fifo = join(dir, "fifo");
    spawnSync("mkfifo", [fifo]);
    expect(() => checkOutputFile(fifo)).toThrow(/is a FIFO, not a regular file/);
    expect(() => checkOutputFile(dir)).toThrow(/is a directory/);
    expect(() => checkOutputFile(join(dir, "nope", "p.json"))).toThrow(/does not exist/);
  });

  it("refuses a read-only directory and a read-only file, by trying (as nobody when root)", () => {
    const ro = join(dir, "ro");
    mkdirSync(ro);
    writeFileSync(join(ro, "existing.json"), "{}");
    chmodSync(join(ro, "existing.json"), 0o444);
    chmodSync(ro, 0o555);
    chmodSync(dir, 0o755);
    const entry = join(import.meta.dirname, "output-location.ts");
    const script = (target: string) =>
      `import(${JSON.stringify(entry)}).then((m) => { try { m.checkOutputFile(${JSON.stringify(target)}); console.log("ok"); } catch (e) { console.log(e.message); } });`;
    const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    const tsx = join(import.meta.dirname, "..", "..", "..", "node_modules", ".bin", "tsx");
    for (const [target, errno] of [
      [join(ro, "new.json"), "EACCES"],
      [join(ro, "existing.json"), "EACCES"],
    ] as const) {
      const r = spawnSync(tsx, ["-e", script(target)], { ...asUser, encoding: "utf8" });
      expect(r.stdout.trim()).toBe(
        `--out ${target} cannot be written (${errno}): give a file in a writable directory, such as my-disk.json.`,
      );
    }
    chmodSync(ro, 0o755);
  });
});
