/**
 * PostgreSQL's read stream (src/backend/storage/aio/read_stream.c) in its
 * PG17, PG18 and PG19 forms, generic over a block source.
 *
 * The story (apps/docs/src/reference/read-streams.md). A read stream sits between a
 * consumer that wants buffers in a fixed order (a sequential scan, a PG18+
 * bitmap heap scan, ANALYZE, ...) and the buffer manager. A callback (here
 * the *block source*) says which block comes next. The stream looks ahead:
 * it pins up to `distance` buffers beyond the one being consumed, merges
 * consecutive blocks into one read of up to io_combine_limit blocks, keeps at
 * most max_ios reads in flight, and tunes `distance` from what it sees:
 *
 * - PG17 (b5a9b18cd0), three regimes. A read that needs no I/O (all blocks
 *   already in shared buffers) decays the distance by 1 (floor 1): an
 *   all-cached scan settles at 1 and takes a fast path. When the consumer
 *   reaches a read that needed I/O it waits (a synchronous preadv of the whole
 *   range) and then: if that read was advised (random access), distance
 *   doubles up to max_pinned_buffers; if not (it continued the previous read,
 *   so the kernel's own read-ahead is handling it), distance moves towards
 *   io_combine_limit (doubling up to it, or -1 from above). Advice
 *   (posix_fadvise WILLNEED of the range) is given unless suppressed at
 *   start-up, or the stream is SEQUENTIAL, or the read starts exactly where the
 *   last I/O ended (`seq_blocknum`). StartReadBuffers ends a read at the first
 *   cached block after the first, including that block as its last element.
 * - PG18 (799959dc7c, 7ea8cd1566, f4d0730bbc): one regime. Every time the
 *   consumer reaches an in-progress read, distance doubles up to
 *   max_pinned_buffers; each read that needs no I/O takes 1 off. Advice only
 *   with io_method=sync: on a jump the stream notes the start of a possibly
 *   sequential region (`seq_until_processed`) and advises every read from
 *   there (except when nothing is pinned, i.e. the read will be waited for at
 *   once) until the consumer reaches the I/O that began there. With
 *   io_method worker or io_uring the read itself starts at StartReadBuffers.
 *   A cached block later in a range ends the read before it and is forwarded
 *   (kept pinned) as the start of the next read; reads never cross a 1 GB
 *   segment file. effective_io_concurrency 0 means max_ios 1 and synchronous
 *   reads.
 * - PG19 (6e36930f9a, 8ca147d582, f63ca33790, cceb1bf45e): two distances.
 *   `combineDistance` (how large a pending read may grow) doubles after every
 *   I/O (up to io_combine_limit and max_pinned_buffers); `readaheadDistance`
 *   (how far ahead to pin) doubles only if the consumer actually blocked or
 *   the I/O was synchronous. Each such I/O also arms a decay hold-off of
 *   max_pinned_buffers: reads that need no I/O while nothing is in flight use
 *   the hold-off up before they start taking 1 off both distances. This is what
 *   escapes the PG17/18 trap where alternating miss/hit blocks keep distance
 *   between 1 and 2 ("-1 per hit, x2 per miss never grows past 2",
 *   6e36930f9a). Look-ahead continues past readaheadDistance while nothing is
 *   pinned and the pending read is shorter than combineDistance. The
 *   all-cached fast path performs a miss synchronously.
 *
 * The handshake with the caller (the simulator or a test's fake env) is
 * explicit, because the model never reads a clock:
 *
 * - `stream.nextBuffer(nowUs, env)` returns `{ kind: "buffer", block, seq }`
 *   (the consumer has it now), `{ kind: "wait", waitForIo, untilUs }` (the
 *   consumer blocks; call `stream.resume(untilUs, env)` at that time, which
 *   returns the buffer), or `null` at the end of the stream. `seq` is the
 *   block's position in the source's order (0, 1, 2, ...).
 * - When the stream starts a read that needs I/O it calls
 *   `env.startRead(io, nowUs)`. If `io.advise`, the caller issues
 *   posix_fadvise(WILLNEED) over the range now. If `io.async`
 *   (io_method worker/io_uring), the caller starts the read now and returns the
 *   time its blocks will be valid; otherwise it returns null and nothing but
 *   the advice happens yet.
 * - When the consumer reaches the first buffer of that read the stream calls
 *   `env.waitRead(io, nowUs)` (WaitReadBuffers). For a synchronous read the
 *   caller performs the preadv *now* and returns its completion time; for an
 *   asynchronous one it returns the completion time of the read it started.
 *   If that time is later than nowUs the consumer blocks until then.
 * - `env.isBuffered(block)` is asked when a read is started (StartReadBuffers'
 *   buffer-mapping lookup).
 *
 * All calls into `env` happen at the `nowUs` the stream was called with, so
 * submissions from several streams stay in time order.
 *
 * Stats follow PG19's EXPLAIN (ANALYZE, IO) (reference 4.4): pinned buffers
 * each time a buffer is handed out (avg, max; capacity = max_pinned_buffers),
 * I/O count, waits, average size and average number in progress (sampled
 * just after each I/O is started).
 *
 * The per-backend pin check before each read (PG18+, GetAdditionalPinLimit)
 * reads the backend's pin entries as bufmgr.c keeps them (private-refcount.ts):
 * the stream's pins, the consumer's (the page it was handed and, for scans,
 * the previous page its tuple slot still holds; `consumerRelease`) and a fixed
 * number held elsewhere (`otherPinsHeld`).
 *
 * Simplifications: every page handed out stores a tuple in the consumer's
 * slot (a page with no visible tuple would not); a PG17 read that
 * crosses a segment boundary is one stream I/O (md.c splits the preadv: use
 * {@link segmentPieces} if the caller models files); with
 * effective_io_concurrency 0 in PG18+ the synchronous read is performed when
 * waited for rather than at StartReadBuffers (same I/O, same single process,
 * different interleaving with that process's CPU).
 */
