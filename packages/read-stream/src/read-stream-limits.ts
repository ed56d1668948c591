/**
 * How many buffers a PostgreSQL read stream may pin, per version.
 *
 * A read stream's look-ahead is bounded by `max_pinned_buffers`, fixed when
 * the stream is created (apps/docs/src/reference/read-streams.md#stream-parameters):
 *
 * - PG17: max(4 x max_ios, io_combine_limit), then at most the buffer access
 *   strategy's pin limit, then at most the backend's remaining fair share of
 *   pins (LimitAdditionalPins: NBuffers / (MaxBackends + auxiliary
 *   processes), minus REFCOUNT_ARRAY_ENTRIES = 8 pins assumed already held,
 *   bufmgr.c), and at least 1.
 * - PG18/19 (92fc6856cb): (max_ios + 1) x io_combine_limit, at most the
 *   strategy pin limit, at most GetPinLimit() = NBuffers / (MaxBackends +
 *   auxiliary processes), at least 1. The remaining-pin check is repeated
 *   before every read (see read-stream.ts).
 *
 * Both versions also keep it below PG_INT16_MAX - io_combine_limit - 1
 * (the queue is indexed with int16).
 *
 * The strategy pin limit (GetAccessStrategyPinLimit, PG17+) is the whole ring
 * for BAS_BULKREAD, which large sequential scans use, and NBuffers when there
 * is no strategy (bitmap heap scans use none). The BULKREAD ring
 * (reference 2.7) is 256 kB = 32 buffers up to PG17; PG18 (15f0cb26b5) makes
 * it 256 kB + BLCKSZ x io_combine_limit x effective_io_concurrency, capped at
 * max(256 kB, GetPinLimit() x BLCKSZ); every version then caps the ring at
 * NBuffers / 8. Reference 2.7's example: PG18 defaults, shared_buffers
 * 128 MB, 174 backend + auxiliary slots: pin limit 16384 / 174 = 94, ring
 * 94 buffers.
 */
import { bulkReadRingBuffers as coreBulkReadRingBuffers } from "@scanlab/core";
import { ReadStreamError } from "./errors.js";

/** Read-stream versions modelled here. */
export type ReadStreamVersion = 17 | 18 | 19;

/** The versions, for validation and iteration. */
export const READ_STREAM_VERSIONS: readonly ReadStreamVersion[] = [17, 18, 19];

/** Default shared_buffers in buffers: 128 MB / 8 kB (PostgreSQL's default shared_buffers). */
export const DEFAULT_NBUFFERS = 16384;

/**
 * Default MaxBackends + NUM_AUXILIARY_PROCS for PG18+ with default settings
 * (apps/docs/src/reference/buffer-ring.md#ring-size-with-pg18-defaults: 100 connections, 16 autovacuum slots, 8 worker
 * processes, 10 WAL senders, 2 special workers, 38 auxiliary slots = 174).
 */
export const DEFAULT_PROCS_PG18 = 174;

/**
 * Default MaxBackends + NUM_AUXILIARY_PROCS for PG17 with default settings:
 * 100 connections + 3 autovacuum workers + 1 launcher + 8 worker processes +
 * 10 WAL senders = 122 backends, plus 6 auxiliary processes = 128. This is our
 * reading of PG17's postinit.c / proc.h, not a figure from the reference docs.
 */
export const DEFAULT_PROCS_PG17 = 128;

/** REFCOUNT_ARRAY_ENTRIES (bufmgr.c): pins PG17's LimitAdditionalPins and PG18's GetAdditionalPinLimit assume are already held. */
export const REFCOUNT_ARRAY_ENTRIES = 8;

/** BAS_BULKREAD ring size in kB before PG18, and PG18's minimum (reference 2.7: 256 kB = 32 buffers). */
export const BULKREAD_RING_BASE_KB = 256;

/** Largest io_combine_limit: 32 blocks in PG17, 128 in PG18+ (reference 4.1). */
export function maxIoCombineLimit(version: ReadStreamVersion): number {
  return version === 17 ? 32 : 128;
}

/** Shared-buffer sizing used by the pin limits. */
export interface BufferPoolSize {
  /** shared_buffers in 8 kB buffers (default {@link DEFAULT_NBUFFERS}). */
  readonly nBuffers?: number;
  /** MaxBackends + NUM_AUXILIARY_PROCS (default per version: {@link DEFAULT_PROCS_PG17} / {@link DEFAULT_PROCS_PG18}). */
  readonly maxBackendsPlusAuxiliary?: number;
}

/** Smallest shared_buffers in buffers: the GUC's minimum of 16 (guc_tables.c, shared_buffers). */
const MIN_NBUFFERS = 16;

/**
 * @internal Largest shared_buffers (and backend pin allowance) accepted: 2^30
 * buffers, our round bound at shared_buffers' GUC maximum INT_MAX / 2
 * (guc_tables.c).
 */
export const MAX_NBUFFERS = 0x40000000;

