/**
 * Bad input, across every command: each case must exit with status 2 and say
 * on stderr, in one line and without a stack trace, what was wrong. The `mentions` column is a word the line has to contain, so a
 * case cannot pass with an unrelated message.
 */
import { constants } from "node:buffer";
import {
  chmodSync,
  closeSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { runBin } from "./run-bin.js";

const dir = mkdtempSync(join(tmpdir(), "scanlab-cli-bad-"));
chmodSync(dir, 0o755);
const f = (name: string, content: string | Buffer) => {
  const p = join(dir, name);
  writeFileSync(p, content);
  chmodSync(p, 0o644);
  return p;
};
const validScenario = {
  name: "ok",
  machine: { cores: 4, ram: "8GB", os: "linux-5.4", device: "intel-ssd-320-120gb" },
  tables: [{ name: "t", size: "64MB", tuplesPerPage: 226 }],
  queries: [{ name: "q", table: "t" }],
};
const broken = f("broken.json", '{ "name": "x", "machine": ');
const array = f("array.json", "[1, 2, 3]");
const wrongType = f(
  "wrong-type.json",
  JSON.stringify({ ...validScenario, machine: { ...validScenario.machine, cores: "eight" } }),
);
const unknownField = f("unknown-field.json", JSON.stringify({ ...validScenario, tabels: [] }));
const empty = f("empty.json", "");
const unreadable = f("unreadable.json", JSON.stringify(validScenario));
chmodSync(unreadable, 0o000);
const aDir = join(dir, "a-directory");
mkdirSync(aDir);
const dataFile = f("data.dat", Buffer.alloc(256 * 1024, 7));
const emptyData = f("empty.dat", "");
const notATrace = f("notes.txt", "hello\nthis is not a trace\n");
const straceNoPaths = f("nopaths.strace", '123 pread64(5, ""..., 8192, 0) = 8192\n');
const badProfile = f("bad-profile.json", JSON.stringify({ kind: "tape", name: "x" }));
const reportFile = f("report-is-a-file", "x");
const dataLink = join(dir, "data-link.dat");
symlinkSync(dataFile, dataLink);
// A directory nobody but its owner may write into.
const readOnlyDir = join(dir, "read-only");
mkdirSync(readOnlyDir);
chmodSync(readOnlyDir, 0o555);
// A trace longer than the longest string Node can hold (sparse: it takes no disk space).
const hugeTrace = join(dir, "huge.strace");
{
  const fd = openSync(hugeTrace, "w");
  ftruncateSync(fd, constants.MAX_STRING_LENGTH + 1);
  closeSync(fd);
  chmodSync(hugeTrace, 0o644);
}
const gzTrace = f("scan.strace.gz", gzipSync('123 pread64(5, ""..., 8192, 0) = 8192\n'));
// Root reads and writes anything: run the unreadable-file and read-only cases as nobody (65534) then.
const asRoot = typeof process.getuid === "function" && process.getuid() === 0;

const cases: [string, string[], string][] = [
  ["size with a bad unit", ["simulate", "--table-size", "10XB"], "--table-size"],
  ["size that is not a number", ["simulate", "--table-size=lots"], "--table-size"],
  ["negative workers", ["simulate", "--workers=-1"], "--workers"],
  ["fractional workers", ["simulate", "--workers", "2.5"], "--workers"],
  ["too many workers", ["simulate", "--workers", "5000"], "--workers"],
  ["eic above 1000", ["simulate", "--effective-io-concurrency", "1001"], "--effective-io-concurrency"],
  ["bad seed", ["simulate", "--seed", "abc"], "--seed"],
  ["unknown OS", ["simulate", "--os", "solaris"], "--os"],
  ["unknown device name", ["simulate", "--device", "no-such-disk"], "no-such-disk"],
  ["missing device file", ["simulate", "--device", "/nonexistent/disk.json"], "does not exist"],
  ["unknown allocator", ["simulate", "--allocator", "pg99"], "--allocator"],
  ["bad on/off", ["simulate", "--synchronize-seqscans", "maybe"], "--synchronize-seqscans"],
  ["shared_buffers below 128kB", ["simulate", "--shared-buffers", "64kB"], "--shared-buffers"],
  ["shared_buffers above RAM", ["simulate", "--ram", "1GB", "--shared-buffers", "2GB"], "sharedBuffers"],
  [
    "conflict: size and blocks",
    ["simulate", "--table-size", "1GB", "--table-blocks", "100"],
    "--table-blocks",
  ],
  ["conflict: chunk cap on pg11", ["simulate", "--allocator", "pg11", "--chunk-cap", "4096"], "--chunk-cap"],
  [
    "conflict: read-ahead-kb on FreeBSD",
    ["simulate", "--os", "freebsd-12", "--read-ahead-kb", "256"],
    "--read-ahead-kb",
  ],
  [
    "conflict: dataset with seqscan",
    ["simulate", "--workload", "seqscan", "--dataset", "random"],
    "--dataset",
  ],
  ["unknown option", ["simulate", "--frobnicate", "3"], "--frobnicate"],
  ["missing scenario file", ["simulate", join(dir, "missing.json")], "does not exist"],
  ["empty scenario file", ["simulate", empty], "empty"],
  ["broken JSON", ["simulate", broken], "not valid JSON"],
  ["JSON of the wrong type", ["simulate", array], "array"],
  ["field of the wrong type", ["simulate", wrongType], "machine.cores"],
  ["unknown field", ["simulate", unknownField], "tabels"],
  ["scenario is a directory", ["simulate", aDir], "directory"],
  ["unreadable scenario file", ["simulate", unreadable], "cannot be read"],
  ["sweep without --vary", ["sweep"], "--vary"],
  ["sweep of an unknown setting", ["sweep", "--vary", "nosuch=1,2"], "nosuch"],
  ["sweep with an empty value", ["sweep", "--vary", "workers=1,,2"], "empty item"],
  ["sweep without values", ["sweep", "--vary", "workers"], "NAME=V1,V2"],
  ["sweep: fixed and varied", ["sweep", "--vary", "workers=1,2", "--workers", "3"], "both fixed and varied"],
  ["sweep: baseline not in the list", ["sweep", "--vary", "workers=1,2", "--baseline", "7"], "--baseline"],
  [
    "sweep: bad value in the list",
    ["sweep", "--vary", "effective-io-concurrency=1,lots"],
    "effective-io-concurrency",
  ],
  ["unknown target", ["reproduce", "T9"], "T9"],
  ["all with names", ["reproduce", "all", "T1"], "all"],
  ["unknown row", ["reproduce", "T1", "--rows", "nosuch"], "nosuch"],
  ["rows without one target", ["reproduce", "--rows", "serial"], "--rows"],
  ["report directory is a file", ["reproduce", "T1", "--report", reportFile], "--report"],
  ["scan of a missing file", ["scan", join(dir, "missing.dat")], "missing.dat"],
  ["scan of a directory", ["scan", aDir], "directory"],
  ["scan of an empty file", ["scan", emptyData], "empty"],
  ["scan with 0 workers", ["scan", dataFile, "--workers", "0"], "--workers"],
  [
    "scan: allocator and compare",
    ["scan", dataFile, "--allocator", "pg11", "--compare", "pg14"],
    "--compare",
  ],
  ["scan: bad compare list", ["scan", dataFile, "--compare", "pg11,,pg14"], "empty item"],
  ["scan: bad block size", ["scan", dataFile, "--block-size", "8 apples"], "--block-size"],
  ["calibrate a missing file", ["calibrate", join(dir, "missing.dat")], "missing.dat"],
  ["calibrate a file below 1 MiB", ["calibrate", dataFile, "--no-readahead"], "1 MiB"],
  ["calibrate --out a directory", ["calibrate", dataFile, "--out", aDir], "--out"],
  ["advise without --device", ["advise", "--os", "linux-5.4", "--table-size", "1GB"], "--device"],
  [
    "advise with an unsupported version",
    ["advise", "--device", "hdd-7200rpm", "--os", "linux-5.4", "--table-size", "1GB", "--pg", "12"],
    "--pg",
  ],
  ["profiles show unknown", ["profiles", "show", "nosuch"], "nosuch"],
  ["profiles unknown action", ["profiles", "frobnicate"], "frobnicate"],
  ["profile file that is not a profile", ["profiles", "show", badProfile], "bad-profile.json"],
  ["trace of a missing file", ["trace", "import", join(dir, "missing.strace")], "does not exist"],
  ["trace of an empty file", ["trace", "import", empty], "empty"],
  ["trace that is not a trace", ["trace", "import", notATrace], "neither"],
  ["trace --path without -y paths", ["trace", "import", straceNoPaths, "--path", "16384"], "strace -y"],
  ["unknown command", ["frobnicate"], "frobnicate"],
  [
    "max_sectors_kb on FreeBSD",
    ["simulate", "--os", "freebsd-12", "--max-sectors-kb", "256"],
    "--max-sectors-kb is a Linux setting",
  ],
  ["selectivity above 100%", ["simulate", "--selectivity", "150%"], '--selectivity "150%"'],
  [
    "sweep: baseline that is no value",
    ["sweep", "--vary", "workers=1,2", "--baseline", "lots"],
    "--baseline",
  ],
  [
    "sweep --report a read-only directory",
    ["sweep", "--table-size", "64MB", "--vary", "workers=1,2", "--report", readOnlyDir],
    "cannot be written",
  ],
  ["sweep --report empty", ["sweep", "--vary", "workers=1,2", "--report", ""], "--report is empty"],
  [
    "reproduce --report a read-only directory",
    ["reproduce", "T4", "--no-calibration", "--report", readOnlyDir],
    "cannot be written",
  ],
  ["scan: block size above 64 MB", ["scan", dataFile, "--block-size", "100MB"], "--block-size"],
  [
    "calibrate --out the measured file",
    ["calibrate", dataFile, "--out", dataFile],
    "the file being measured",
  ],
  [
    "calibrate --out a link to the measured file",
    ["calibrate", dataFile, "--out", dataLink],
    "the file being measured",
  ],
  [
    "calibrate --out in a read-only directory",
    ["calibrate", dataFile, "--no-readahead", "--out", join(readOnlyDir, "p.json")],
    "cannot be written",
  ],
  [
    "profiles show a missing file",
    ["profiles", "show", join(dir, "missing.json")],
    "profiles: profiles show",
  ],
  ["trace too large to read", ["trace", "import", hugeTrace], "more than the"],
  ["gzip-compressed trace", ["trace", "import", gzTrace], "gzip"],
];

afterAll(() => {
  chmodSync(readOnlyDir, 0o755);
  rmSync(dir, { recursive: true, force: true });
});

describe("bad input: exit 2 and one line naming the problem", () => {
  it("has at least 30 cases", () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
  });
  it.concurrent.each(cases)("%s", async (_name, args, mentions) => {
    const asNobody = args.some((a) => a === unreadable || a.startsWith(readOnlyDir));
    // cwd: a case that wrongly writes into it writes into the temp directory.
    // The same memory cap and hang detector as bad-input-table.test.ts (see its header for the sizes).
    const guard = { env: { NODE_OPTIONS: "--max-old-space-size=500" }, timeoutMs: 60_000 };
    const r = await runBin(
      args,
      asNobody && asRoot ? { uid: 65534, cwd: dir, ...guard } : { cwd: dir, ...guard },
    );
    expect(r.hung, "still running after 60 s").toBeUndefined();
    const lines = r.stderr.trimEnd().split("\n");
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 2 });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^scanlab/);
    expect(lines[0]).toContain(mentions);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe("");
  });
  it("prints the stack trace of a user error only with --debug", async () => {
    const r = await runBin(["simulate", "--os", "solaris", "--debug"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/\n\s+at /);
  });
});
