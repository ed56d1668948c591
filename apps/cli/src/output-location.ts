/**
 * Where a command's output goes (`--report DIR`, `calibrate --out FILE`),
 * checked before any work whose result would then be lost.
 *
 * The problem: a report or a profile is written at the end, after seconds to
 * minutes of simulation or measurement, so a location that cannot be written
 * must be found out first. Asking `access(W_OK)` is not enough: root passes
 * it for everything, including `/proc/version`, whose write then fails with
 * EIO; and `mkdir -p` in `/proc` does not fail at all: Node's recursive
 * `mkdirSync("/proc/x", { recursive: true })` gets ENOENT for `/proc/x`,
 * finds `/proc` present, and tries again forever.
 *
 * The insight: the honest test of "can I write here" is to write, in a way
 * that cannot harm the user's data:
 *
 * - a directory: create a uniquely named empty probe file in it and remove
 *   it again (`O_CREAT | O_EXCL`, so it can never be a file of the user's);
 * - an existing output file: open it for writing *without* `O_TRUNC`, so its
 *   contents are untouched, and write zero bytes (which a regular file
 *   accepts as a no-op and a kernel interface like `/proc/version` refuses),
 *   with `O_NONBLOCK` so that a FIFO without a reader cannot block the open.
 *
 * Missing directories of `--report` are created one level at a time (no
 * recursive mkdir), so each failure is one errno on one named directory.
 * Outputs that are devices, FIFOs or sockets are refused: a profile or a
 * report is a file the user keeps. So are outputs on the kernel's own file
 * systems (proc, sysfs, cgroup, debugfs and the like, told apart by their
 * `statfs` magic numbers from include/uapi/linux/magic.h): some of their
 * files accept a write (`/proc/sys/kernel/hostname`), and writing a report
 * there would change the machine, not save a file.
 */
import {
  closeSync,
  constants,
  mkdirSync,
  openSync,
  type Stats,
  statfsSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { CliError } from "./errors.js";

type OutputCode = "CLI_REPORT_DIR" | "CLI_OUT_NOT_WRITABLE";

function errno(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? String(e);
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch (e) {
    if (errno(e) === "ENOENT") return null;
    throw e;
  }
}

function kindOf(st: Stats): string {
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isFIFO()) return "a FIFO";
  if (st.isSocket()) return "a socket";
  return "not a regular file";
}

/** statfs f_type of the kernel's interface file systems (include/uapi/linux/magic.h). */
const KERNEL_FS: ReadonlyMap<number, string> = new Map([
  [0x9fa0, "proc"],
  [0x62656572, "sysfs"],
  [0x27e0eb, "cgroup"],
  [0x63677270, "cgroup2"],
  [0x64626720, "debugfs"],
  [0x74726163, "tracefs"],
  [0x73636673, "securityfs"],
  [0x62656570, "configfs"],
  [0xcafe4a11, "bpf"],
  [0xde5e81e4, "efivarfs"],
  [0x6165676c, "pstore"],
]);

/** The kernel file system `path` (which exists) lies on, or null for an ordinary one. */
function kernelFileSystem(path: string): string | null {
  try {
    return KERNEL_FS.get(Number(statfsSync(path).type)) ?? null;
  } catch {
    return null;
  }
}

let probeCount = 0;

/** Creates and removes an empty, uniquely named file in `dir`; the errno when that fails, else null. */
function probeDirectory(dir: string): string | null {
  const probe = join(dir, `.scanlab-write-probe-${process.pid}-${++probeCount}`);
  let fd: number;
  try {
    fd = openSync(
      probe,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NONBLOCK,
      0o600,
    );
  } catch (e) {
    return errno(e);
  }
  closeSync(fd);
  try {
    unlinkSync(probe);
  } catch (e) {
    return errno(e);
  }
  return null;
}

