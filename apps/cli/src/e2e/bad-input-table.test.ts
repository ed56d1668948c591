/**
 * Bad input, as a table: what a user (or an attacker) hands the built CLI,
 * the exit status it must give, and a fragment of the one sentence it must
 * print on stderr. Read it as documentation of what scanlab refuses and how.
 *
 * Every row runs `node dist/bin.js` in a child process
 * - with its V8 heap capped at 500 MB (NODE_OPTIONS=--max-old-space-size=500),
 *   so an input that makes the CLI read or build something huge fails its
 *   row by running out of memory instead of passing slowly;
 * - under a hang detector of 60 s. A refusal takes well under a second of
 *   CPU; the detector only has to tell "hangs" (a FIFO open, /dev/zero read
 *   to the end, a recursive mkdir in /proc: forever) from "slow because the
 *   2-core machine is busy with other test suites", where starting Node and
 *   loading the CLI alone has been seen to take 10 to 20 s;
 * - under GNU time when the machine has it, to check the peak resident set
 *   stays below 500 MB and to print each row's wall time and memory.
 *
 * Each row checks: the exit status; exactly one line on stderr, starting
 * with "scanlab" and containing the fragment; no stack trace line ("    at ");
 * nothing on stdout.
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  closeSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { getBuiltinProfile } from "@scanlab/device-profiles";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BinResult, runBin } from "./run-bin.js";

const HANG_MS = 60_000;
const HEAP_MB = 500;
const PEAK_RSS_KB = 500 * 1024;

const dir = mkdtempSync(join(tmpdir(), "scanlab-bad-table-"));
chmodSync(dir, 0o755);
const at = (name: string) => join(dir, name);
const file = (name: string, content: string | Buffer, mode = 0o644) => {
  writeFileSync(at(name), content);
  chmodSync(at(name), mode);
  return at(name);
};
const json = (name: string, value: unknown) => file(name, JSON.stringify(value));
/** A file of `bytes` that takes no disk space (ftruncate): large to stat, cheap to make. */
const sparse = (name: string, bytes: number) => {
  const fd = openSync(at(name), "w");
  ftruncateSync(fd, bytes);
  closeSync(fd);
  chmodSync(at(name), 0o644);
  return at(name);
};
const MiB = 2 ** 20;

// ---- Inputs -----------------------------------------------------------------------------------

type Json = Record<string, unknown>;
const scenario = (): Json & { machine: Json; tables: Json[]; queries: Json[] } => ({
  name: "ok",
  machine: { cores: 4, ram: "8GB", os: "linux-5.4", device: "intel-ssd-320-120gb" },
  tables: [{ name: "t", size: "64MB", tuplesPerPage: 226 }],
  queries: [{ name: "q", table: "t" }],
});
/** A scenario file with one change. */
const mutated = (name: string, change: (s: ReturnType<typeof scenario>) => void) => {
  const s = scenario();
  change(s);
  return json(name, s);
};
/** A scenario file with `key` added as an own property of the object at `path` ("" = top). */
const withKey = (name: string, path: string, key: string) => {
  const s = scenario();
  const target = path.split(".").reduce<unknown>((o, k) => (k === "" ? o : (o as Json)[k]), s);
  const marker = JSON.stringify(target);
  const inner = marker === "{}" ? "" : `,${marker.slice(1, -1)}`;
  return file(name, JSON.stringify(s).replace(marker, `{${JSON.stringify(key)}:{"x":1}${inner}}`));
};
const profile = () => JSON.parse(JSON.stringify(getBuiltinProfile("hdd-7200rpm"))) as Json;
const nvme = () => JSON.parse(JSON.stringify(getBuiltinProfile("samsung-990-pro-1tb"))) as Json;

const fifo = at("a-fifo");
const socketPath = at("a-socket");
let server: Server;
const dataFile = file("data.dat", Buffer.alloc(256 * 1024, 7));
const aDir = at("a-directory");
mkdirSync(aDir);
const loop = at("loop.json");
symlinkSync(loop, loop);
const dangling = at("dangling.json");
symlinkSync(at("nowhere.json"), dangling);
const notADir = file("plain.txt", "x");
const unreadable = file("unreadable.json", JSON.stringify(scenario()), 0o000);
const readOnlyDir = at("read-only");
mkdirSync(readOnlyDir);
writeFileSync(join(readOnlyDir, "existing.json"), "{}");
chmodSync(join(readOnlyDir, "existing.json"), 0o444);
chmodSync(readOnlyDir, 0o555);
const asRoot = process.getuid?.() === 0;