function pool(version: ReadStreamVersion, size: BufferPoolSize): { nBuffers: number; procs: number } {
  const nBuffers = size.nBuffers ?? DEFAULT_NBUFFERS;
  const procs = size.maxBackendsPlusAuxiliary ?? (version === 17 ? DEFAULT_PROCS_PG17 : DEFAULT_PROCS_PG18);
  if (!Number.isInteger(nBuffers) || nBuffers < MIN_NBUFFERS || nBuffers > MAX_NBUFFERS) {
    throw new ReadStreamError(
      "READ_STREAM_BAD_PARAMETER",
      `nBuffers (shared_buffers in 8 kB buffers) must be an integer from ${MIN_NBUFFERS} to ${MAX_NBUFFERS}, got ${String(nBuffers)}.`,
    );
  }
  // 1,000,000 is our own sanity bound, far above any MaxBackends a server can start with.
  if (!Number.isInteger(procs) || procs < 1 || procs > 1_000_000) {
    throw new ReadStreamError(
      "READ_STREAM_BAD_PARAMETER",
      `maxBackendsPlusAuxiliary must be an integer from 1 to 1000000, got ${String(procs)}.`,
    );
  }
  return { nBuffers, procs };
}

/**
 * The backend's pin allowance a new stream sees: PG17 LimitAdditionalPins
 * (NBuffers / procs - 8, at least 1); PG18+ GetPinLimit() (NBuffers / procs, may be 0).
 */
export function backendPinLimit(version: ReadStreamVersion, size: BufferPoolSize = {}): number {
  const { nBuffers, procs } = pool(version, size);
  const proportional = Math.floor(nBuffers / procs);
  if (version === 17) return Math.max(1, proportional - REFCOUNT_ARRAY_ENTRIES);
  return proportional;
}

/** Inputs of {@link bulkReadRingBuffers}. */
export interface BulkReadRingOptions extends BufferPoolSize {
  /** io_combine_limit in blocks (PG18+ formula). */
  readonly ioCombineLimit: number;
  /** effective_io_concurrency (PG18+ formula). */
  readonly effectiveIoConcurrency: number;
}

/**
 * Size of the BAS_BULKREAD ring in buffers (reference 2.7): 32 up to PG17;
 * PG18+ 256 kB + 8 kB x io_combine_limit x effective_io_concurrency, capped at
 * max(256 kB, GetPinLimit() x 8 kB); always capped at NBuffers / 8.
 *
 * @example
 * ```ts
 * bulkReadRingBuffers(18, { ioCombineLimit: 16, effectiveIoConcurrency: 16 }); // 94 (reference 2.7)
 * ```
 */
export function bulkReadRingBuffers(version: ReadStreamVersion, options: BulkReadRingOptions): number {
  const { nBuffers } = pool(version, options);
  if (version === 17) return coreBulkReadRingBuffers({ nBuffers });
  return coreBulkReadRingBuffers({
    nBuffers,
    pinLimit: backendPinLimit(version, options),
    ioCombineLimit: options.ioCombineLimit,
    effectiveIoConcurrency: options.effectiveIoConcurrency,
  });
}

/** Inputs of {@link maxPinnedBuffers}. */
export interface MaxPinnedOptions {
  /** effective_io_concurrency as given (0 allowed; the formulas use it before 0 becomes 1). */
  readonly maxIos: number;
  /** Effective io_combine_limit in blocks. */
  readonly ioCombineLimit: number;
  /** GetAccessStrategyPinLimit: the BULKREAD ring, or NBuffers without a strategy. */
  readonly strategyPinLimit: number;
  /** From {@link backendPinLimit}. */
  readonly backendPinLimit: number;
}

/** @internal PG_INT16_MAX (c.h): read_stream.c keeps max_ios and pin counts in int16 (reference 4.1: "capped at 32767"). */
export const PG_INT16_MAX = 32767;

/**
 * max_pinned_buffers chosen at stream creation (reference 4.1).
 *
 * @example
 * ```ts
 * maxPinnedBuffers(17, { maxIos: 1, ioCombineLimit: 16, strategyPinLimit: 32, backendPinLimit: 120 }); // 16
 * maxPinnedBuffers(18, { maxIos: 16, ioCombineLimit: 16, strategyPinLimit: 16384, backendPinLimit: 94 }); // 94
 * ```
 */
export function maxPinnedBuffers(version: ReadStreamVersion, o: MaxPinnedOptions): number {
  const maxIos = Math.min(o.maxIos, PG_INT16_MAX);
  let pins = version === 17 ? Math.max(maxIos * 4, o.ioCombineLimit) : (maxIos + 1) * o.ioCombineLimit;
  pins = Math.min(pins, PG_INT16_MAX - o.ioCombineLimit - 1);
  pins = Math.min(pins, o.strategyPinLimit);
  if (version === 17) {
    // LimitAdditionalPins leaves requests of 0 or 1 alone.
    if (pins > 1) pins = Math.min(pins, o.backendPinLimit);
  } else {
    pins = Math.min(pins, o.backendPinLimit);
  }
  return Math.max(1, pins);
}