import {
  InvalidBlockNumber as INVALID_BLOCK_NUMBER,
  MaxBlockNumber as MAX_BLOCK_NUMBER,
  RELSEG_SIZE as RELSEG_SIZE_BLOCKS,
} from "@scanlab/core";
import { ReadStreamError, validateIoConcurrency } from "./errors.js";
import { PrivateRefCount } from "./private-refcount.js";
import {
  type BufferPoolSize,
  backendPinLimit,
  bulkReadRingBuffers,
  DEFAULT_NBUFFERS,
  MAX_NBUFFERS,
  maxIoCombineLimit,
  maxPinnedBuffers,
  PG_INT16_MAX,
  READ_STREAM_VERSIONS,
  type ReadStreamVersion,
} from "./read-stream-limits.js";

/** io_method (PG18+; PG17 behaves like "sync"). */
export type IoMethod = "sync" | "worker" | "io_uring";

/**
 * Buffers a stream's backend holds that its queue no longer (or not yet)
 * lists: the page handed to the consumer, the previous page a scan's tuple
 * slot still holds, and a cached block forwarded to the next read.
 */
const HELD_OUTSIDE_QUEUE = 3;

/** Default io_combine_limit: 16 blocks = 128 kB (reference 4.1). */
export const DEFAULT_IO_COMBINE_LIMIT = 16;

/** Where a read stream gets its block numbers: the next block, or null at the end. */
export type ReadStreamBlockSource = () => number | null;

/** One read the stream started (a StartReadBuffers call that needed I/O). */
export interface ReadStreamIo {
  /** Sequence number of the I/O within the stream (0, 1, 2, ...). */
  readonly id: number;
  /** First block to read. */
  readonly firstBlock: number;
  /** Number of consecutive blocks that need I/O. */
  readonly blocks: number;
  /** Issue posix_fadvise(WILLNEED) over the blocks when the read is started. */
  readonly advise: boolean;
  /** The read itself starts at startRead (io_method worker/io_uring); else it is done at waitRead. */
  readonly async: boolean;
  /** Time the stream started it. */
  readonly startedAtUs: number;
  /** For async reads, what {@link ReadStreamEnv.startRead} returned. */
  readonly readyAtUs: number | null;
}

/** The world a read stream runs in; see the module description for the protocol. */
export interface ReadStreamEnv {
  /** True when `block` is valid in shared buffers now. */
  isBuffered(block: number): boolean;
  /**
   * The stream starts `io` at `nowUs`: advise it if `io.advise`; if `io.async`,
   * start the read and return when its blocks will be valid; otherwise return null.
   */
  startRead(io: ReadStreamIo, nowUs: number): number | null;
  /**
   * The consumer reached `io` at `nowUs` (WaitReadBuffers): perform it now if it is
   * synchronous; return the time its blocks are valid (>= its start).
   */
  waitRead(io: ReadStreamIo, nowUs: number): number;
}

/** A buffer the consumer has now. */
export interface ReadStreamBuffer {
  /** Discriminant. */
  readonly kind: "buffer";
  /** Block number of the buffer. */
  readonly block: number;
  /** Position of this block in the source's order (0-based). */
  readonly seq: number;
}

/** The consumer must wait for an I/O; call {@link ReadStream.resume} at `untilUs`. */
export interface ReadStreamWait {
  /** Discriminant. */
  readonly kind: "wait";
  /** The read being waited for. */
  readonly waitForIo: ReadStreamIo;
  /** When it completes. */
  readonly untilUs: number;
}

/** Result of {@link ReadStream.nextBuffer}: a buffer, a wait, or null at the end. */
export type ReadStreamStep = ReadStreamBuffer | ReadStreamWait;

/** Stream flags (READ_STREAM_SEQUENTIAL, READ_STREAM_FULL). */
export interface ReadStreamFlags {
  /** Caller promises sequential access: never any advice (PG17+ seq scans). */
  readonly sequential?: boolean;
  /** Reading the whole relation: start at distance min(max_pinned, io_combine_limit). */
  readonly full?: boolean;
}