const huge = sparse("huge.json", 200 * MiB);
const truncated = file("truncated.json", JSON.stringify(scenario()).slice(0, 60));
const bomBroken = file("bom-broken.json", `\ufeff{"name": "x",`);
const bomOnly = file("bom-only.json", "\ufeff\n");
const utf16 = file(
  "utf16.json",
  Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(JSON.stringify(scenario()), "utf16le")]),
);
const binary = file("binary.dat", Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3, 0xff, 0xfe, 0, 0]));
const gzJson = file("scenario.json.gz", gzipSync(JSON.stringify(scenario())));
const whitespace = file("blank.json", "   \n\t\n");
const aString = file("string.json", '"simulate this"');
const nullJson = file("null.json", "null");
const aNumber = file("number.json", "42");
const profileAsScenario = json("profile-as-scenario.json", profile());

const hugeProfile = sparse("huge-profile.json", 2 * MiB);
const hugeTrace = sparse("huge.strace", 300 * MiB);
const hugeModule = sparse("huge-module.mjs", 20 * MiB);

const straceOpenOnly = file("openat.strace", '123 openat(AT_FDCWD, "/data/base/5/16384", O_RDONLY) = 5\n');
const straceFailed = file(
  "failed.strace",
  "123 pread64(5, 0x7ffd, 8192, 0) = -1 EBADF (Bad file descriptor)\n",
);
const traceGz = file("scan.strace.gz", gzipSync('123 pread64(5, ""..., 8192, 0) = 8192\n'));
const emptyTrace = file("empty.strace", "");
const blkparseNoReads = file(
  "writes.blk",
  "  8,0    1        1     0.000000000  1234  Q  WS 2048 + 8 [postgres]\n",
);

const modSyntax = file("syntax.mjs", "export default (bytes => {\n");
const modJson = file("work.json", '{"default": 1}');
const modNotFn = file("not-fn.mjs", "export default 42;\n");
const modNoDefault = file("no-default.mjs", "export const work = () => 0;\n");
const modThrowsOnLoad = file("throws-on-load.mjs", 'throw new Error("boom at load");\n');
const modMissingImport = file(
  "missing-import.mjs",
  'import "scanlab-no-such-package";\nexport default () => 0;\n',
);
const modEmpty = file("empty.mjs", "");

const reportFile = file("report-is-a-file", "x");

// ---- The table ----------------------------------------------------------------------------------

/** One row: what is given, the arguments, the exit status, a fragment of the sentence. */
interface Row {
  input: string;
  args: string[];
  exit: number;
  says: string;
  /** Run as nobody when the tests run as root (root reads and writes anything). */
  asNobody?: boolean;
}
const row = (input: string, args: string[], exit: number, says: string, asNobody = false): Row => ({
  input,
  args,
  exit,
  says,
  asNobody,
});

