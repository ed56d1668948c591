/**
 * User errors of `@scanlab/bitmap-prefetch`.
 *
 * Everything a user can get wrong (a setting outside the range PostgreSQL
 * accepts, a bitmap built out of order) throws a
 * {@link BitmapPrefetchError}: one sentence naming what was wrong, a stable
 * `code` and `name = "BitmapPrefetchError"`; it extends `ScanlabError`
 * (`@scanlab/core`), so the CLI recognises it with `ScanlabError.isInstance`
 * without importing this package. Programming errors (calling a
 * state machine out of order, for example `pageRead` before `beginPage`)
 * throw plain `Error`s.
 */

import { ScanlabError } from "@scanlab/core";

/** Stable codes of {@link BitmapPrefetchError}; new codes may be added, existing ones never change meaning. */
export type BitmapPrefetchErrorCode =
  | "BITMAP_PREFETCH_BAD_EIC"
  | "BITMAP_PREFETCH_BAD_PARAMETER"
  | "BITMAP_PREFETCH_BAD_BITMAP";

/**
 * A mistake the user made (bad parameter, bad bitmap), with one clear sentence.
 *
 * @example
 * ```ts
 * try {
 *   new BitmapHeapScanPrefetcher(bitmap, { effectiveIoConcurrency: 5000 });
 * } catch (e) {
 *   if (e instanceof BitmapPrefetchError) console.error(e.code, e.message);
 * }
 * ```
 */
export class BitmapPrefetchError extends ScanlabError {
  /** Stable machine-readable code. */
  declare readonly code: BitmapPrefetchErrorCode;

  /** @param code stable code; @param message one sentence naming what was wrong. */
  constructor(code: BitmapPrefetchErrorCode, message: string) {
    super(message, { code });
    this.name = "BitmapPrefetchError";
  }
}

/** Throws BITMAP_PREFETCH_BAD_PARAMETER unless `value` is an integer in [min, max]. @internal */
export function requireInteger(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new BitmapPrefetchError(
      "BITMAP_PREFETCH_BAD_PARAMETER",
      `${name} must be an integer from ${min} to ${max}, got ${String(value)}.`,
    );
  }
  return value;
}

/** Throws BITMAP_PREFETCH_BAD_PARAMETER unless `value` is a finite number > 0 (or >= 0 with allowZero). @internal */
export function requirePositive(name: string, value: number, allowZero = false): number {
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new BitmapPrefetchError(
      "BITMAP_PREFETCH_BAD_PARAMETER",
      `${name} must be a finite number ${allowZero ? ">= 0" : "> 0"}, got ${String(value)}.`,
    );
  }
  return value;
}