/** Parameters of a read stream. */
export interface ReadStreamOptions extends BufferPoolSize {
  /** PostgreSQL version whose read_stream.c to follow. */
  readonly version: ReadStreamVersion;
  /** effective_io_concurrency (max_ios), 0..1000. */
  readonly effectiveIoConcurrency: number;
  /** io_combine_limit in blocks: 1..32 (17), 1..128 (18+). Default 16. */
  readonly ioCombineLimit?: number;
  /** io_max_combine_limit in blocks, 1..128 (18+ only). Default 16. */
  readonly ioMaxCombineLimit?: number;
  /** io_method; PG17 accepts only "sync". Default "sync" for 17, "worker" for 18+. */
  readonly ioMethod?: IoMethod;
  /** Stream flags. */
  readonly flags?: ReadStreamFlags;
  /** Per-buffer data in use (PG18+ bitmap heap scans): disables the all-cached fast path. */
  readonly perBufferData?: boolean;
  /** Buffer access strategy: "bulkread" (large seq scans) or "none" (default; bitmap heap scans). */
  readonly strategy?: "none" | "bulkread";
  /** Override the backend pin allowance (else computed from nBuffers and maxBackendsPlusAuxiliary). */
  readonly backendPinLimit?: number;
  /** Pins this backend holds outside the stream (PG18+ per-read check). Default 0. */
  readonly otherPinsHeld?: number;
  /**
   * When the consumer lets go of a buffer it was handed (PG18+ per-read check):
   * "after-next" (default; heap seq and bitmap heap scans) keeps the page's
   * last tuple in the scan's slot until the next page's first tuple replaces
   * it; "before-next" (ANALYZE) releases the page before asking for the next.
   * Both reference the page from a tuple slot (IncrBufferRefCount).
   */
  readonly consumerRelease?: "after-next" | "before-next";
  /** The build has posix_fadvise and direct I/O is off (USE_PREFETCH). Default true. */
  readonly adviceAvailable?: boolean;
}

/** Counters of a read stream (see the module description). */
export interface ReadStreamStats {
  /** Buffers handed to the consumer. */
  buffers: number;
  /** Reads that needed I/O. */
  ios: number;
  /** Blocks read by those I/Os. */
  ioBlocks: number;
  /** Reads that needed no I/O (including fast-path pins). */
  hits: number;
  /** WaitReadBuffers calls (the consumer reached an in-progress read). */
  ioWaitCalls: number;
  /** Of those, how many actually blocked. */
  waits: number;
  /** Total time blocked. */
  waitUs: number;
  /** Reads started with advice. */
  adviceCalls: number;
  /** Blocks advised. */
  adviceBlocks: number;
  /** Sum of pinned buffers sampled at each hand-out. */
  pinnedSum: number;
  /** Maximum pinned buffers at a hand-out. */
  pinnedMax: number;
  /** Sum of the (read-ahead) distance sampled at each hand-out. */
  distanceSum: number;
  /** Maximum distance reached. */
  distanceMax: number;
  /** Sum of I/Os in progress sampled just after each I/O start. */
  inProgressSum: number;
}

/** PG19's EXPLAIN (ANALYZE, IO) lines for a stream. */
export interface ReadStreamExplain {
  /** "Prefetch: avg= max= capacity=". */
  readonly prefetch: {
    /** Average pinned buffers at each hand-out. */
    readonly avg: number;
    /** Maximum pinned buffers at a hand-out. */
    readonly max: number;
    /** max_pinned_buffers. */
    readonly capacity: number;
  };
  /** "I/O: count= waits= size= in-progress=". */
  readonly io: {
    /** Reads that needed I/O. */
    readonly count: number;
    /** Times the consumer blocked. */
    readonly waits: number;
    /** Average blocks per I/O. */
    readonly size: number;
    /** Average I/Os in progress, sampled after each start. */
    readonly inProgress: number;
  };
}

/**
 * Splits a block range at 1 GB segment boundaries (md.c issues one preadv per
 * segment file). Returns `[firstBlock, blocks]` pairs.
 */
export function segmentPieces(firstBlock: number, blocks: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let b = firstBlock;
  let left = blocks;
  while (left > 0) {
    const n = Math.min(left, RELSEG_SIZE_BLOCKS - (b % RELSEG_SIZE_BLOCKS));
    out.push([b, n]);
    b += n;
    left -= n;
  }
  return out;
}

interface InFlightIo extends ReadStreamIo {
  readyAtUs: number | null;
  /** Pin sequence number of the read's first buffer. */
  readonly headSeq: number;
}

/** Validated, derived configuration of a stream. */
export interface ReadStreamConfig {
  /** Version followed. */
  readonly version: ReadStreamVersion;
  /** max_ios after the 0 -> 1 rule. */
  readonly maxIos: number;
  /** Effective io_combine_limit. */
  readonly ioCombineLimit: number;
  /** max_pinned_buffers. */
  readonly maxPinnedBuffers: number;
  /** Advice enabled for this stream. */
  readonly adviceEnabled: boolean;
  /** Reads start asynchronously at StartReadBuffers. */
  readonly asyncReads: boolean;
  /** io_method in effect. */
  readonly ioMethod: IoMethod;
  /** Strategy pin limit used. */
  readonly strategyPinLimit: number;
  /** Backend pin allowance used. */
  readonly backendPinLimit: number;
  /** Initial distance. */
  readonly initialDistance: number;
}