// biome-ignore format: one row per line, so the table reads as a table
const specialFiles: Row[] = [
  // Scenario files: simulate, sweep.
  row("/dev/zero as a scenario", ["simulate", "/dev/zero"], 2, "is a character device, not a regular file"),
  row("a FIFO as a scenario (no writer: the open must not wait)", ["simulate", fifo], 2, "is a FIFO (named pipe)"),
  row("a socket as a scenario", ["simulate", socketPath], 2, "is a socket, not a regular file"),
  row("a directory as a scenario", ["simulate", aDir], 2, "is a directory: give a file"),
  row("a 200 MB scenario file", ["simulate", huge], 2, "is 200 MiB, more than the 1 MiB a scenario file may be"),
  row("a 200 MB scenario file to sweep", ["sweep", huge, "--vary", "workers=1,2"], 2, "more than the 1 MiB"),
  row("/dev/zero to sweep", ["sweep", "/dev/zero", "--vary", "workers=1,2"], 2, "is a character device"),
  row("a FIFO to sweep", ["sweep", fifo, "--vary", "workers=1,2"], 2, "is a FIFO"),
  row("a truncated scenario", ["simulate", truncated], 2, "is not valid JSON"),
  row("a byte-order mark, then broken JSON", ["simulate", bomBroken], 2, "is not valid JSON"),
  row("a byte-order mark and nothing else", ["simulate", bomOnly], 2, "is empty"),
  row("a UTF-16 scenario", ["simulate", utf16], 2, "is not valid JSON"),
  row("white space only", ["simulate", whitespace], 2, "is empty"),
  row("a binary file as a scenario", ["simulate", binary], 2, "is not valid JSON"),
  row("a gzip-compressed scenario", ["simulate", gzJson], 2, "is not valid JSON"),
  row("a JSON string as a scenario", ["simulate", aString], 2, "holds a string, not a JSON object"),
  row("JSON null as a scenario", ["simulate", nullJson], 2, "holds null, not a JSON object"),
  row("a JSON number as a scenario", ["simulate", aNumber], 2, "holds a number, not a JSON object"),
  row("a symbolic-link loop as a scenario", ["simulate", loop], 2, "is a loop of symbolic links"),
  row("a dangling symbolic link as a scenario", ["simulate", dangling], 2, "does not exist: check the path"),
  row("a path through a file", ["simulate", join(notADir, "s.json")], 2, "a part of its path is a file"),
  row("an unreadable scenario", ["simulate", unreadable], 2, "cannot be read (permission denied)", true),
  row("a device profile given as a scenario", ["simulate", profileAsScenario], 2, "problems"),
  // Device profiles: --device, profiles show, sweep --vary device=, advise --device.
  row("/dev/zero as --device", ["simulate", "--device", "/dev/zero"], 2, "The --device file /dev/zero is a character device"),
  row("a FIFO as --device", ["simulate", "--device", fifo], 2, "is a FIFO"),
  row("a directory as --device", ["simulate", "--device", `${aDir}/`], 2, "is a directory"),
  row("a 2 MB profile", ["simulate", "--device", hugeProfile], 2, "more than the 1 MiB a device profile may be"),
  row("a symbolic-link loop as --device", ["simulate", "--device", loop], 2, "loop of symbolic links"),
  row("a truncated profile", ["simulate", "--device", truncated], 2, "is not valid JSON"),
  row("/dev/zero to profiles show", ["profiles", "show", "/dev/zero"], 2, "The profile file /dev/zero is a character device"),
  row("a FIFO to profiles show", ["profiles", "show", fifo], 2, "is a FIFO"),
  row("a socket to profiles show", ["profiles", "show", socketPath], 2, "is a socket"),
  row("a 2 MB file to profiles show", ["profiles", "show", hugeProfile], 2, "more than the 1 MiB"),
  row("/dev/zero in sweep --vary device=", ["sweep", "--vary", "device=/dev/zero,intel-ssd-320-120gb"], 2, "/dev/zero is a character device"),
  row("a FIFO in sweep --vary device=", ["sweep", "--vary", `device=intel-ssd-320-120gb,${fifo}`], 2, "is a FIFO"),
  row("/dev/zero as advise --device", ["advise", "--device", "/dev/zero", "--os", "linux-5.4", "--table-size", "1GB"], 2, "is a character device"),
  row("/dev/zero as scan --device", ["scan", dataFile, "--device", "/dev/zero"], 2, "is a character device"),
  // Traces.
  row("/dev/zero as a trace", ["trace", "import", "/dev/zero"], 2, "The trace /dev/zero is a character device"),
  row("a FIFO as a trace", ["trace", "import", fifo], 2, "is a FIFO"),
  row("a socket as a trace", ["trace", "import", socketPath], 2, "is a socket"),
  row("a directory as a trace", ["trace", "import", aDir], 2, "is a directory"),
  row("a 300 MB trace", ["trace", "import", hugeTrace], 2, "more than the 256 MiB a trace may be"),
  row("an empty trace", ["trace", "import", emptyTrace], 2, "is empty"),
  row("a binary file as a trace", ["trace", "import", binary], 2, "is neither an strace log"),
  row("a scenario file as a trace", ["trace", "import", dataFileAsTraceScenario()], 2, "is neither an strace log"),
  row("an strace log without reads", ["trace", "import", straceOpenOnly], 2, "neither"),
  row("an strace log of failed reads only", ["trace", "import", straceFailed], 2, "holds no successful pread64"),
  row("blkparse output of writes only", ["trace", "import", blkparseNoReads], 2, "holds no read events"),
  row("a gzip-compressed trace", ["trace", "import", traceGz], 2, "is gzip-compressed"),
  // Work modules (checked before any worker imports them).
  row("/dev/zero as a work module", ["scan", dataFile, "--work-module", "/dev/zero"], 2, "per-block work module /dev/zero is a character device"),
  row("a FIFO as a work module", ["scan", dataFile, "--work-module", fifo], 2, "is a FIFO"),
  row("a socket as a work module", ["scan", dataFile, "--work-module", socketPath], 2, "is a socket"),
  row("a directory as a work module", ["scan", dataFile, "--work-module", aDir], 2, "is a directory"),
  row("a 20 MB work module", ["scan", dataFile, "--work-module", hugeModule], 2, "more than the 16 MiB a work module may be"),
  row("an empty work module", ["scan", dataFile, "--work-module", modEmpty], 2, "is empty"),
  row("a missing work module", ["scan", dataFile, "--work-module", at("nope.mjs")], 2, "does not exist"),
  row("a work module that is not JavaScript", ["scan", dataFile, "--work-module", modSyntax], 2, "could not be loaded"),
  row("JSON as a work module", ["scan", dataFile, "--work-module", modJson], 2, "could not be loaded"),
  row("a work module without a default export", ["scan", dataFile, "--work-module", modNoDefault], 2, "must have a default export that is a function"),
  row("a work module whose default is a number", ["scan", dataFile, "--work-module", modNotFn], 2, "must have a default export that is a function"),
  row("a work module that throws when loaded", ["scan", dataFile, "--work-module", modThrowsOnLoad], 2, "boom at load"),
  row("a work module importing a missing package", ["scan", dataFile, "--work-module", modMissingImport], 2, "could not be loaded"),
  // Scan and calibrate targets.
  row("/dev/zero as the file to scan", ["scan", "/dev/zero"], 2, "is a character device; only regular files can be scanned"),
  row("a FIFO as the file to scan", ["scan", fifo], 2, "is a FIFO; only regular files"),
  row("a FIFO as the file to calibrate", ["calibrate", fifo], 2, "it is not a regular file"),
  // Read modes of scan (dataFile is 256 KiB: 32 blocks of 8 kB).
  row("scan --io-combine-limit 0", ["scan", dataFile, "--pg", "17", "--io-combine-limit", "0"], 2, '--io-combine-limit "0" comes to 0 blocks of 8 kB: it must be from 1 to 128'),
  row("scan --io-combine-limit 512kB on PG17", ["scan", dataFile, "--pg", "17", "--io-combine-limit", "512kB"], 2, "PostgreSQL 17 allows at most 32"),
  row("scan --io-combine-limit before PG17", ["scan", dataFile, "--pg", "16", "--io-combine-limit", "16"], 2, "--io-combine-limit sets a read stream, which sequential scans use from PostgreSQL 17"),
  row("scan --effective-io-concurrency 1001", ["scan", dataFile, "--pg", "18", "--effective-io-concurrency", "1001"], 2, "--effective-io-concurrency"),
  row("scan --pattern unknown", ["scan", dataFile, "--pattern", "sideways"], 2, '--pattern "sideways" is not known: use one of forward, backward, random'),
  row("scan --advise-distance beyond the file", ["scan", dataFile, "--pattern", "forward", "--advise-distance", "32"], 2, "the advise distance 32 is beyond the file: it has 32 blocks"),
  row("scan --advise-distance without --pattern", ["scan", dataFile, "--advise-distance", "4"], 2, "--advise-distance belongs to the prefetch reader"),
  row("scan --pattern with 2 workers", ["scan", dataFile, "--pattern", "random", "--workers", "2"], 2, "a prefetch pattern is read by one worker"),
];

