/**
 * One error base class for every scanlab package.
 *
 * Problem: every package raised its own error class and branded it with a
 * duck-typed `userError = true`, so the CLI could recognise a user's mistake
 * without importing each class. Any object with that property passed, and
 * nothing said whether an error was the user's or ours.
 *
 * Insight: a class carrying a registered symbol (`Symbol.for`) is recognisable
 * across copies of the package (two versions in one `node_modules`, a bundle
 * and a workspace build), which `instanceof` is not; the symbol cannot be
 * forged by accident the way a plain property can.
 *
 * Design choices:
 * - `kind` says whose fault it is: `"user"` (bad input: one sentence, exit 2)
 *   or `"internal"` (a bug or an environment failure). The old `userError`
 *   property is kept, derived from `kind`, so code that read it still works.
 * - `code` is a stable machine-readable string; subclasses narrow its type.
 * - {@link ScanlabError.isInstance} checks the symbol, never the class.
 */

const MARKER = Symbol.for("scanlab.error");

/** Whose fault an error is: the user's input, or scanlab's (a bug, a failing environment). */
export type ScanlabErrorKind = "user" | "internal";

/** Options of {@link ScanlabError}. */
export interface ScanlabErrorOptions {
  /** Stable machine-readable code. */
  readonly code: string;
  /** Whose fault it is (default `"user"`). */
  readonly kind?: ScanlabErrorKind;
  /** The error that caused this one, if any. */
  readonly cause?: unknown;
}

/**
 * The base of every scanlab error: a message of one sentence, a stable `code`
 * and a `kind`.
 *
 * @example
 * ```ts
 * import { ScanlabError } from "@scanlab/core";
 * const e = new ScanlabError("size \"12 parsecs\" is not a size.", { code: "BAD_SIZE" });
 * console.log(ScanlabError.isInstance(e), e.kind, e.userError); // true user true
 * console.log(ScanlabError.isInstance({ userError: true })); // false
 * ```
 */
export class ScanlabError extends Error {
  /** Stable machine-readable code. */
  readonly code: string;
  /** Whose fault it is. */
  readonly kind: ScanlabErrorKind;
  /** True when {@link kind} is `"user"`: the brand older consumers looked for. */
  readonly userError: boolean;
  /** @param message one sentence naming what was wrong; @param options code, kind and cause. */
  constructor(message: string, options: ScanlabErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ScanlabError";
    this.code = options.code;
    this.kind = options.kind ?? "user";
    this.userError = this.kind === "user";
    // Not enumerable: spreading or serialising the error does not copy the marker.
    Object.defineProperty(this, MARKER, { value: true });
  }

  /** True for any `ScanlabError` (of any scanlab package), from this copy of `@scanlab/core` or another one. */
  static isInstance(value: unknown): value is ScanlabError {
    return typeof value === "object" && value !== null && (value as { [MARKER]?: unknown })[MARKER] === true;
  }
}

/**
 * The first line of an error's message without its trailing punctuation, for
 * ending a sentence of one's own with it: `cannot be read (${errorClause(e)}).`
 *
 * @example
 * ```ts
 * import { errorClause } from "@scanlab/core";
 * errorClause(new Error("ENOENT: no such file or directory, open 'x'.\n    at ...")); // "ENOENT: no such file or directory, open 'x'"
 * ```
 */
export function errorClause(error: unknown): string {
  const text =
    typeof error === "object" && error !== null && "message" in error
      ? String((error as { message: unknown }).message)
      : String(error);
  return (text.trim().split("\n")[0] ?? "").replace(/[.:;,\s]+$/, "");
}