/**
 * Validates read-stream parameters and derives max_ios, io_combine_limit,
 * max_pinned_buffers, advice and async settings (reference 4.1). Throws a
 * {@link ReadStreamError} naming the bad parameter.
 */
export function readStreamConfig(options: ReadStreamOptions): ReadStreamConfig {
  const version = options.version;
  if (!READ_STREAM_VERSIONS.includes(version)) {
    throw new ReadStreamError(
      "READ_STREAM_BAD_VERSION",
      `Read streams exist in PostgreSQL 17, 18 and 19; version ${String(version)} is not modelled.`,
    );
  }
  const eic = validateIoConcurrency(options.effectiveIoConcurrency);
  const limitMax = maxIoCombineLimit(version);
  const icl = options.ioCombineLimit ?? DEFAULT_IO_COMBINE_LIMIT;
  if (!Number.isInteger(icl) || icl < 1 || icl > limitMax) {
    throw new ReadStreamError(
      "READ_STREAM_BAD_IO_COMBINE_LIMIT",
      `io_combine_limit must be an integer from 1 to ${limitMax} blocks in PostgreSQL ${version}, got ${String(icl)}.`,
    );
  }
  let effectiveIcl = icl;
  if (options.ioMaxCombineLimit !== undefined) {
    const m = options.ioMaxCombineLimit;
    if (version === 17) {
      throw new ReadStreamError(
        "READ_STREAM_BAD_IO_COMBINE_LIMIT",
        "io_max_combine_limit does not exist in PostgreSQL 17 (it was added in 18).",
      );
    }
    if (!Number.isInteger(m) || m < 1 || m > limitMax) {
      throw new ReadStreamError(
        "READ_STREAM_BAD_IO_COMBINE_LIMIT",
        `io_max_combine_limit must be an integer from 1 to ${limitMax} blocks, got ${String(m)}.`,
      );
    }
    effectiveIcl = Math.min(icl, m);
  }
  const ioMethod: IoMethod = options.ioMethod ?? (version === 17 ? "sync" : "worker");
  if (ioMethod !== "sync" && ioMethod !== "worker" && ioMethod !== "io_uring") {
    throw new ReadStreamError(
      "READ_STREAM_BAD_IO_METHOD",
      `io_method must be "sync", "worker" or "io_uring", got ${String(ioMethod)}.`,
    );
  }
  if (version === 17 && ioMethod !== "sync") {
    throw new ReadStreamError(
      "READ_STREAM_BAD_IO_METHOD",
      `PostgreSQL 17 has no asynchronous I/O, so io_method must be "sync", got "${ioMethod}".`,
    );
  }
  const nBuffers = options.nBuffers ?? DEFAULT_NBUFFERS;
  let pinLimit = options.backendPinLimit ?? backendPinLimit(version, options);
  if (options.backendPinLimit !== undefined) {
    if (!Number.isInteger(pinLimit) || pinLimit < 0 || pinLimit > MAX_NBUFFERS) {
      throw new ReadStreamError(
        "READ_STREAM_BAD_PARAMETER",
        `backendPinLimit must be an integer from 0 to ${MAX_NBUFFERS}, got ${String(pinLimit)}.`,
      );
    }
    if (version === 17) pinLimit = Math.max(1, pinLimit);
  }
  const other = options.otherPinsHeld ?? 0;
  if (!Number.isInteger(other) || other < 0) {
    throw new ReadStreamError(
      "READ_STREAM_BAD_PARAMETER",
      `otherPinsHeld must be a non-negative integer, got ${String(other)}.`,
    );
  }
  const release = options.consumerRelease ?? "after-next";
  if (release !== "after-next" && release !== "before-next") {
    throw new ReadStreamError(
      "READ_STREAM_BAD_PARAMETER",
      `consumerRelease must be "after-next" or "before-next", got ${String(release)}.`,
    );
  }
  const strategy = options.strategy ?? "none";
  if (strategy !== "none" && strategy !== "bulkread") {
    throw new ReadStreamError(
      "READ_STREAM_BAD_PARAMETER",
      `strategy must be "none" or "bulkread", got ${String(strategy)}.`,
    );
  }
  const strategyPinLimit =
    strategy === "bulkread"
      ? bulkReadRingBuffers(version, {
          ...options,
          ioCombineLimit: effectiveIcl,
          effectiveIoConcurrency: eic,
        })
      : nBuffers;
  const maxPinned = maxPinnedBuffers(version, {
    maxIos: eic,
    ioCombineLimit: effectiveIcl,
    strategyPinLimit,
    backendPinLimit: pinLimit,
  });
  const sequential = options.flags?.sequential ?? false;
  const adviceAvailable = options.adviceAvailable ?? true;
  // 4.1: advice needs fadvise, no direct I/O, no SEQUENTIAL flag, max_ios > 0; 18+: only io_method=sync.
  const adviceEnabled = adviceAvailable && !sequential && eic > 0 && (version === 17 || ioMethod === "sync");
  // 18+: max_ios 0 forces synchronous reads (READ_BUFFERS_SYNCHRONOUSLY).
  const asyncReads = version !== 17 && ioMethod !== "sync" && eic > 0;
  const initialDistance = options.flags?.full ? Math.min(maxPinned, effectiveIcl) : 1;
  return {
    version,
    // 4.1: max_ios is capped at PG_INT16_MAX, and 0 becomes 1.
    maxIos: Math.max(1, Math.min(eic, PG_INT16_MAX)),
    ioCombineLimit: effectiveIcl,
    maxPinnedBuffers: maxPinned,
    adviceEnabled,
    asyncReads,
    ioMethod,
    strategyPinLimit,
    backendPinLimit: pinLimit,
    initialDistance,
  };
}

