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

export const PG18_READ_STREAM_MISMATCHES: readonly KnownMismatch[] = [
  {
    row: "read-streams",
    major: 18,
    caseName: "analyze maintenance_io_concurrency=16",
    why:
      "at one jump of ANALYZE's sample the server starts an advised read one buffer later than the model " +
      "(it reads the next sampled block first): not explained yet",
  },
];

/** Every known mismatch. */
export const KNOWN_MISMATCHES: readonly KnownMismatch[] = [...PG18_READ_STREAM_MISMATCHES];
