/**
 * Driving a read-stream model the way a backend drives PostgreSQL's: hand out
 * `count` buffers (the consumer processed that many pages), or all of them,
 * with a caller-chosen view of shared buffers, and record every read the
 * stream started (first block, blocks, advised) and the system calls they
 * make, in order: `a<first>+<n>` posix_fadvise when a read starts with advice,
 * `r<first>+<n>` the backend's preadv when the consumer reaches a synchronous
 * read, `w<first>+<n>` an I/O worker's preadv when an asynchronous read starts. No clock matters to the
 * stream's decisions (distance, combining, advice) beyond the order of
 * events, so every read completes one microsecond after it is started or
 * waited for.
 *
 * The stream's parameters for a PostgreSQL 17+ scan are what the simulator
 * gives its own streams: effective_io_concurrency, io_combine_limit (and 18's
 * io_max_combine_limit), io_method, the BULKREAD strategy for a sequential
 * scan of a table over NBuffers / 4, and the backend pin allowance from
 * shared_buffers and MaxBackends + auxiliary processes.
 */

import { BLCKSZ, parseSize } from "@scanlab/core";
import {
  DEFAULT_PROCS_PG17,
  DEFAULT_PROCS_PG18,
  type IoMethod,
  ReadStream,
  type ReadStreamBlockSource,
  type ReadStreamEnv,
  type ReadStreamOptions,
  type ReadStreamVersion,
} from "@scanlab/read-stream";

/**
 * A GUC counted in 8 kB blocks as SHOW prints it ("128kB", "1MB", or a bare
 * number of blocks, as postgresql.conf reads one), in blocks.
 */
export function gucBlocks(text: string): number {
  const q = parseSize(text);
  if (q === null) throw new Error(`unexpected io_combine_limit ${text}`);
  return q.scale === null ? q.value : (q.value * q.scale) / BLCKSZ;
}

/** The I/O settings of a capture server that a read stream depends on. */
export interface StreamSettings {
  /** effective_io_concurrency. */
  eic: number;
  /** io_combine_limit in blocks. */
  ioCombineLimit: number;
  /** io_max_combine_limit in blocks (18+), else null. */
  ioMaxCombineLimit: number | null;
  /** io_method (18+), "sync" for 17. */
  ioMethod: IoMethod;
  /** shared_buffers in buffers. */
  nBuffers: number;
  /** max_connections (MaxBackends is computed from it as the simulator does). */
  maxConnections: number;
  /** debug_io_direct includes data (no advice). */
  directIo: boolean;
}

/** Reads the settings above from a server (17+). */
export async function readStreamSettings(psql: (sql: string) => Promise<string>): Promise<StreamSettings> {
  const row = await psql(
    `select current_setting('effective_io_concurrency'),
            current_setting('io_combine_limit'),
            coalesce(current_setting('io_max_combine_limit', true), ''),
            coalesce(current_setting('io_method', true), 'sync'),
            (select setting from pg_settings where name = 'shared_buffers'),
            current_setting('max_connections'),
            coalesce(current_setting('debug_io_direct', true), '')`,
  );
  const [eic, icl, imcl, method, nb, mc, direct] = row.split("|");
  return {
    eic: Number(eic),
    ioCombineLimit: gucBlocks(icl!),
    ioMaxCombineLimit: imcl === "" ? null : gucBlocks(imcl!),
    ioMethod: method as IoMethod,
    nBuffers: Number(nb),
    maxConnections: Number(mc),
    directIo: /data/.test(direct ?? ""),
  };
}

/** One read the stream started. */
export interface StreamRead {
  /** First block. */
  firstBlock: number;
  /** Blocks. */
  blocks: number;
  /** Advised (posix_fadvise WILLNEED) when started. */
  advise: boolean;
}

/** Stream options for a read stream of read_stream.c's `version` with a capture server's settings. */
export function streamOptions(
  version: ReadStreamVersion,
  s: StreamSettings,
  kind: { sequential: boolean; bulkread: boolean; perBufferData?: boolean; releaseBeforeNext?: boolean },
): ReadStreamOptions {
  const v18 = version >= 18;
  return {
    version,
    effectiveIoConcurrency: s.eic,
    ioCombineLimit: s.ioCombineLimit,
    ioMaxCombineLimit: v18 ? (s.ioMaxCombineLimit ?? undefined) : undefined,
    ioMethod: v18 ? s.ioMethod : "sync",
    flags: { sequential: kind.sequential },
    perBufferData: kind.perBufferData ?? false,
    consumerRelease: kind.releaseBeforeNext ? "before-next" : "after-next",
    strategy: kind.bulkread ? "bulkread" : "none",
    nBuffers: s.nBuffers,
    // As the simulator: the version's default MaxBackends + auxiliary processes with max_connections replaced.
    maxBackendsPlusAuxiliary: s.maxConnections - 100 + (v18 ? DEFAULT_PROCS_PG18 : DEFAULT_PROCS_PG17),
    adviceAvailable: !s.directIo,
  };
}

/**
 * Hands out up to `count` buffers (all when null) from a stream over
 * `source`; returns the blocks handed out and the reads started.
 */
export function driveStream(
  source: ReadStreamBlockSource,
  options: ReadStreamOptions,
  count: number | null,
  isBuffered: (block: number) => boolean = () => false,
): { blocks: number[]; reads: StreamRead[]; syscalls: string[]; stream: ReadStream } {
  const stream = new ReadStream(source, options);
  const reads: StreamRead[] = [];
  const syscalls: string[] = [];
  const token = (kind: string, io: { firstBlock: number; blocks: number }) =>
    `${kind}${io.firstBlock}+${io.blocks}`;
  const env: ReadStreamEnv = {
    isBuffered,
    startRead(io, nowUs) {
      reads.push({ firstBlock: io.firstBlock, blocks: io.blocks, advise: io.advise });
      if (io.advise) syscalls.push(token("a", io));
      // asynchronous (io_method worker): an I/O worker reads it now
      if (io.async) syscalls.push(token("w", io));
      return io.async ? nowUs + 1 : null;
    },
    waitRead(io, nowUs) {
      // synchronous: the backend's own preadv, when the consumer reaches the read
      if (!io.async) syscalls.push(token("r", io));
      return io.async ? Math.max(nowUs, io.readyAtUs ?? nowUs) : nowUs + 1;
    },
  };
  const blocks: number[] = [];
  let now = 0;
  while (count === null || blocks.length < count) {
    let step = stream.nextBuffer(now, env);
    if (step === null) break;
    if (step.kind === "wait") {
      now = Math.max(now, step.untilUs);
      step = stream.resume(now, env);
    }
    if (step.kind !== "buffer") throw new Error("the stream did not hand out a buffer after the wait");
    blocks.push(step.block);
    now += 1;
  }
  return { blocks, reads, syscalls, stream };
}