function emptyStats(): ReadStreamStats {
  return {
    buffers: 0,
    ios: 0,
    ioBlocks: 0,
    hits: 0,
    ioWaitCalls: 0,
    waits: 0,
    waitUs: 0,
    adviceCalls: 0,
    adviceBlocks: 0,
    pinnedSum: 0,
    pinnedMax: 0,
    distanceSum: 0,
    distanceMax: 0,
    inProgressSum: 0,
  };
}

/**
 * A PostgreSQL 17/18/19 read stream over a block source.
 *
 * @example
 * ```ts
 * const blocks = [0, 1, 2, 3, 100, 200];
 * let i = 0;
 * const stream = new ReadStream(() => blocks[i++] ?? null, { version: 18, effectiveIoConcurrency: 16, ioMethod: "sync" });
 * const env = {
 *   isBuffered: () => false,
 *   startRead: () => null,                       // sync: nothing starts yet (maybe advice)
 *   waitRead: (_io, nowUs: number) => nowUs + 100, // a 100 us preadv
 * };
 * let now = 0;
 * for (let s = stream.nextBuffer(now, env); s; s = stream.nextBuffer(now, env)) {
 *   if (s.kind === "wait") { now = s.untilUs; s = stream.resume(now, env); }
 *   console.log(now, s.block);
 * }
 * ```
 */
export class ReadStream {
  /** Derived configuration. */
  readonly config: ReadStreamConfig;
  private readonly source: ReadStreamBlockSource;
  private readonly v: ReadStreamVersion;
  private readonly icl: number;
  private readonly maxIos: number;
  private readonly maxPinned: number;
  private readonly perBufferData: boolean;
  /** The backend's pin entries (PG18+: GetAdditionalPinLimit reads them before each read); null for PG17. */
  private readonly refs: PrivateRefCount | null;
  private readonly releaseBeforeNext: boolean;
  /** Queue position (buffer id) of the page the consumer's tuple slot still holds ("after-next"), or -1. */
  private slotBuffer = -1;
  private readonly counters = emptyStats();

  // Distances: `rd` is PG17/18's distance and PG19's readahead distance; `cd` PG19's combine distance.
  private rd: number;
  private cd: number;
  private holdoff = 0;
  private ended = false;
  private fastPath = false;

  private pendingStart = 0;
  private pendingN = 0;
  private ungot = INVALID_BLOCK_NUMBER;
  private seqBlocknum = INVALID_BLOCK_NUMBER;
  private seqUntilProcessed = INVALID_BLOCK_NUMBER;
  private forwarded = 0;

  private readonly queue: Uint32Array;
  private readonly mask: number;
  private headSeq = 0;
  private nextSeq = 0;

  private readonly ios: Array<InFlightIo | undefined>;
  private iosHead = 0;
  private iosCount = 0;
  private nextIoId = 0;

  private waiting: InFlightIo | null = null;
  private waitingUntilUs = 0;
  private lastNowUs = Number.NEGATIVE_INFINITY;

  /** @param source next block or null at the end; @param options version and settings. */
  constructor(source: ReadStreamBlockSource, options: ReadStreamOptions) {
    this.config = readStreamConfig(options);
    this.source = source;
    this.v = this.config.version;
    this.icl = this.config.ioCombineLimit;
    this.maxIos = this.config.maxIos;
    this.maxPinned = this.config.maxPinnedBuffers;
    this.perBufferData = options.perBufferData ?? false;
    this.releaseBeforeNext = options.consumerRelease === "before-next";
    this.rd = this.config.initialDistance;
    this.cd = this.v === 19 ? this.config.initialDistance : this.icl;
    // The queue also names the buffers in the backend's pin entries (a queue position is the
    // buffer id), so beside the pinned ones it has room for the buffers still pinned outside it.
    let cap = 1;
    while (cap < this.maxPinned + this.icl + 2 + HELD_OUTSIDE_QUEUE) cap *= 2;
    this.queue = new Uint32Array(cap);
    this.mask = cap - 1;
    if (this.v === 17) {
      this.refs = null;
    } else {
      const other = options.otherPinsHeld ?? 0;
      this.refs = new PrivateRefCount(cap + other);
      // Pins held elsewhere are buffers after the queue's.
      for (let k = 0; k < other; k++) this.refs.pin(cap + k);
    }
    this.ios = new Array(this.maxIos).fill(undefined);
  }

  /** Current look-ahead distance (PG17/18 `distance`, PG19 `readahead_distance`); 0 once the source ended. */
  get distance(): number {
    return this.rd;
  }

  /** PG19 `combine_distance`; for PG17/18, io_combine_limit (reads may always grow to it). */
  get combineDistance(): number {
    return this.cd;
  }

