import { spawnSync } from "node:child_process";
import {
  chmodSync,
  closeSync,
  existsSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InputFileError } from "./errors.js";
import { checkInputFile, readInputFile, readInputJson, readInputText } from "./guarded-read.js";
import { INPUT_LIMITS, type InputKind } from "./input-limits.js";

const dir = mkdtempSync(join(tmpdir(), "scanlab-host-"));
const file = (name: string, content: string | Buffer) => {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
};
/** A sparse file of `bytes` (no disk space used). */
const sparse = (name: string, bytes: number) => {
  const p = join(dir, name);
  const fd = openSync(p, "w");
  ftruncateSync(fd, bytes);
  closeSync(fd);
  return p;
};
const fifo = join(dir, "a-fifo");
const socketPath = join(dir, "a-socket");
let server: Server;

beforeAll(async () => {
  const r = spawnSync("mkfifo", [fifo]);
  if (r.status !== 0) throw new Error(`mkfifo failed: ${r.stderr}`);
  server = createServer();
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

/** The error a call throws (fails the test when it does not throw an InputFileError). */
function refusal(f: () => unknown): InputFileError {
  try {
    f();
  } catch (e) {
    if (e instanceof InputFileError) return e;
    throw e;
  }
  throw new Error("expected an InputFileError");
}

describe("readInputText", () => {
  it("reads a regular file, dropping a byte-order mark", () => {
    expect(readInputText(file("bom.json", "\ufeff{}"), "scenario")).toBe("{}");
    expect(readInputText(file("plain.txt", "hello\n"), "trace")).toBe("hello\n");
  });

  it("reads through a symbolic link", () => {
    const target = file("target.json", "{}");
    const link = join(dir, "link.json");
    symlinkSync(target, link);
    expect(readInputText(link, "scenario")).toBe("{}");
  });

  it("reads a file whose size says 0 but which holds text (/proc)", () => {
    expect(readInputText("/proc/self/status", "trace")).toMatch(/^Name:/);
  });

  it.each<[string, () => string, string, RegExp]>([
    [
      "a character device",
      () => "/dev/zero",
      "INPUT_NOT_A_FILE",
      /is a character device, not a regular file/,
    ],
    ["a FIFO, without blocking", () => fifo, "INPUT_NOT_A_FILE", /is a FIFO \(named pipe\)/],
    ["a socket", () => socketPath, "INPUT_NOT_A_FILE", /is a socket, not a regular file/],
    ["a directory", () => dir, "INPUT_IS_DIRECTORY", /is a directory: give a file\.$/],
    ["a missing file", () => join(dir, "nope.json"), "INPUT_NOT_FOUND", /does not exist: check the path\.$/],
    [
      "a path through a file",
      () => join(file("plain2.txt", "x"), "child.json"),
      "INPUT_NOT_FOUND",
      /a part of its path is a file/,
    ],
    ["an empty file", () => file("empty.json", ""), "INPUT_EMPTY", /is empty\.$/],
    ["a file of white space", () => file("blank.json", " \n\t\n"), "INPUT_EMPTY", /is empty\.$/],
    ["a NUL byte in the path", () => "bad\0name.json", "INPUT_UNREADABLE", /not a valid file name/],
  ])("refuses %s with one sentence", (_name, path, code, message) => {
    const e = refusal(() => readInputText(path(), "scenario"));
    expect(e.code).toBe(code);
    expect(e.message).toMatch(message);
    expect(e.message).toMatch(/^The scenario file /);
    expect(e.message).not.toContain("\n");
  });

  it("refuses a symbolic-link loop", () => {
    const a = join(dir, "loop-a");
    const b = join(dir, "loop-b");
    symlinkSync(a, b);
    symlinkSync(b, a);
    const e = refusal(() => readInputText(a, "device-profile"));
    expect(e.code).toBe("INPUT_UNREADABLE");
    expect(e.message).toBe(`The device profile ${a} cannot be read: its path is a loop of symbolic links.`);
  });

  it("refuses an unreadable file (as a user who may not read it)", () => {
    const p = file("secret.json", "{}");
    chmodSync(p, 0o000);
    if (process.getuid?.() !== 0) {
      expect(refusal(() => readInputText(p, "scenario")).message).toMatch(/permission denied/);
      return;
    }
    // root reads anything: ask the kernel as nobody, through the built entry (turbo builds before test).
    const entry = join(import.meta.dirname, "..", "dist", "index.js");
    expect(existsSync(entry), `${entry}: run the build first`).toBe(true);
    chmodSync(dir, 0o755);
    const script = `import(${JSON.stringify(entry)}).then((m) => { try { m.readInputText(${JSON.stringify(p)}, "scenario"); } catch (e) { console.log(e.code + " " + e.message); } });`;
    const r = spawnSync(process.execPath, ["-e", script], { uid: 65534, gid: 65534, encoding: "utf8" });
    expect(r.stdout.trim()).toBe(
      `INPUT_UNREADABLE The scenario file ${p} cannot be read (permission denied): check its permissions.`,
    );
  });

  it("names the file as the caller asks", () => {
    const e = refusal(() => readInputText("/dev/zero", "device-profile", { what: "--device file" }));
    expect(e.message).toMatch(/^The --device file \/dev\/zero is a character device/);
  });
});

describe("size limits, checked before reading", () => {
  const kinds = Object.keys(INPUT_LIMITS) as InputKind[];

  it.each(kinds)("%s: a file of exactly the limit passes the check, one byte more is refused", (kind) => {
    const max = INPUT_LIMITS[kind].maxBytes;
    expect(checkInputFile(sparse(`at-${kind}`, max), kind).bytes).toBe(max);
    const e = refusal(() => checkInputFile(sparse(`over-${kind}`, max + 1), kind));
    expect(e.code).toBe("INPUT_TOO_LARGE");
    expect(e.message).toContain(
      `is ${max + 1} bytes, more than the ${max / 2 ** 20} MiB a ${INPUT_LIMITS[kind].noun} may be`,
    );
  });

  it("refuses a 200 MB scenario without reading it (a sparse file: reading it would take seconds)", () => {
    const p = sparse("huge.json", 200 * 2 ** 20);
    const e = refusal(() => readInputJson(p, "scenario"));
    expect(e.message).toBe(
      `The scenario file ${p} is 200 MiB, more than the 1 MiB a scenario file may be: check that this is the scenario you meant.`,
    );
  });

  it("refuses a file that holds more than its size said (it grew, or it is in /proc)", () => {
    // /proc/kallsyms says size 0 and holds megabytes: it stands for a file growing while read.
    const kallsyms = "/proc/kallsyms";
    if (!existsSync(kallsyms) || statSync(kallsyms).size !== 0) return;
    const e = refusal(() => readInputFile(kallsyms, "device-profile"));
    expect(e.code).toBe("INPUT_TOO_LARGE");
    expect(e.message).toMatch(/grew while it was read, to more than the 1 MiB a device profile may be/);
  });

  it("every limit says why", () => {
    for (const kind of kinds) {
      expect(INPUT_LIMITS[kind].why.length).toBeGreaterThan(40);
      expect(INPUT_LIMITS[kind].maxBytes).toBeGreaterThan(0);
    }
    // A trace may be much larger than a scenario: the kinds are not one limit.
    expect(INPUT_LIMITS.trace.maxBytes).toBeGreaterThan(100 * INPUT_LIMITS.scenario.maxBytes);
  });
});

describe("readInputJson", () => {
  it("parses JSON, keeping __proto__ as an own key for the schema to refuse", () => {
    const v = readInputJson(file("proto.json", '{"__proto__": {"x": 1}, "a": 2}'), "scenario") as Record<
      string,
      unknown
    >;
    expect(Object.keys(v)).toEqual(["__proto__", "a"]);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it("refuses text that is not JSON, in one line", () => {
    const e = refusal(() => readInputJson(file("broken.json", '{ "name": "x",\n "machine": '), "scenario"));
    expect(e.code).toBe("INPUT_BAD_JSON");
    expect(e.message).toMatch(/^The scenario file .*broken\.json is not valid JSON \(.+\)\.$/);
    expect(e.message).not.toContain("\n");
  });
});

describe("checkInputFile", () => {
  it("passes a regular file and refuses the rest, without reading", () => {
    expect(checkInputFile(file("work.mjs", "export default () => 0;\n"), "work-module").bytes).toBe(24);
    expect(refusal(() => checkInputFile("/dev/zero", "work-module")).code).toBe("INPUT_NOT_A_FILE");
    expect(refusal(() => checkInputFile(fifo, "work-module")).code).toBe("INPUT_NOT_A_FILE");
    expect(refusal(() => checkInputFile(file("empty.mjs", ""), "work-module")).code).toBe("INPUT_EMPTY");
    const sub = join(dir, "modules");
    mkdirSync(sub);
    expect(refusal(() => checkInputFile(sub, "work-module")).code).toBe("INPUT_IS_DIRECTORY");
  });
});
