/**
 * Which model stands for which real major version. The simulator models the
 * versions where a mechanism changed (9.6, 11, 13, 14, 17, 18); a major in
 * between runs the model of the newest modelled version at or below it,
 * because nothing the models cover changed in between: PG12 as 11 (the
 * atomic block counter of 11, commit 3cda10f41b, lasted until the chunked
 * allocator of 14, commit 56788d2156), PG15 and 16 as 14 (the chunked
 * allocator, the 13 bitmap prefetch ramp and pre-read-stream seq scans lasted
 * until 17's read streams, commit b5a9b18cd0). The conformance matrix is what
 * backs each of these mappings with a real server.
 */
import type { Pg13PrefetchOptions } from "@scanlab/bitmap-prefetch";
import type { AllocatorPolicy } from "@scanlab/block-allocator";
import { defaultAllocator, type PgVersion } from "@scanlab/simulator";
import type { Major } from "./fixtures.js";

const MODELLED: readonly { version: PgVersion; major: number }[] = [
  { version: "18", major: 18 },
  { version: "17", major: 17 },
  { version: "14", major: 14 },
  { version: "13", major: 13 },
  { version: "11", major: 11 },
  { version: "9.6", major: 9 },
];

/** The modelled version that stands for a real major. */
export function modelledVersion(major: number): PgVersion {
  const m = MODELLED.find((x) => x.major <= major);
  if (m === undefined) throw new Error(`no model for PostgreSQL ${major}`);
  return m.version;
}

/** The parallel seq scan allocator the simulator runs for a real major. */
export function allocatorFor(major: Major): AllocatorPolicy {
  return defaultAllocator(modelledVersion(major)) as AllocatorPolicy;
}

/**
 * The PG13-17 prefetcher's options the simulator uses for a real major's bitmap
 * heap scans (its default prefetch policy): up to 12 effective_io_concurrency
 * counts spindles, and up to 11 the iteration that ends a page does not
 * prefetch.
 */
export function bitmapPrefetchOptions(
  major: Major,
): Pick<Pg13PrefetchOptions, "eicFormula" | "prefetchOnExhaustedIteration"> {
  return { eicFormula: major >= 13 ? "pg13" : "pg84", prefetchOnExhaustedIteration: major >= 12 };
}