  /** PG19 decay hold-off counter (0 in PG17/18). */
  get holdoffRemaining(): number {
    return this.holdoff;
  }

  /** Buffers pinned by the stream (handed-out ones excluded). */
  get pinnedBuffers(): number {
    return this.nextSeq - this.headSeq;
  }

  /** Reads in flight. */
  get iosInProgress(): number {
    return this.iosCount;
  }

  /** True while the all-cached fast path is active. */
  get onFastPath(): boolean {
    return this.fastPath;
  }

  /** Counters so far. */
  get stats(): Readonly<ReadStreamStats> {
    return this.counters;
  }

  /** The figures PG19's EXPLAIN (ANALYZE, IO) would print for this stream so far. */
  explain(): ReadStreamExplain {
    const c = this.counters;
    return {
      prefetch: {
        avg: c.buffers === 0 ? 0 : c.pinnedSum / c.buffers,
        max: c.pinnedMax,
        capacity: this.maxPinned,
      },
      io: {
        count: c.ios,
        waits: c.waits,
        size: c.ios === 0 ? 0 : c.ioBlocks / c.ios,
        inProgress: c.ios === 0 ? 0 : c.inProgressSum / c.ios,
      },
    };
  }

  /**
   * The consumer asks for the next buffer at `nowUs`: returns it, or a wait, or
   * null at the end of the stream.
   */
  nextBuffer(nowUs: number, env: ReadStreamEnv): ReadStreamStep | null {
    if (this.waiting !== null)
      throw new Error("nextBuffer called while waiting for an I/O; call resume first");
    this.checkTime(nowUs);
    if (this.fastPath) return this.fastPathNext(nowUs, env);
    if (this.pinnedBuffers === 0) {
      if (this.rd === 0) return null;
      this.lookAhead(nowUs, env, true);
      if (this.pinnedBuffers === 0) return null;
    }
    const io = this.iosCount > 0 ? (this.ios[this.iosHead] as InFlightIo) : null;
    if (io !== null && io.headSeq === this.headSeq) {
      this.counters.ioWaitCalls++;
      const doneAtUs = env.waitRead(io, nowUs);
      if (doneAtUs > nowUs) {
        this.counters.waits++;
        this.counters.waitUs += doneAtUs - nowUs;
        this.waiting = io;
        this.waitingUntilUs = doneAtUs;
        return { kind: "wait", waitForIo: io, untilUs: doneAtUs };
      }
      this.finishIo(io, false);
    }
    return this.handOut(nowUs, env);
  }

  /** The I/O returned in a wait has completed: continue at `atUs` (>= its `untilUs`) and get the buffer. */
  resume(atUs: number, env: ReadStreamEnv): ReadStreamBuffer {
    const io = this.waiting;
    if (io === null) throw new Error("resume called without a pending wait");
    if (atUs < this.waitingUntilUs)
      throw new Error(`resume at ${atUs} us before the I/O completes at ${this.waitingUntilUs} us`);
    this.checkTime(atUs);
    this.waiting = null;
    this.finishIo(io, true);
    return this.handOut(atUs, env);
  }

  private checkTime(nowUs: number): void {
    if (!(nowUs >= this.lastNowUs))
      throw new Error(`time went backwards: ${nowUs} us after ${this.lastNowUs} us`);
    this.lastNowUs = nowUs;
  }

  /** WaitReadBuffers returned: retire the oldest I/O and adjust distances (4.2-4.4). */
  private finishIo(io: InFlightIo, blocked: boolean): void {
    this.ios[this.iosHead] = undefined;
    this.iosHead = this.iosHead + 1 === this.maxIos ? 0 : this.iosHead + 1;
    this.iosCount--;
    const maxPinned = this.maxPinned;
    if (this.v === 17) {
      if (io.advise) {
        // Random I/O with advice: ramp up fast (behaviour C).
        this.rd = Math.min(this.rd * 2, maxPinned);
      } else if (this.rd > this.icl) {
        // No advice: move towards io_combine_limit (behaviour B).
        this.rd--;
      } else {
        this.rd = Math.min(this.rd * 2, this.icl, maxPinned);
      }
      return;
    }
    if (this.v === 18) {
      this.rd = Math.min(this.rd * 2, maxPinned);
    } else {
      if (blocked || !io.async) this.rd = Math.min(this.rd * 2, maxPinned);
      this.cd = Math.min(this.cd * 2, this.icl, maxPinned);
      if (!this.ended) this.holdoff = maxPinned;
    }
    // The consumer reached the first block of the advised sequential region: stop advising until the next jump.
    if (this.config.adviceEnabled && io.firstBlock === this.seqUntilProcessed) {
      this.seqUntilProcessed = INVALID_BLOCK_NUMBER;
    }
  }

  private sampleHandOut(): void {
    const c = this.counters;
    const pinned = this.pinnedBuffers;
    c.buffers++;
    c.pinnedSum += pinned;
    if (pinned > c.pinnedMax) c.pinnedMax = pinned;
    c.distanceSum += this.rd;
    if (this.rd > c.distanceMax) c.distanceMax = this.rd;
  }

