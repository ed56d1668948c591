/**
 * The BAS_BULKREAD ring: the few buffers a large sequential scan recycles
 * instead of filling the pool (freelist.c GetAccessStrategy,
 * GetBufferFromRing; apps/docs/src/reference/buffer-ring.md#ring-replacement), and its size.
 *
 * The size is `@scanlab/core`'s `bulkReadRingBuffers`, one formula for every
 * package that sizes a ring. What this file adds is the one input that
 * formula leaves to its caller from PostgreSQL 18 on, the backend's pin limit
 * (GetPinLimit in bufmgr.c), computed from max_connections the way the server
 * counts its process slots with default settings. Which versions grow the
 * ring is the caller's mapping of versions to models, passed as a flag.
 */

import { bulkReadRingBuffers, ioConcurrencyProblem } from "@scanlab/core";
import { BufferManagerError } from "./errors.js";

/**
 * Process slots PostgreSQL 18 adds to max_connections when it sizes the
 * per-backend pin limit with default settings: 16 autovacuum slots, 8 worker
 * processes, 10 WAL senders, 2 special workers and 38 auxiliary slots
 * (apps/docs/src/reference/buffer-ring.md#ring-size-with-pg18-defaults: 100 connections -> 174 in all).
 */
export const PG18_EXTRA_PROCS = 74;

/** max_connections: 1 to MAX_BACKENDS (0x3FFFF, src/include/postmaster/postmaster.h). */
const MAX_CONNECTIONS = 0x3ffff;
/** io_combine_limit: 1 to MAX_IO_COMBINE_LIMIT (128 blocks in PG18's src/include/storage/bufmgr.h). */
const MAX_IO_COMBINE_LIMIT = 128;

/** The settings that size a BAS_BULKREAD ring ({@link bulkReadRingSize}). */
export interface BulkReadRingSettings {
  /** NBuffers: shared_buffers in 8 kB buffers (at least 16). */
  readonly nBuffers: number;
  /**
   * Whether the ring grows with io_combine_limit x effective_io_concurrency:
   * PostgreSQL 18 and later (commit 15f0cb26b5). Default false: 256 kB, as
   * from 8.3 to 17.
   */
  readonly growsWithIo?: boolean;
  /** max_connections (default 100); with `growsWithIo`, sizes the pin limit. */
  readonly maxConnections?: number;
  /** io_combine_limit in blocks (default 16); with `growsWithIo` only. */
  readonly ioCombineLimit?: number;
  /** effective_io_concurrency (default 16, PG18's); with `growsWithIo` only. */
  readonly effectiveIoConcurrency?: number;
}

function bad(message: string): BufferManagerError {
  return new BufferManagerError("BUFFER_MANAGER_BAD_RING_SETTING", message);
}

function wholeIn(value: number, min: number, max: number, name: string, source: string): number {
  if (!Number.isInteger(value) || value < min || value > max)
    throw bad(`${name} must be a whole number from ${min} to ${max} (${source}), got ${String(value)}.`);
  return value;
}

/**
 * Size in buffers of a BAS_BULKREAD ring (apps/docs/src/reference/buffer-ring.md#ring-size-by-version):
 * 32 (256 kB) up to PostgreSQL 17; from 18 (`growsWithIo`), 32 + io_combine_limit x
 * effective_io_concurrency, at most max(32, pin limit) with the pin limit
 * NBuffers / (max_connections + {@link PG18_EXTRA_PROCS}); always at most
 * NBuffers / 8.
 *
 * @example
 * ```ts
 * import { bulkReadRingSize } from "@scanlab/buffer-manager";
 * bulkReadRingSize({ nBuffers: 16384 }); // 32: shared_buffers 128MB, PostgreSQL 17
 * bulkReadRingSize({ nBuffers: 16384, growsWithIo: true }); // 94: PostgreSQL 18's defaults
 * bulkReadRingSize({ nBuffers: 131072, growsWithIo: true }); // 288: 1GB, the pin limit no longer binds
 * ```
 *
 * @throws `BufferManagerError` `BUFFER_MANAGER_BAD_RING_SETTING` for a setting PostgreSQL would not accept.
 */
export function bulkReadRingSize(settings: BulkReadRingSettings): number {
  const nBuffers = wholeIn(settings.nBuffers, 16, 1073741823, "nBuffers", "shared_buffers in guc_tables.c");
  if (settings.growsWithIo !== true) return bulkReadRingBuffers({ nBuffers });
  const maxConnections = wholeIn(
    settings.maxConnections ?? 100,
    1,
    MAX_CONNECTIONS,
    "maxConnections",
    "max_connections in guc_tables.c",
  );
  const ioCombineLimit = wholeIn(
    settings.ioCombineLimit ?? 16,
    1,
    MAX_IO_COMBINE_LIMIT,
    "ioCombineLimit",
    "io_combine_limit in guc_tables.c",
  );
  const effectiveIoConcurrency = settings.effectiveIoConcurrency ?? 16;
  const problem = ioConcurrencyProblem(effectiveIoConcurrency, "effectiveIoConcurrency");
  if (problem !== null) throw bad(problem);
  return bulkReadRingBuffers({
    nBuffers,
    pinLimit: Math.floor(nBuffers / (maxConnections + PG18_EXTRA_PROCS)),
    ioCombineLimit,
    effectiveIoConcurrency,
  });
}

/**
 * A BAS_BULKREAD ring owned by one scan (GetAccessStrategy): its slots hold
 * buffer ids (-1 while empty), and its cursor is the slot the scan's last
 * miss used. {@link SharedBuffers.installRun} moves the cursor; a ring is
 * meant for one pool.
 *
 * @example
 * ```ts
 * import { BufferRing, bulkReadRingSize } from "@scanlab/buffer-manager";
 * const ring = new BufferRing(bulkReadRingSize({ nBuffers: 16384 }));
 * [ring.size, ring.cursor, ring.slots[0]]; // [32, -1, -1]
 * ```
 */
export class BufferRing {
  /** Buffer id per slot, -1 for an empty slot. */
  readonly slots: Int32Array;
  /** The slot of the last miss through the ring (-1 before the first). */
  cursor = -1;

  /**
   * @param size slots, a whole number from 1 (usually {@link bulkReadRingSize}).
   * @throws `BufferManagerError` `BUFFER_MANAGER_BAD_RING_SIZE` otherwise.
   */
  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1 || size > 1073741823)
      throw new BufferManagerError(
        "BUFFER_MANAGER_BAD_RING_SIZE",
        `a ring holds a whole number of buffers from 1 to 1073741823 (INT_MAX / 2, the most shared_buffers has), got ${String(size)}.`,
      );
    this.slots = new Int32Array(size).fill(-1);
  }
}
