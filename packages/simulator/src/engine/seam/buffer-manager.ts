/**
 * Shared buffers, bound to @scanlab/buffer-manager (PostgreSQL's bufmgr.c and
 * freelist.c: the clock sweep, usage counts, the BAS_BULKREAD ring).
 *
 * The problem: the buffer manager is a model package like the others, but
 * the engine's pg/ wing owns the pool and calls it on every block a process
 * reads, and the package speaks in plain inputs (NBuffers, a flag for PG18's
 * ring), not in the versions a scenario names.
 *
 * The insight: the package's objects already have the shape the engine needs
 * (a pool with hits, installs and residency questions; a ring per scan), so,
 * as with read streams, they pass through as they are: no port and no
 * wrapper on the hottest path after the OS's. What the engine has to
 * translate is one thing, which versions size the ring PG18's way, and that
 * is the ring column of the version mapping (scenario/pg-model.ts), asked
 * here and nowhere else.
 */
import { bulkReadRingSize } from "@scanlab/buffer-manager";
import { pgModel } from "../../scenario/pg-model.js";
import type { PgVersion } from "../../scenario/types.js";

export { BufferRing, SharedBuffers } from "@scanlab/buffer-manager";
export { renumberBuffers } from "@scanlab/buffer-manager/sim";

/** What sizes a query's BAS_BULKREAD ring besides its version. */
export interface RingSettings {
  nbuffers: number;
  maxConnections: number;
  ioCombineLimit: number;
  effectiveIoConcurrency: number;
}

/**
 * Ring size in buffers for a BAS_BULKREAD scan of PostgreSQL `pg`
 * (apps/docs/src/reference/buffer-ring.md#ring-size-by-version): 256 kB up
 * to 17, growing with io_combine_limit x effective_io_concurrency from 18,
 * as the version's ring model says.
 */
export function bulkReadRingFor(pg: PgVersion, s: RingSettings): number {
  return bulkReadRingSize({
    nBuffers: s.nbuffers,
    growsWithIo: pgModel(pg).ring === "pg18",
    maxConnections: s.maxConnections,
    ioCombineLimit: s.ioCombineLimit,
    effectiveIoConcurrency: s.effectiveIoConcurrency,
  });
}