function dataFileAsTraceScenario(): string {
  return json("scenario-as-trace.json", scenario());
}

// biome-ignore format: one row per line, so the table reads as a table
const strictFiles: Row[] = [
  row("a number as the name", ["simulate", mutated("name-number.json", (s) => (s.name = 5))], 2, 'field "name": must be a string, got 5'),
  row("a number as a table name", ["simulate", mutated("tname-number.json", (s) => (s.tables[0]!.name = 7))], 2, 'field "tables.0.name": must be a string'),
  row("null as munro2020's maxChunkBlocks", ["simulate", mutated("mcb-null.json", (s) => (s.queries[0]!.allocator = { kind: "munro2020", maxChunkBlocks: null }))], 2, 'field "queries.0.allocator.maxChunkBlocks": must be a number, got null'),
  row("a fraction of a microsecond as clientStagger", ["simulate", mutated("stagger-frac.json", (s) => (s.queries[0]!.clientStagger = 2.5e-7))], 2, "is not a whole number of microseconds"),
  row("tuplesPerPage 0.0001", ["simulate", mutated("tpp-tiny.json", (s) => (s.tables[0]!.tuplesPerPage = 0.0001))], 2, "from 1 to 291 (MaxHeapTuplesPerPage"),
  row("tuplesPerPage 292", ["simulate", mutated("tpp-292.json", (s) => (s.tables[0]!.tuplesPerPage = 292))], 2, "got 292"),
  row("tuplesPerPage 1e9", ["simulate", mutated("tpp-1e9.json", (s) => (s.tables[0]!.tuplesPerPage = 1e9))], 2, "got 1000000000"),
  row("1,025 workers", ["simulate", mutated("w1025.json", (s) => (s.queries[0]!.workers = 1025))], 2, "MAX_PARALLEL_WORKER_LIMIT"),
  row("1e6 cores", ["simulate", mutated("cores.json", (s) => (s.machine.cores = 1e6))], 2, 'field "machine.cores"'),
  row("readAheadKb 1e9", ["simulate", mutated("ra.json", (s) => (s.machine.osOptions = { readAheadKb: 1e9 }))], 2, "more than machine.ram"),
  row("maxSectorsKb 1e12", ["simulate", mutated("msk.json", (s) => (s.machine.osOptions = { maxSectorsKb: 1e12 }))], 2, "max_hw_sectors"),
  row("cpu.perPageUs 1e300", ["simulate", mutated("pp.json", (s) => (s.machine.cpu = { perPageUs: 1e300 }))], 2, 'field "machine.cpu.perPageUs"'),
  row("cpu.copyBytesPerUs 1e-300", ["simulate", mutated("cb.json", (s) => (s.machine.cpu = { copyBytesPerUs: 1e-300 }))], 2, "got 1e-300"),
  row("maxConnections 1e9", ["simulate", mutated("mc.json", (s) => (s.machine.maxConnections = 1e9))], 2, "MAX_BACKENDS"),
  row("a start 1e300 seconds away", ["simulate", mutated("start.json", (s) => (s.queries[0]!.start = 1e300))], 2, "is too long: the simulated clock"),
  row("table blocks 1e300", ["simulate", mutated("blocks.json", (s) => (s.tables[0] = { name: "t", blocks: 1e300, tuplesPerPage: 226 }))], 2, "MaxBlockNumber"),
  row("sampleEvery 0", ["simulate", mutated("sample0.json", (s) => (s.sampleEvery = 0))], 2, "a sample interval of 0 never advances"),
  row("__proto__ at the top", ["simulate", withKey("proto-top.json", "", "__proto__")], 2, 'field "__proto__": is not a field'),
  row("__proto__ in machine", ["simulate", withKey("proto-machine.json", "machine", "__proto__")], 2, 'field "machine.__proto__"'),
  row("__proto__ in a table", ["simulate", withKey("proto-table.json", "tables.0", "__proto__")], 2, 'field "tables.0.__proto__"'),
  row("constructor in a query", ["simulate", withKey("ctor-query.json", "queries.0", "constructor")], 2, 'field "queries.0.constructor"'),
  row("prototype at the top", ["simulate", withKey("prototype-top.json", "", "prototype")], 2, 'field "prototype"'),
  row("extraField in machine", ["simulate", withKey("extra-machine.json", "machine", "extraField")], 2, 'field "machine.extraField"'),
  row("extraField in an allocator", ["simulate", mutated("extra-alloc.json", (s) => (s.queries[0]!.allocator = { kind: "pg11", extraField: 1 }))], 2, 'field "queries.0.allocator.extraField"'),
  row("__proto__ in an inline device profile", ["simulate", file("proto-device.json", JSON.stringify({ ...scenario(), machine: { ...scenario().machine, device: profile() } }).replace('"kind":"hdd"', '"__proto__":{"kind":"nvme"},"kind":"hdd"'))], 2, 'field "__proto__" is not a field of a hdd profile'),
  row("five problems at once", ["simulate", mutated("five.json", (s) => { s.name = 5; s.machine.cores = 1e6; s.tables[0]!.tuplesPerPage = 292; s.queries[0]!.workers = 1025; s.queries[0]!.extraField = 1; })], 2, "5 problems"),
  row("a bad scenario given to sweep", ["sweep", mutated("sweep-bad.json", (s) => (s.queries[0]!.workers = 1025)), "--vary", "clients=1,2"], 2, "MAX_PARALLEL_WORKER_LIMIT"),
  row("a negative size in bytes", ["simulate", mutated("neg-size.json", (s) => (s.tables[0]!.size = -1))], 2, "whole number of bytes"),
  row("ram of 2^53 + 1 written as text", ["simulate", mutated("ram-text.json", (s) => (s.machine.ram = "9007199254740993"))], 2, "is too large"),
  row("an unknown OS", ["simulate", mutated("os.json", (s) => (s.machine.os = "solaris"))], 2, 'field "machine.os": "solaris" is not an OS this simulator models; use linux-4.20 to linux-6.18'),
  row("a selectivity above 1", ["simulate", mutated("sel.json", (s) => { s.queries[0]!.kind = "bitmap"; s.queries[0]!.bitmap = { dataset: "random", selectivity: 1.5 }; })], 2, "must be at most 1"),
];