  private handOut(nowUs: number, env: ReadStreamEnv): ReadStreamBuffer {
    this.sampleHandOut();
    const seq = this.headSeq;
    const block = this.queue[seq & this.mask] as number;
    this.headSeq++;
    this.lookAhead(nowUs, env, false);
    this.consumerTakes(seq);
    if (
      !this.perBufferData &&
      this.iosCount === 0 &&
      this.pinnedBuffers === 1 &&
      this.rd === 1 &&
      (this.v !== 19 || this.cd === 1) &&
      this.pendingN === 0 &&
      this.forwarded === 0
    ) {
      this.fastPath = true;
    }
    return { kind: "buffer", block, seq };
  }

  /** The all-cached fast path: hand out the one pinned buffer and pin the next block with a one-block read. */
  private fastPathNext(nowUs: number, env: ReadStreamEnv): ReadStreamBuffer {
    this.sampleHandOut();
    const seq = this.headSeq;
    const block = this.queue[seq & this.mask] as number;
    this.headSeq++;
    const next = this.getBlock();
    if (next === null) {
      this.endOfStream();
      this.fastPath = false;
      this.consumerTakes(seq);
      return { kind: "buffer", block, seq };
    }
    const headSeq = this.nextSeq;
    this.queue[headSeq & this.mask] = next;
    this.nextSeq++;
    this.refs?.pin(headSeq & this.mask);
    if (env.isBuffered(next)) {
      this.counters.hits++;
      this.consumerTakes(seq);
      return { kind: "buffer", block, seq };
    }
    // PG17/18 advise the one-block read if advice is enabled; PG19 (cceb1bf45e) reads a fast-path miss synchronously.
    const advise = this.v !== 19 && this.config.adviceEnabled;
    const async = this.v !== 19 && this.config.asyncReads;
    this.startIo(next, 1, advise, async, headSeq, nowUs, env);
    this.seqBlocknum = next + 1;
    this.fastPath = false;
    this.consumerTakes(seq);
    return { kind: "buffer", block, seq };
  }

  /**
   * The consumer got the buffer at queue position `seq` (the stream's pin is
   * now its own) and stores a tuple of it in its slot, a second pin of the
   * buffer. "before-next": both pins go before the next call. "after-next":
   * the slot lets go of the previous page here (its own pin on it went at this
   * call's start).
   */
  private consumerTakes(seq: number): void {
    const refs = this.refs;
    if (refs === null) return;
    const buffer = seq & this.mask;
    if (this.releaseBeforeNext) {
      refs.pin(buffer);
      refs.unpin(buffer);
      refs.unpin(buffer);
      return;
    }
    if (this.slotBuffer >= 0) {
      refs.unpin(this.slotBuffer);
      refs.unpin(this.slotBuffer);
    }
    refs.pin(buffer);
    this.slotBuffer = buffer;
  }

  private endOfStream(): void {
    this.ended = true;
    this.rd = 0;
    if (this.v === 19) this.cd = 0;
  }

  private getBlock(): number | null {
    if (this.ungot !== INVALID_BLOCK_NUMBER) {
      const b = this.ungot;
      this.ungot = INVALID_BLOCK_NUMBER;
      return b;
    }
    if (this.ended) return null;
    const b = this.source();
    if (b === null) return null;
    if (!Number.isInteger(b) || b < 0 || b > MAX_BLOCK_NUMBER) {
      throw new Error(`block source returned ${String(b)}, not a block number`);
    }
    return b;
  }

  private lookAhead(nowUs: number, env: ReadStreamEnv, suppressAdvice: boolean): void {
    let suppress = this.v === 17 && suppressAdvice;
    const v19 = this.v === 19;
    while (
      this.iosCount < this.maxIos &&
      (this.pinnedBuffers + this.pendingN < this.rd ||
        (v19 && this.pinnedBuffers === 0 && this.pendingN < this.cd))
    ) {
      // The pending read is full: PG19 grows it to combine_distance, PG17/18 to io_combine_limit.
      if (this.pendingN > 0 && (v19 ? this.pendingN >= this.cd : this.pendingN === this.icl)) {
        if (!this.startPending(nowUs, env, suppress)) break;
        suppress = false;
        continue;
      }
      const block = this.getBlock();
      if (block === null) {
        this.endOfStream();
        break;
      }
      if (this.pendingN > 0 && this.pendingStart + this.pendingN === block) {
        this.pendingN++;
        continue;
      }
      // The pending read must be started before another can be built.
      while (this.pendingN > 0) {
        const started = this.startPending(nowUs, env, suppress);
        suppress = false;
        if (!started || this.iosCount === this.maxIos) {
          // Hit the buffer or I/O limit: rewind and stop here.
          this.ungot = block;
          return;
        }
      }
      this.pendingStart = block;
      this.pendingN = 1;
    }
    // Start the pending read now only if it cannot usefully grow any more.
    if (this.pendingN > 0 && this.iosCount < this.maxIos) {
      const pinned = this.pinnedBuffers;
      let startNow: boolean;
      if (this.v === 17) {
        startNow = this.pendingN === this.icl || (this.pendingN === this.rd && pinned === 0) || this.rd === 0;
      } else if (this.v === 18) {
        startNow = this.pendingN === this.icl || (this.pendingN >= this.rd && pinned === 0) || this.rd === 0;
      } else {
        startNow = this.pendingN >= this.cd || this.ended || pinned === 0;
      }
      if (startNow) this.startPending(nowUs, env, suppress);
    }
  }

