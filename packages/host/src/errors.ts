/**
 * Errors a user of this package can cause: a path to a file that is missing,
 * not a regular file, unreadable, too large, empty or not JSON. They follow
 * the scanlab convention: one clear sentence naming the file and what to do,
 * `name` set to the class name and a stable `code`; they extend `ScanlabError`
 * (`@scanlab/core`), so the CLI recognises them with `ScanlabError.isInstance`
 * without importing this package.
 */

import { ScanlabError } from "@scanlab/core";

/** Stable codes of {@link InputFileError}; new codes may be added, existing ones never change meaning. */
export type InputFileErrorCode =
  /** Nothing at the path (or a part of the path is not a directory). */
  | "INPUT_NOT_FOUND"
  /** The path is a directory. */
  | "INPUT_IS_DIRECTORY"
  /** The path is a device, a FIFO or a socket: not a file that can be read to its end. */
  | "INPUT_NOT_A_FILE"
  /** The file is larger than its kind's documented limit (`INPUT_LIMITS`). */
  | "INPUT_TOO_LARGE"
  /** The file holds nothing (or only white space). */
  | "INPUT_EMPTY"
  /** The file could not be examined or read (permission, symbolic-link loop, I/O error). */
  | "INPUT_UNREADABLE"
  /** The file is not valid JSON. */
  | "INPUT_BAD_JSON";

/**
 * A file a user named that cannot be used, with one sentence saying why.
 *
 * @example
 * ```ts
 * import { InputFileError, readInputText } from "@scanlab/host";
 * try {
 *   readInputText("/dev/zero", "scenario");
 * } catch (e) {
 *   if (e instanceof InputFileError) console.log(e.code, e.message); // INPUT_NOT_A_FILE ...
 * }
 * ```
 */
export class InputFileError extends ScanlabError {
  /** Stable machine-readable code. */
  declare readonly code: InputFileErrorCode;
  /** The path as the user gave it. */
  readonly path: string;

  /**
   * @param code stable code
   * @param message one sentence naming the file and what to do
   * @param path the path as given
   */
  constructor(code: InputFileErrorCode, message: string, path: string) {
    super(message, { code });
    this.name = "InputFileError";
    this.path = path;
  }
}
