/**
 * Cases where a real server and the model disagree and the model is not fixed
 * yet: each entry names the row, version and case, and why. The replay test
 * marks them `it.fails`, so a fix (or a changed capture) that makes them agree
 * turns the test red until the entry is removed.
 */
export interface KnownMismatch {
  /** Row (fixture directory). */
  row: string;
  /** Major version. */
  major: number;
  /** Case name. */
  caseName: string;
  /** The mismatch, in one sentence. */
  why: string;
}

/** Every known mismatch. */
export const KNOWN_MISMATCHES: readonly KnownMismatch[] = [];