/** Opens an existing file for writing without truncating it and writes zero bytes; the errno, or null. */
function probeExistingFile(path: string): string | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
  } catch (e) {
    return errno(e);
  }
  try {
    writeSync(fd, Buffer.alloc(0));
    return null;
  } catch (e) {
    return errno(e);
  } finally {
    closeSync(fd);
  }
}

/**
 * Creates the `--report` directory (and missing parents, one at a time) after
 * checking that files can be written in it; returns its absolute path.
 */
export function prepareOutputDir(dir: string, flag = "--report"): string {
  const code: OutputCode = "CLI_REPORT_DIR";
  if (dir.trim() === "") {
    throw new CliError(code, `${flag} is empty: give a directory to write the report into.`);
  }
  const abs = resolve(dir);
  const refuse = (why: string) => new CliError(code, `${flag} ${dir} ${why}: give a writable directory.`);
  // The deepest part of the path that exists, and the parts below it to create.
  const missing: string[] = [];
  let at = abs;
  let st: Stats | null;
  for (;;) {
    try {
      st = statOrNull(at);
    } catch (e) {
      if (errno(e) === "ENOTDIR")
        throw refuse("cannot be created: a part of its path is a file, not a directory");
      throw refuse(`cannot be examined (${errno(e)})`);
    }
    if (st !== null || dirname(at) === at) break;
    missing.unshift(at);
    at = dirname(at);
  }
  if (st === null) throw refuse("cannot be created");
  if (!st.isDirectory()) {
    if (at === abs && st.isFile()) {
      throw new CliError(
        code,
        `${flag} ${dir} is a file, not a directory: give a directory to write the report into.`,
      );
    }
    throw refuse(
      at === abs ? `is ${kindOf(st)}, not a directory` : `cannot be created: ${at} is not a directory`,
    );
  }
  const fs = kernelFileSystem(at);
  if (fs !== null) throw refuse(`is on the kernel's ${fs} file system, where reports cannot be kept`);
  for (const part of missing) {
    try {
      mkdirSync(part);
    } catch (e) {
      throw refuse(`cannot be created (${errno(e)} on ${part})`);
    }
  }
  const failed = probeDirectory(abs);
  if (failed !== null) throw refuse(`cannot be written (${failed})`);
  return abs;
}

/**
 * Checks that `calibrate --out FILE` can be written: a regular file or a new
 * name, in an existing directory where files can be created, and (when the
 * file exists) open for writing. Returns the absolute path.
 */
export function checkOutputFile(file: string, flag = "--out"): string {
  const code: OutputCode = "CLI_OUT_NOT_WRITABLE";
  const out = resolve(file);
  const advice = "give a file in a writable directory, such as my-disk.json";
  let st: Stats | null;
  try {
    st = statOrNull(out);
  } catch (e) {
    throw new CliError(code, `${flag} ${file} cannot be examined (${errno(e)}): ${advice}.`);
  }
  if (st?.isDirectory()) {
    throw new CliError(
      "CLI_OUT_IS_DIRECTORY",
      `${flag} ${file} is a directory: give a file name such as my-disk.json.`,
    );
  }
  if (st !== null && !st.isFile()) {
    throw new CliError(code, `${flag} ${file} is ${kindOf(st)}, not a regular file: ${advice}.`);
  }
  const dir = dirname(out);
  const dirSt = statOrNull(dir);
  if (dirSt === null || !dirSt.isDirectory()) {
    throw new CliError("CLI_OUT_DIR_MISSING", `${flag} ${file}: the directory ${dir} does not exist.`);
  }
  const fs = kernelFileSystem(st === null ? dir : out);
  if (fs !== null) {
    throw new CliError(
      code,
      `${flag} ${file} is on the kernel's ${fs} file system, where a profile cannot be kept: ${advice}.`,
    );
  }
  // An existing file is written in place (its directory need not be writable); a new one is created.
  const failed = st === null ? probeDirectory(dir) : probeExistingFile(out);
  if (failed !== null) throw new CliError(code, `${flag} ${file} cannot be written (${failed}): ${advice}.`);
  return out;
}