// biome-ignore format: one row per line, so the table reads as a table
const strictFlags: Row[] = [
  row("--ram 9007199254740993 (not a safe integer)", ["simulate", "--ram", "9007199254740993"], 2, '--ram "9007199254740993" is too large'),
  row("--tuples-per-page 0.5", ["simulate", "--tuples-per-page", "0.5"], 2, "write a whole number from 1 to 291"),
  row("--tuples-per-page 292", ["simulate", "--tuples-per-page", "292"], 2, "from 1 to 291"),
  row("--client-stagger 2^53 + 1 seconds", ["simulate", "--client-stagger", "9007199254740993"], 2, "is too long: the simulated clock"),
  row("--client-stagger 2^53+1 as typed", ["simulate", "--client-stagger", "2^53+1"], 2, "is not a duration"),
  row("--client-stagger 0.5us", ["simulate", "--client-stagger", "0.5us"], 2, "not a whole number of microseconds"),
  row("--duration 0.1us", ["simulate", "--duration", "0.1us"], 2, "not a whole number of microseconds"),
  row("--workers 1025", ["simulate", "--workers", "1025"], 2, "from 0 to 1024"),
  row("--cores 1000000", ["simulate", "--cores", "1000000"], 2, "from 1 to 8192"),
  row("--read-ahead-kb 1e9 (not a whole number as written)", ["simulate", "--read-ahead-kb", "1e9"], 2, "--read-ahead-kb"),
  row("--read-ahead-kb above the RAM", ["simulate", "--read-ahead-kb", "100000000"], 2, "more than machine.ram"),
  row("--max-sectors-kb 1000000000000", ["simulate", "--max-sectors-kb", "1000000000000"], 2, "--max-sectors-kb"),
  row("--max-connections 1000000000", ["simulate", "--max-connections", "1000000000"], 2, "from 1 to 262143"),
  row("--shared-buffers 100TB", ["simulate", "--shared-buffers", "100TB", "--ram", "200TB"], 2, "shared_buffers in guc_tables.c"),
  row("--ram 5000TB (above 4 PiB)", ["simulate", "--ram", "5000TB"], 2, "MAXPHYADDR"),
  row("--table-size 1.5 bytes", ["simulate", "--table-size", "1.5"], 2, "--table-size"),
  row("--table-blocks 4294967295", ["simulate", "--table-blocks", "4294967295"], 2, "from 1 to 4294967294"),
  row("--seed -1", ["simulate", "--seed", "-1"], 2, "--seed"),
  row("sweep --vary tuples-per-page=0.5,1", ["sweep", "--vary", "tuples-per-page=0.5,1"], 2, "--tuples-per-page"),
  row("sweep --vary workers=1,1025", ["sweep", "--vary", "workers=1,1025"], 2, "from 0 to 1024"),
  row("advise --tuples-per-page 0.5", ["advise", "--device", "hdd-7200rpm", "--os", "linux-5.4", "--table-size", "1GB", "--tuples-per-page", "0.5"], 2, "--tuples-per-page"),
  row("advise --ram 9007199254740993", ["advise", "--device", "hdd-7200rpm", "--os", "linux-5.4", "--table-size", "1GB", "--ram", "9007199254740993"], 2, "is too large"),
];

