/**
 * Errors a user of this package can cause: a path that does not exist or is a
 * directory, an empty file, a file they may not read, an option out of range,
 * a per-block work module that does not load, a read the device refused.
 * They follow the scanlab convention (apps/docs/src/reference/design.md#conventions): one clear
 * sentence naming what was wrong, `name` set to the class name,
 * and a stable `code`; they extend `ScanlabError` (`@scanlab/core`), so the
 * CLI recognises them with `ScanlabError.isInstance` without importing this
 * package. Programming errors throw plain `Error`s.
 *
 * Some situations are not errors but documented results (README, "Bad
 * input"): a size that is not a whole number of blocks (the partial last
 * block is read and reported), a file that shrinks during the scan (short
 * reads are counted and the result says so).
 */

import { ScanlabError } from "@scanlab/core";

/** Stable codes of {@link FileScanError}; new codes may be added, existing ones never change meaning. */
export type FileScanErrorCode =
  /** The target path does not exist (or cannot name a file: a symbolic-link loop, a path too long). */
  | "FILESCAN_NOT_FOUND"
  /** The target is a directory. */
  | "FILESCAN_IS_DIRECTORY"
  /** The target is not a regular file (a device, FIFO or socket). */
  | "FILESCAN_NOT_A_FILE"
  /** The target is empty: there is nothing to scan. */
  | "FILESCAN_EMPTY"
  /** The process may not open the target (EACCES / EPERM). */
  | "FILESCAN_PERMISSION_DENIED"
  /** The target has more blocks than a block number can address (2^32 - 1). */
  | "FILESCAN_TOO_LARGE"
  /** A relation segment is larger than the segment size, or the path is not a first segment. */
  | "FILESCAN_BAD_SEGMENT"
  /** An option is out of range or of the wrong type. */
  | "FILESCAN_BAD_OPTION"
  /** More workers than this machine's limit (worker-limit.ts: cores and memory). */
  | "FILESCAN_TOO_MANY_WORKERS"
  /** The per-block work module could not be loaded or does not export a function. */
  | "FILESCAN_BAD_WORK_MODULE"
  /** The per-block work callback threw. */
  | "FILESCAN_WORK_FAILED"
  /** The operating system refused a read (EIO and friends). */
  | "FILESCAN_READ_FAILED";

/** Codes of failures that happen while the scan runs (see {@link FileScanError.runtime}). */
const RUNTIME_CODES: ReadonlySet<FileScanErrorCode> = new Set([
  "FILESCAN_WORK_FAILED",
  "FILESCAN_READ_FAILED",
]);

/**
 * A problem a user can cause, with one sentence saying what was wrong.
 *
 * @example
 * ```ts
 * import { FileScanError, scanFile } from "@scanlab/file-scan";
 * try {
 *   await scanFile("/no/such/file");
 * } catch (e) {
 *   if (e instanceof FileScanError) console.log(e.code, e.message); // FILESCAN_NOT_FOUND ...
 * }
 * ```
 */
export class FileScanError extends ScanlabError {
  /**
   * True when the scan failed while running, not because of how it was asked (the work module threw,
   * the operating system refused a read): the CLI exits 1 for these and 2 for the others.
   */
  readonly runtime: boolean;
  /** Stable machine-readable code. */
  declare readonly code: FileScanErrorCode;

  /** @param code stable code; @param message one sentence naming what was wrong. */
  constructor(code: FileScanErrorCode, message: string) {
    super(message, { code });
    this.name = "FileScanError";
    this.runtime = RUNTIME_CODES.has(code);
  }
}

/** @internal The errno code of a Node system error, or undefined. */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error) {
    const code = (error as { code: unknown }).code;
    if (typeof code === "string") return code;
  }
  return undefined;
}

/** @internal The error for an option out of range or of the wrong type: `message` is the one sentence. */
export function badOption(message: string): FileScanError {
  return new FileScanError("FILESCAN_BAD_OPTION", message);
}
