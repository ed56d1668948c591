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

const PG11_BITMAP =
  "PostgreSQL 11 reads effective_io_concurrency as spindles (prefetch_maximum = rint(n H(n)), 54 for 16) and, " +
  "on the tuple-fetch iteration that finds a page exhausted, raises prefetch_target without prefetching " +
  "(nodeBitmapHeapscan.c BitmapHeapNext before the table AM rewrite of 12 checks rs_cindex before BitmapPrefetch); " +
  "the simulator runs the PG13-17 prefetcher for every version up to 17";

const PG11_BITMAP_MISMATCHES: readonly KnownMismatch[] = [
  "random 5% eic=16",
  "random 5% eic=64",
  "random-8 5% eic=16",
  "random-32 5% eic=16",
  "sequential 5% eic=16",
  "pgbench aid 1000..25000 eic=16",
].map((caseName) => ({ row: "bitmap-prefetch", major: 11, caseName, why: PG11_BITMAP }));

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
export const KNOWN_MISMATCHES: readonly KnownMismatch[] = [
  ...PG11_BITMAP_MISMATCHES,
  ...PG18_READ_STREAM_MISMATCHES,
];
