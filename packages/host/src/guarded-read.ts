/**
 * Reading a file a user named, without trusting what is at the path.
 *
 * The problem: a path on a command line can name anything. `/dev/zero` or
 * `/dev/urandom` never end, so reading one "whole" fills memory until the
 * process is killed; a FIFO blocks the `open()` itself until a writer comes,
 * so the command hangs; a socket cannot be opened; a directory is not text;
 * and a 200 MB file given as a scenario is parsed for minutes before it is
 * found not to be one. Node's `readFileSync` does none of these checks.
 *
 * The insight: the kernel says what a path is before anything is read, and a
 * descriptor pins the answer. So every read goes through one sequence:
 *
 1. `open` the path with `O_RDONLY | O_NONBLOCK | O_NOCTTY`. `O_NONBLOCK`
 *    makes the open of a FIFO return at once instead of waiting for a writer;
 *    `O_NOCTTY` keeps a terminal device from becoming our controlling
 *    terminal; on a regular file neither flag changes how reads behave. A
 *    socket cannot be opened at all (ENXIO), which is refused as such.
 * 2. `fstat` the descriptor. A directory, device or FIFO is refused by its
 *    type, and a regular file above its kind's limit (`input-limits.ts`) by
 *    its size, before a byte is read. Asking the descriptor rather than the
 *    path (`stat`) means the answer holds for the bytes we then read, whatever
 *    is renamed over the path in between.
 * 3. Read from that descriptor, never more than the limit plus one byte, so a
 *    file that grows while it is read (or a file in /proc, whose size says 0)
 *    is refused instead of read without end.
 *
 * Design choices:
 * - Every failure is an {@link InputFileError}: one sentence naming the file
 *   as the user wrote it, what it is, and what to do. A symbolic-link loop,
 *   a path component that is a file, a path that is too long, a permission
 *   denied: each has its own sentence rather than a raw errno.
 * - Symbolic links are followed (a profile kept under version control and
 *   linked into place is normal); the checks apply to what they point at.
 * - Text is decoded as UTF-8 with a leading byte-order mark dropped (Windows
 *   editors write one), and a file of only white space is refused as empty.
 * - A work module is not read here but imported by Node; {@link checkInputFile}
 *   runs steps 1 and 2 so that `import()` is only ever given a regular file of
 *   bounded size.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from "node:fs";
import { InputFileError } from "./errors.js";
import { INPUT_LIMITS, type InputKind } from "./input-limits.js";

/** Options of the guarded reads. */
export interface InputFileOptions {
  /**
   * How the file is named in messages, after "The" (default: the kind's noun,
   * e.g. "scenario file"); the CLI passes "--device file" and the like.
   */
  readonly what?: string;
}

/** A file that passed the checks. */
export interface CheckedInputFile {
  /** The path as given. */
  readonly path: string;
  /** Its size in bytes when it was checked. */
  readonly bytes: number;
}

const MiB = 2 ** 20;

function subject(path: string, kind: InputKind, options: InputFileOptions): string {
  return `The ${options.what ?? INPUT_LIMITS[kind].noun} ${path}`;
}

function sizeText(bytes: number): string {
  if (bytes < MiB) return `${bytes} bytes`;
  return `${+(bytes / MiB).toFixed(bytes >= 10 * MiB ? 0 : 1)} MiB`;
}

/** What a non-regular file is, in words. */
function typeOf(st: Stats): string {
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isFIFO()) return "a FIFO (named pipe)";
  if (st.isSocket()) return "a socket";
  return "not a regular file";
}

function errnoOf(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | null)?.code;
}

