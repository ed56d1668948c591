/**
 * The read stream port bound to @scanlab/read-stream's `ReadStream`
 * (read_stream.c of PostgreSQL 17, 18 and 19).
 *
 * The problem: a read stream's look-ahead is sized by the backend's pin
 * limit, which PostgreSQL derives from shared_buffers and MaxBackends +
 * NUM_AUXILIARY_PROCS, and the model package states that count for the
 * default settings of each version. The engine knows max_connections, not
 * the model's constants.
 *
 * The insight: everything else the stream needs is a PostgreSQL setting the
 * engine already speaks of ({@link ReadStreamSettings}), so the adapter only
 * turns max_connections into the process count and hands the model's stream
 * over as it is: it has the port's shape, and a stream's calls are the
 * engine's hottest path after the OS's.
 */
import { DEFAULT_PROCS_PG17, DEFAULT_PROCS_PG18, ReadStream } from "@scanlab/read-stream";
import type { ReadStreamPort, ReadStreamSettings } from "./ports.js";

/**
 * MaxBackends + NUM_AUXILIARY_PROCS for max_connections = `maxConnections`,
 * which sizes the read stream's pin limit (apps/docs/src/reference/buffer-ring.md#ring-size-with-pg18-defaults): everything but
 * the connections is fixed with default settings, so it is the version's
 * default count with 100 connections replaced.
 */
function procsFor(version: ReadStreamSettings["version"], maxConnections: number): number {
  // 100: max_connections' default, which DEFAULT_PROCS_PG17/18 assume (apps/docs/src/reference/buffer-ring.md#ring-size-with-pg18-defaults: 100 connections -> 174).
  return maxConnections - 100 + (version >= 18 ? DEFAULT_PROCS_PG18 : DEFAULT_PROCS_PG17);
}

/** A read stream over the blocks `source` hands out, set up as PostgreSQL would. */
export function readStream(source: () => number | null, s: ReadStreamSettings): ReadStreamPort {
  return new ReadStream(source, {
    version: s.version,
    effectiveIoConcurrency: s.effectiveIoConcurrency,
    ioCombineLimit: s.ioCombineLimit,
    ioMaxCombineLimit: s.ioMaxCombineLimit,
    ioMethod: s.ioMethod,
    ...(s.sequential === true ? { flags: { sequential: true } } : {}),
    ...(s.perBufferData === true ? { perBufferData: true } : {}),
    strategy: s.bulkread ? "bulkread" : "none",
    nBuffers: s.nbuffers,
    maxBackendsPlusAuxiliary: procsFor(s.version, s.maxConnections),
  });
}