  /** read_stream_start_pending_read: StartReadBuffers on (a prefix of) the pending read. */
  private startPending(nowUs: number, env: ReadStreamEnv, suppressAdvice: boolean): boolean {
    const b = this.pendingStart;
    let n = this.pendingN;
    const pinned = this.pinnedBuffers;
    let advise = false;
    if (this.v === 17) {
      advise = !suppressAdvice && this.config.adviceEnabled && b !== this.seqBlocknum;
    } else if (this.config.adviceEnabled) {
      if (b === this.seqBlocknum) {
        // Sequential: advise until the consumer catches up with the region's first advised read.
        advise = this.seqUntilProcessed !== INVALID_BLOCK_NUMBER;
      } else {
        // Random jump: a possible new sequential region starts here; advise unless it is waited for at once.
        this.seqUntilProcessed = b;
        advise = pinned > 0;
      }
    }
    if (this.v !== 17) {
      // How many more pins is this backend allowed? GetAdditionalPinLimit (bufmgr.c) does not
      // count the pins held: it assumes the whole PrivateRefCountArray (REFCOUNT_ARRAY_ENTRIES)
      // is in use plus the entries overflowed into the hash (private-refcount.ts). Forwarded
      // buffers are already held.
      const held = (this.refs as PrivateRefCount).estimatedPinsHeld;
      let limit = Math.max(0, this.config.backendPinLimit - held) + this.forwarded;
      if (limit === 0 && pinned === 0) limit = 1;
      if (limit < n) {
        const newDistance = pinned + limit;
        if (this.rd > newDistance) this.rd = newDistance;
        if (pinned > 0) return false;
        n = limit;
      }
    }

    // StartReadBuffers.
    let actual: number;
    let ioBlocks: number;
    let forwardNext = 0;
    let alreadyPinned = 0;
    if (this.v === 17) {
      actual = n;
      ioBlocks = n;
      for (let i = 0; i < n; i++) {
        if (env.isBuffered(b + i)) {
          // A hit ends the read; it is included as the last element.
          actual = i + 1;
          ioBlocks = i;
          break;
        }
      }
    } else if (this.forwarded > 0 || env.isBuffered(b)) {
      // A cached (or forwarded) first block returns at once as a one-block non-I/O.
      if (this.forwarded > 0) {
        this.forwarded--;
        alreadyPinned = 1;
      }
      actual = 1;
      ioBlocks = 0;
    } else {
      // Never cross a 1 GB segment file (smgrmaxcombine).
      n = Math.min(n, RELSEG_SIZE_BLOCKS - (b % RELSEG_SIZE_BLOCKS));
      actual = n;
      for (let i = 1; i < n; i++) {
        if (env.isBuffered(b + i)) {
          // Split before the hit and forward its pinned buffer to the next read.
          actual = i;
          forwardNext = 1;
          break;
        }
      }
      ioBlocks = actual;
    }

    const headSeq = this.nextSeq;
    for (let i = 0; i < actual; i++) this.queue[(headSeq + i) & this.mask] = b + i;
    this.nextSeq += actual;
    const refs = this.refs;
    if (refs !== null) {
      for (let i = alreadyPinned; i < actual; i++) refs.pin((headSeq + i) & this.mask);
      // The cached block that ended the read is pinned now and forwarded: it is the next queue entry.
      if (forwardNext > 0) refs.pin(this.nextSeq & this.mask);
    }

    if (ioBlocks === 0) {
      this.counters.hits++;
      if (this.v === 19) {
        if (this.iosCount === 0) {
          if (this.holdoff > 0) {
            this.holdoff--;
          } else {
            if (this.rd > 1) this.rd--;
            if (this.cd > 1) this.cd--;
          }
        }
      } else if (this.rd > 1) {
        this.rd--;
      }
    } else {
      this.startIo(b, ioBlocks, advise, this.config.asyncReads, headSeq, nowUs, env);
      this.seqBlocknum = b + actual;
    }
    if (forwardNext > 0) this.forwarded = forwardNext;
    this.pendingStart += actual;
    this.pendingN -= actual;
    return true;
  }

  private startIo(
    firstBlock: number,
    blocks: number,
    advise: boolean,
    async: boolean,
    headSeq: number,
    nowUs: number,
    env: ReadStreamEnv,
  ): void {
    const io: InFlightIo = {
      id: this.nextIoId++,
      firstBlock,
      blocks,
      advise,
      async,
      startedAtUs: nowUs,
      readyAtUs: null,
      headSeq,
    };
    const c = this.counters;
    c.ios++;
    c.ioBlocks += blocks;
    if (advise) {
      c.adviceCalls++;
      c.adviceBlocks += blocks;
    }
    io.readyAtUs = env.startRead(io, nowUs);
    let tail = this.iosHead + this.iosCount;
    if (tail >= this.maxIos) tail -= this.maxIos;
    this.ios[tail] = io;
    this.iosCount++;
    c.inProgressSum += this.iosCount;
  }
}