/** One sentence for a failed stat or open. */
function accessError(e: unknown, path: string, kind: InputKind, options: InputFileOptions): InputFileError {
  const who = subject(path, kind, options);
  const code = errnoOf(e);
  switch (code) {
    case "ENOENT":
      return new InputFileError("INPUT_NOT_FOUND", `${who} does not exist: check the path.`, path);
    case "ENOTDIR":
      return new InputFileError(
        "INPUT_NOT_FOUND",
        `${who} does not exist (a part of its path is a file, not a directory): check the path.`,
        path,
      );
    case "ELOOP":
      return new InputFileError(
        "INPUT_UNREADABLE",
        `${who} cannot be read: its path is a loop of symbolic links.`,
        path,
      );
    case "ENAMETOOLONG":
      return new InputFileError(
        "INPUT_UNREADABLE",
        `${who} cannot be read: its path, or a name in it, is too long.`,
        path,
      );
    case "EACCES":
    case "EPERM":
      return new InputFileError(
        "INPUT_UNREADABLE",
        `${who} cannot be read (permission denied): check its permissions.`,
        path,
      );
    case "ENXIO": {
      // open() of a socket, or of a device with no driver behind it: stat says which.
      let what = "not a regular file (a socket or a device)";
      try {
        const st = statSync(path);
        if (st.isSocket()) what = "a socket, not a regular file";
        else if (st.isCharacterDevice() || st.isBlockDevice())
          what = "a device with nothing behind it, not a regular file";
      } catch {
        // keep the general words
      }
      return new InputFileError("INPUT_NOT_A_FILE", `${who} is ${what}: give a regular file.`, path);
    }
    case "ERR_INVALID_ARG_VALUE":
    case "ERR_INVALID_ARG_TYPE":
      return new InputFileError(
        "INPUT_UNREADABLE",
        `${who} cannot be read: the path is not a valid file name (a NUL byte in it?).`,
        path,
      );
    default:
      return new InputFileError(
        "INPUT_UNREADABLE",
        `${who} cannot be read (${code ?? String((e as Error)?.message ?? e).split("\n")[0]}).`,
        path,
      );
  }
}

/** Refuses anything but a regular file within the kind's limit. */
function checkStats(st: Stats, path: string, kind: InputKind, options: InputFileOptions): void {
  const who = subject(path, kind, options);
  if (st.isDirectory()) {
    throw new InputFileError("INPUT_IS_DIRECTORY", `${who} is a directory: give a file.`, path);
  }
  if (!st.isFile()) {
    throw new InputFileError(
      "INPUT_NOT_A_FILE",
      `${who} is ${typeOf(st)}, not a regular file: give a regular file.`,
      path,
    );
  }
  const limit = INPUT_LIMITS[kind];
  if (st.size > limit.maxBytes) throw tooLarge(st.size, path, kind, options);
}

/** `bytes` is the size fstat gave, or null for a file that grew past the limit while it was read. */
function tooLarge(
  bytes: number | null,
  path: string,
  kind: InputKind,
  options: InputFileOptions,
): InputFileError {
  const limit = INPUT_LIMITS[kind];
  // A size that rounds to the limit's own figure is given in bytes, so the two never read the same.
  const shown =
    bytes === null ? "" : sizeText(bytes) === sizeText(limit.maxBytes) ? `${bytes} bytes` : sizeText(bytes);
  const size = bytes === null ? "grew while it was read, to" : `is ${shown},`;
  return new InputFileError(
    "INPUT_TOO_LARGE",
    `${subject(path, kind, options)} ${size} more than the ${sizeText(limit.maxBytes)} a ${limit.noun} may be: ${limit.advice}.`,
    path,
  );
}

/** Steps 1 and 2 of the file header: a descriptor on a regular file within the limit, and its size. */
function openChecked(
  path: string,
  kind: InputKind,
  options: InputFileOptions,
): { fd: number; bytes: number } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (e) {
    throw accessError(e, path, kind, options);
  }
  try {
    const st = fstatSync(fd);
    checkStats(st, path, kind, options);
    return { fd, bytes: st.size };
  } catch (e) {
    closeSync(fd);
    throw e instanceof InputFileError ? e : accessError(e, path, kind, options);
  }
}

/**
 * Checks that `path` is a regular, non-empty file within the limit of its
 * kind, without reading it (for files another reader opens, such as a work
 * module that `import()` loads).
 *
 * @param path the path as the user gave it
 * @param kind what the file is; picks the size limit (`INPUT_LIMITS`)
 * @param options how to name the file in messages
 * @throws InputFileError when it is missing, not a regular file, too large, empty or unreadable
 *
 * @example
 * ```ts
 * import { checkInputFile } from "@scanlab/host";
 * const { bytes } = checkInputFile("work.mjs", "work-module");
 * ```
 */