// biome-ignore format: one row per line, so the table reads as a table
const badProfiles: Row[] = [
  row("a profile of kind tape", ["profiles", "show", json("tape.json", { ...profile(), kind: "tape" })], 2, 'field "kind" must be one of'),
  row("a latency of 1e300 us", ["profiles", "show", json("lat.json", { ...nvme(), readLatencyQd1Us: 1e300 })], 2, '"readLatencyQd1Us" must be at most 30000000'),
  row("a negative rpm", ["profiles", "show", json("rpm.json", { ...profile(), rpm: -7200 })], 2, '"rpm" must be greater than 0'),
  row("a latency in the wrong unit", ["profiles", "show", json("unit.json", { ...nvme(), readLatencyQd1Ms: 0.05, readLatencyQd1Us: undefined })], 2, "has the wrong unit"),
  row("__proto__ in a profile", ["profiles", "show", file("proto-profile.json", `{"__proto__":{"x":1},${JSON.stringify(profile()).slice(1)}`)], 2, 'field "__proto__" is not a field'),
  row("extraField in a profile", ["simulate", "--device", json("extra-profile.json", { ...profile(), extraField: true })], 2, 'field "extraField"'),
  row("a number as a profile name", ["simulate", "--device", json("pname.json", { ...profile(), name: 5 })], 2, 'field "name" must be a string'),
  row("a profile missing its figures", ["profiles", "show", json("bare.json", { kind: "nvme", name: "x" })], 2, "problems"),
  row("a JSON array as a profile", ["profiles", "show", file("array-profile.json", "[1,2]")], 2, "must be a JSON object"),
  row("a fractional queue depth", ["simulate", "--device", json("qd.json", { ...nvme(), randomReadQueueDepth: 2.5 })], 2, "must be an integer"),
];

