/**
 * Which model stands for which real major version: the simulator's own
 * mapping (`pgModel` of @scanlab/simulator, per mechanism), so the matrix
 * holds against real servers exactly what `scanlab simulate --pg N` runs. A
 * replay takes the mapping's models as a parameter, so the mapping test
 * (mapping.test.ts) can hand a row a wrong model and see it rejected.
 */
import type { EicFormula, Pg13PrefetchOptions } from "@scanlab/bitmap-prefetch";
import type { AllocatorPolicy } from "@scanlab/block-allocator";
import type { ReadStreamVersion } from "@scanlab/read-stream";
import { type PgModel, type PgVersion, pgModel } from "@scanlab/simulator";

/** The models the simulator runs for a real major. */
export function modelFor(major: number): PgModel {
  return pgModel(String(major) as PgVersion);
}

/** The parallel seq scan allocator of a model. */
export function allocatorOf(model: PgModel): AllocatorPolicy {
  return { kind: model.allocator } as AllocatorPolicy;
}

/**
 * The PG13-17 prefetcher's options of a model's bitmap heap scans: up to 12
 * effective_io_concurrency counts spindles, and up to 11 the iteration that
 * ends a page does not prefetch.
 */
export function bitmapPrefetchOptions(
  model: PgModel,
): Pick<Pg13PrefetchOptions, "eicFormula" | "prefetchOnExhaustedIteration"> {
  const spindles = model.bitmapPrefetch === "pg96" || model.bitmapPrefetch === "pg12";
  return {
    eicFormula: (spindles ? "pg84" : "pg13") as EicFormula,
    prefetchOnExhaustedIteration: model.bitmapPrefetch !== "pg96",
  };
}

/** read_stream.c's version of a model (17 for a model without read streams: 17's are the first). */
export function streamVersionOf(model: PgModel): ReadStreamVersion {
  return model.readStreams === "pg19" ? 19 : model.readStreams === "pg18" ? 18 : 17;
}