export function checkInputFile(
  path: string,
  kind: InputKind,
  options: InputFileOptions = {},
): CheckedInputFile {
  const { fd, bytes } = openChecked(path, kind, options);
  closeSync(fd);
  if (bytes === 0) {
    throw new InputFileError("INPUT_EMPTY", `${subject(path, kind, options)} is empty.`, path);
  }
  return { path, bytes };
}

/**
 * Reads a file the user named, whole, after the checks of the file header.
 *
 * @param path the path as the user gave it
 * @param kind what the file is; picks the size limit (`INPUT_LIMITS`)
 * @param options how to name the file in messages
 * @returns the file's bytes
 * @throws InputFileError when it is missing, not a regular file, too large or unreadable
 *
 * @example
 * ```ts
 * import { readInputFile } from "@scanlab/host";
 * const bytes = readInputFile("profile.json", "device-profile");
 * ```
 */
export function readInputFile(path: string, kind: InputKind, options: InputFileOptions = {}): Buffer {
  const { fd, bytes } = openChecked(path, kind, options);
  const max = INPUT_LIMITS[kind].maxBytes;
  try {
    // Room for what fstat said plus one byte, to see a file that grew; grown on demand up to max + 1.
    let buf = Buffer.allocUnsafe(Math.min(bytes, max) + 1);
    let filled = 0;
    for (;;) {
      if (filled === buf.length) {
        if (buf.length > max) throw tooLarge(null, path, kind, options);
        const bigger = Buffer.allocUnsafe(Math.min(buf.length * 2, max + 1));
        buf.copy(bigger, 0, 0, filled);
        buf = bigger;
      }
      let n: number;
      try {
        n = readSync(fd, buf, filled, buf.length - filled, null);
      } catch (e) {
        throw accessError(e, path, kind, options);
      }
      if (n === 0) break;
      filled += n;
    }
    if (filled > max) throw tooLarge(null, path, kind, options);
    return buf.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a text file the user named: UTF-8, a leading byte-order mark
 * dropped, refused when it holds only white space.
 *
 * @param path the path as the user gave it
 * @param kind what the file is; picks the size limit (`INPUT_LIMITS`)
 * @param options how to name the file in messages
 * @throws InputFileError as {@link readInputFile}, and `INPUT_EMPTY`
 *
 * @example
 * ```ts
 * import { readInputText } from "@scanlab/host";
 * const log = readInputText("scan.strace", "trace");
 * ```
 */
export function readInputText(path: string, kind: InputKind, options: InputFileOptions = {}): string {
  let text = readInputFile(path, kind, options).toString("utf8");
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (!/\S/.test(text)) {
    throw new InputFileError("INPUT_EMPTY", `${subject(path, kind, options)} is empty.`, path);
  }
  return text;
}

/**
 * Reads and parses a JSON file the user named (see {@link readInputText}).
 *
 * @param path the path as the user gave it
 * @param kind what the file is; picks the size limit (`INPUT_LIMITS`)
 * @param options how to name the file in messages
 * @returns the parsed value (`JSON.parse` keeps a `"__proto__"` key as an own property; a strict schema should refuse it)
 * @throws InputFileError as {@link readInputText}, and `INPUT_BAD_JSON`
 *
 * @example
 * ```ts
 * import { readInputJson } from "@scanlab/host";
 * const scenario = readInputJson("scenario.json", "scenario");
 * ```
 */
export function readInputJson(path: string, kind: InputKind, options: InputFileOptions = {}): unknown {
  const text = readInputText(path, kind, options);
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    const why = (e as Error).message.replace(/\s+/g, " ").trim();
    throw new InputFileError(
      "INPUT_BAD_JSON",
      `${subject(path, kind, options)} is not valid JSON (${why.length > 160 ? `${why.slice(0, 157)}...` : why}).`,
      path,
    );
  }
}