// biome-ignore format: one row per line, so the table reads as a table
const outputs: Row[] = [
  row("sweep --report in /proc", ["sweep", "--table-size", "64MB", "--vary", "workers=1,2", "--report", "/proc/scanlab-x"], 2, "--report /proc/scanlab-x is on the kernel's proc file system"),
  row("reproduce --report in /proc", ["reproduce", "T4", "--report", "/proc/scanlab-x"], 2, "--report /proc/scanlab-x is on the kernel's proc file system"),
  row("reproduce --report in /sys", ["reproduce", "T4", "--report", "/sys/scanlab-x/y"], 2, "sysfs"),
  row("calibrate --out /proc/version", ["calibrate", dataFile, "--out", "/proc/version"], 2, "--out /proc/version is on the kernel's proc file system"),
  row("calibrate --out a FIFO", ["calibrate", dataFile, "--out", fifo], 2, "is a FIFO, not a regular file"),
  row("calibrate --out /dev/null", ["calibrate", dataFile, "--out", "/dev/null"], 2, "is a character device, not a regular file"),
  row("sweep --report through a file", ["sweep", "--vary", "workers=1,2", "--report", join(reportFile, "sub")], 2, "a part of its path is a file"),
  row("sweep --report a file", ["sweep", "--vary", "workers=1,2", "--report", reportFile], 2, "is a file, not a directory"),
  row("calibrate --out a new file in a read-only directory", ["calibrate", dataFile, "--out", join(readOnlyDir, "p.json")], 2, "cannot be written (EACCES)", true),
  row("calibrate --out a read-only file", ["calibrate", dataFile, "--out", join(readOnlyDir, "existing.json")], 2, "cannot be written (EACCES)", true),
  row("sweep --report a new directory in a read-only one", ["sweep", "--vary", "workers=1,2", "--report", join(readOnlyDir, "new")], 2, "cannot be created (EACCES", true),
];

const table: [string, Row[]][] = [
  ["special and broken files", specialFiles],
  ["scenario files the schema refuses", strictFiles],
  ["flags the schema refuses", strictFlags],
  ["device profiles with bad fields", badProfiles],
  ["outputs that cannot be written", outputs],
];

// ---- Running it ---------------------------------------------------------------------------------

beforeAll(async () => {
  const r = spawnSync("mkfifo", [fifo]);
  if (r.status !== 0) throw new Error(`mkfifo: ${r.stderr}`);
  chmodSync(fifo, 0o666);
  server = createServer();
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
});

const usage: { input: string; wallS: number; peakRssKb: number }[] = [];
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  chmodSync(readOnlyDir, 0o755);
  rmSync(dir, { recursive: true, force: true });
  if (usage.length > 0) {
    const slowest = [...usage].sort((a, b) => b.wallS - a.wallS)[0]!;
    const largest = [...usage].sort((a, b) => b.peakRssKb - a.peakRssKb)[0]!;
    console.log(
      `bad-input table: ${usage.length} rows; slowest ${slowest.wallS.toFixed(2)} s (${slowest.input}); largest ${(largest.peakRssKb / 1024).toFixed(0)} MB (${largest.input})`,
    );
  }
});

async function run(r: Row): Promise<BinResult> {
  return runBin(r.args, {
    cwd: dir,
    env: { NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}` },
    timeoutMs: HANG_MS,
    measure: true,
    ...(r.asNobody && asRoot ? { uid: 65534 } : {}),
  });
}

/**
 * Rows of `strictFiles` the scenario's JSON Schema cannot refuse, and why:
 * the simulator refuses them (the rows above), an editor cannot.
 */
const BEYOND_JSON_SCHEMA: Record<string, string> = {
  "a fraction of a microsecond as clientStagger":
    "a number of seconds is a whole number of microseconds only after scaling",
  "readAheadKb 1e9": "it is compared with machine.ram, another field",
  "a start 1e300 seconds away": "the bound is on the simulated clock in microseconds, after scaling",
  "sampleEvery 0": "a duration is a number or a text with a unit; zero is refused once either is read",
  "ram of 2^53 + 1 written as text": "a size written as text is read by the simulator's size grammar",
  "a negative size in bytes":
    "sizes are a number or a text with a unit; the number's bounds depend on the field",
  "__proto__ in an inline device profile":
    "an inline device profile is checked by @scanlab/device-profiles, not by the scenario's schema",
};

describe("the scenario's JSON Schema (@scanlab/simulator/scenario.schema.json)", () => {
  const schema = createRequire(import.meta.url)("@scanlab/simulator/scenario.schema.json") as object;
  const validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema);
  const files = strictFiles.filter((r) => /\.json$/.test(r.args[1] ?? ""));

  it("refuses every scenario file of the table that a schema can judge", () => {
    const accepted = files
      .filter((r) => validate(JSON.parse(readFileSync(r.args[1]!, "utf8"))))
      .map((r) => r.input);
    expect(files.length).toBeGreaterThanOrEqual(25);
    expect(accepted.sort()).toEqual(Object.keys(BEYOND_JSON_SCHEMA).sort());
  });

  it("accepts the valid scenario those files were made from", () => {
    expect(validate(scenario()), JSON.stringify(validate.errors)).toBe(true);
  });
});

describe("the bad-input table", () => {
  it("has every case of the reliability list and more than 60 besides", () => {
    const rows = table.flatMap(([, rows]) => rows);
    // The reliability list has about 45 cases (special files per command, each strictness case as a
    // file and as a flag, unwritable outputs); the rest are the realistic mistakes around them.
    expect(rows.length).toBeGreaterThanOrEqual(45 + 60);
    expect(new Set(rows.map((r) => r.input)).size).toBe(rows.length);
  });

  for (const [group, rows] of table) {
    describe(group, () => {
      it.concurrent.each(rows.map((r) => [r.input, r] as const))("%s", async (_input, r) => {
        const result = await run(r);
        expect(result.hung, `${r.input}: still running after ${HANG_MS / 1000} s`).toBeUndefined();
        if (result.usage) {
          usage.push({ input: r.input, ...result.usage });
          expect(result.usage.peakRssKb, "peak RSS (kB)").toBeLessThan(PEAK_RSS_KB);
        }
        const lines = result.stderr.trimEnd().split("\n");
        expect({ exit: result.code, stderr: result.stderr }).toMatchObject({ exit: r.exit });
        expect(lines, result.stderr).toHaveLength(1);
        expect(lines[0]).toMatch(/^scanlab /);
        expect(lines[0]).toContain(r.says);
        expect(result.stderr).not.toMatch(/\n\s+at /);
        expect(result.stdout).toBe("");
      });
    });
  }
});
