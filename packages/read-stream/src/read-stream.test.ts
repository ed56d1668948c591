import { RELSEG_SIZE as RELSEG_SIZE_BLOCKS } from "@scanlab/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ReadStreamError } from "./errors.js";
import {
  ReadStream,
  type ReadStreamEnv,
  type ReadStreamIo,
  type ReadStreamOptions,
  readStreamConfig,
  segmentPieces,
} from "./read-stream.js";
import { backendPinLimit, bulkReadRingBuffers, maxPinnedBuffers } from "./read-stream-limits.js";

/**
 * A scripted world for read streams: a set of blocks already in shared buffers,
 * a fixed device latency, and the page cache effect of advice (an advised read
 * is in the page cache `latencyUs` after the advice, so the later preadv only
 * copies). Every call is logged.
 */
class FakeEnv implements ReadStreamEnv {
  readonly buffered: Set<number>;
  readonly log: Array<{ what: "start" | "wait"; io: ReadStreamIo; atUs: number }> = [];
  private readonly advisedReadyAt = new Map<number, number>();
  constructor(
    buffered: Iterable<number> = [],
    readonly latencyUs = 100,
    readonly copyUs = 5,
  ) {
    this.buffered = new Set(buffered);
  }
  isBuffered(block: number): boolean {
    return this.buffered.has(block);
  }
  startRead(io: ReadStreamIo, nowUs: number): number | null {
    this.log.push({ what: "start", io, atUs: nowUs });
    if (io.async) return nowUs + this.latencyUs;
    if (io.advise) this.advisedReadyAt.set(io.id, nowUs + this.latencyUs);
    return null;
  }
  waitRead(io: ReadStreamIo, nowUs: number): number {
    this.log.push({ what: "wait", io, atUs: nowUs });
    let done: number;
    if (io.async) done = io.readyAtUs as number;
    else {
      const advised = this.advisedReadyAt.get(io.id);
      done = advised === undefined ? nowUs + this.latencyUs : Math.max(nowUs + this.copyUs, advised);
    }
    for (let b = io.firstBlock; b < io.firstBlock + io.blocks; b++) this.buffered.add(b);
    return done;
  }
  starts(): ReadStreamIo[] {
    return this.log.filter((e) => e.what === "start").map((e) => e.io);
  }
}

interface Drained {
  blocks: number[];
  /** Distance after each step, while the source has not ended. */
  distances: number[];
  endUs: number;
  stream: ReadStream;
}

function listSource(blocks: readonly number[]): () => number | null {
  let i = 0;
  return () => (i < blocks.length ? (blocks[i++] as number) : null);
}

/** Consumes a whole stream, spending `cpuUs` per buffer; records the distance after every step. */
function drain(stream: ReadStream, env: ReadStreamEnv, cpuUs = 0): Drained {
  const blocks: number[] = [];
  const distances: number[] = [];
  let now = 0;
  let expectedSeq = 0;
  for (;;) {
    let step = stream.nextBuffer(now, env);
    if (step === null) break;
    if (step.kind === "wait") {
      expect(step.untilUs).toBeGreaterThan(now);
      now = step.untilUs;
      step = stream.resume(now, env);
    }
    expect(step.seq).toBe(expectedSeq++);
    blocks.push(step.block);
    // Distance 0 means the source has ended (PG sets distance = 0 at end of stream): not a regime.
    if (stream.distance > 0) distances.push(stream.distance);
    now += cpuUs;
  }
  expect(stream.nextBuffer(now, env)).toBeNull();
  return { blocks, distances, endUs: now, stream };
}

const range = (from: number, n: number, step = 1): number[] =>
  Array.from({ length: n }, (_, i) => from + i * step);

function open(blocks: readonly number[], options: ReadStreamOptions): ReadStream {
  return new ReadStream(listSource(blocks), options);
}

describe("PG17 read stream: the three regimes of the read_stream.c header (reference 4.2)", () => {
  it("all cached: distance stays at 1 and the fast path takes over, with no I/O", () => {
    const blocks = range(0, 100);
    const env = new FakeEnv(blocks);
    const r = drain(open(blocks, { version: 17, effectiveIoConcurrency: 16 }), env);
    expect(r.blocks).toEqual(blocks);
    expect(new Set(r.distances)).toEqual(new Set([1]));
    expect(r.stream.stats.ios).toBe(0);
    expect(r.stream.stats.hits).toBe(100);
    expect(r.stream.stats.waits).toBe(0);
  });

  it("sequential I/O: ramps 1, 2, 4, 8, 16 and then issues steady io_combine_limit reads, never advised", () => {
    const blocks = range(0, 200);
    const env = new FakeEnv();
    const r = drain(
      open(blocks, { version: 17, effectiveIoConcurrency: 16, flags: { sequential: true } }),
      env,
    );
    expect(r.blocks).toEqual(blocks);
    const sizes = env.starts().map((io) => io.blocks);
    // Reference 4.2: "A PG17 seq scan of uncached data thus ramps 1, 2, 4, 8, 16 and then issues steady
    // 16-block (128 kB) synchronous reads". 200 = 1 + 2 + 4 + 8 + 11 x 16 + 9.
    expect(sizes).toEqual([1, 2, 4, 8, ...Array(11).fill(16), 9]);
    expect(env.starts().every((io) => !io.advise)).toBe(true);
    expect(Math.max(...r.distances)).toBe(16);
  });

  it("sequential I/O without the SEQUENTIAL flag: reads continuing the last one are not advised (seq_blocknum)", () => {
    const blocks = range(0, 200);
    const env = new FakeEnv();
    const r = drain(open(blocks, { version: 17, effectiveIoConcurrency: 16 }), env);
    expect(env.starts().every((io) => !io.advise)).toBe(true);
    expect(r.stream.stats.distanceMax).toBe(16);
  });

  it("random I/O with advice: distance grows to max_pinned_buffers = max(4 x 16, 16) = 64", () => {
    const blocks = range(0, 300, 3);
    const env = new FakeEnv();
    const stream = open(blocks, { version: 17, effectiveIoConcurrency: 16 });
    expect(stream.config.maxPinnedBuffers).toBe(64);
    const r = drain(stream, env, 10);
    expect(Math.max(...r.distances)).toBe(64);
    const starts = env.starts();
    // The first read is waited for at once, so its advice is suppressed; every other one is a jump, advised.
    expect(starts[0]?.advise).toBe(false);
    expect(starts.slice(1).every((io) => io.advise && io.blocks === 1)).toBe(true);
    // max_ios = 16 caps the reads in flight.
    expect(r.stream.explain().prefetch.max).toBeLessThanOrEqual(64);
    expect(r.stream.stats.inProgressSum / r.stream.stats.ios).toBeLessThanOrEqual(16);
  });

  it("a cached block after the first ends a read and is included as its last element", () => {
    const env = new FakeEnv([12]);
    drain(open([10, 11, 12, 13, 14], { version: 17, effectiveIoConcurrency: 4, flags: { full: true } }), env);
    const ios = env.starts().map((io) => [io.firstBlock, io.blocks]);
    expect(ios).toEqual([
      [10, 2],
      [13, 2],
    ]);
  });
});

describe("the miss/hit alternation trap (reference 4.4, 6e36930f9a) and PG19's escape", () => {
  // Blocks 0, 5, 10, ...: every other one is already in shared buffers.
  const blocks = range(0, 200, 5);
  const cached = blocks.filter((_, i) => i % 2 === 1);

  for (const version of [17, 18] as const) {
    it(`PG${version}: "-1 per hit, x2 per miss" never lets the distance past 2, so every miss is waited for in full`, () => {
      const env = new FakeEnv(cached);
      const r = drain(open(blocks, { version, effectiveIoConcurrency: 16, ioMethod: "sync" }), env, 1);
      expect(r.stream.stats.distanceMax).toBe(2);
      expect(new Set(r.distances)).toEqual(new Set([1]));
      expect(r.stream.stats.ios).toBe(100);
      expect(r.stream.explain().io.inProgress).toBe(1);
      // Each miss costs a full device latency: 100 misses x 100 us.
      expect(r.endUs).toBeGreaterThanOrEqual(100 * 100);
    });
  }

  it("PG19: the decay hold-off keeps the distance through the hits, so misses are advised well ahead", () => {
    const env = new FakeEnv(cached);
    const r = drain(open(blocks, { version: 19, effectiveIoConcurrency: 16, ioMethod: "sync" }), env, 1);
    expect(r.stream.stats.distanceMax).toBe(r.stream.config.maxPinnedBuffers);
    expect(r.stream.explain().io.inProgress).toBeGreaterThan(4);
    const pg17 = drain(open(blocks, { version: 17, effectiveIoConcurrency: 16 }), new FakeEnv(cached), 1);
    expect(r.endUs).toBeLessThan(pg17.endUs / 4);
  });
});

describe("PG18 read stream (reference 4.3)", () => {
  it("doubles on every wait, advised or not: random reads with io_method=worker reach max_pinned_buffers", () => {
    const blocks = range(0, 400, 3);
    const noAdvice17 = drain(
      open(blocks, { version: 17, effectiveIoConcurrency: 16, adviceAvailable: false }),
      new FakeEnv(),
    );
    // PG17 without advice stays in behaviour B: at most io_combine_limit.
    expect(noAdvice17.stream.stats.distanceMax).toBe(16);
    const env = new FakeEnv();
    const r = drain(open(blocks, { version: 18, effectiveIoConcurrency: 16, ioMethod: "worker" }), env);
    expect(r.stream.config.maxPinnedBuffers).toBe(94);
    expect(r.stream.stats.distanceMax).toBe(94);
    expect(env.starts().every((io) => io.async && !io.advise)).toBe(true);
  });

  it("io_method=sync: a jump starts an advised sequential region until the consumer reaches its first I/O", () => {
    // A run at 0..63, a jump, and a run at 1000..1063, io_combine_limit 4.
    const blocks = [...range(0, 64), ...range(1000, 64)];
    const env = new FakeEnv();
    drain(
      open(blocks, { version: 18, effectiveIoConcurrency: 8, ioMethod: "sync", ioCombineLimit: 4 }),
      env,
      20,
    );
    const log = env.log;
    const firstWaitAt1000 = log.findIndex((e) => e.what === "wait" && e.io.firstBlock === 1000);
    expect(firstWaitAt1000).toBeGreaterThan(0);
    for (const [i, e] of log.entries()) {
      if (e.what !== "start") continue;
      const inSecondRun = e.io.firstBlock >= 1000;
      // The first run starts with nothing pinned (waited at once: no advice) and the consumer reaches that
      // read immediately, so the rest of the run is left to kernel read-ahead. In the second run, reads are
      // advised from the jump until the consumer has reached the read that began at block 1000.
      expect(e.io.advise).toBe(inSecondRun && i < firstWaitAt1000);
    }
    expect(log.some((e) => e.what === "start" && e.io.firstBlock === 1000 && e.io.advise)).toBe(true);
    expect(log.some((e) => e.what === "start" && e.io.firstBlock > 1000 && e.io.advise)).toBe(true);
  });

  it("a cached block inside a range splits the read before it and is forwarded as a one-block hit", () => {
    const env = new FakeEnv([12]);
    const r = drain(
      open([10, 11, 12, 13, 14], { version: 18, effectiveIoConcurrency: 4, flags: { full: true } }),
      env,
    );
    expect(r.blocks).toEqual([10, 11, 12, 13, 14]);
    expect(env.starts().map((io) => [io.firstBlock, io.blocks])).toEqual([
      [10, 2],
      [13, 2],
    ]);
    expect(r.stream.stats.hits).toBe(1);
  });

  it("never crosses a 1 GB segment boundary (PG17 still does; md.c splits the preadv)", () => {
    const start = RELSEG_SIZE_BLOCKS - 3;
    const blocks = range(start, 8);
    const opts = { effectiveIoConcurrency: 4, flags: { full: true }, ioCombineLimit: 8 } as const;
    const env18 = new FakeEnv();
    drain(open(blocks, { version: 18, ...opts }), env18);
    expect(env18.starts().map((io) => [io.firstBlock, io.blocks])).toEqual([
      [start, 3],
      [RELSEG_SIZE_BLOCKS, 5],
    ]);
    const env17 = new FakeEnv();
    drain(open(blocks, { version: 17, ...opts }), env17);
    expect(env17.starts().map((io) => [io.firstBlock, io.blocks])).toEqual([[start, 8]]);
    expect(segmentPieces(start, 8)).toEqual([
      [start, 3],
      [RELSEG_SIZE_BLOCKS, 5],
    ]);
  });

  it("effective_io_concurrency 0: one I/O at a time, synchronous, never advised", () => {
    const c = readStreamConfig({ version: 18, effectiveIoConcurrency: 0, ioMethod: "io_uring" });
    expect(c.maxIos).toBe(1);
    expect(c.asyncReads).toBe(false);
    expect(c.adviceEnabled).toBe(false);
    // (0 + 1) x io_combine_limit.
    expect(c.maxPinnedBuffers).toBe(16);
    const env = new FakeEnv();
    drain(open(range(0, 50, 2), { version: 18, effectiveIoConcurrency: 0, ioMethod: "io_uring" }), env);
    expect(env.starts().every((io) => !io.async && !io.advise)).toBe(true);
  });

  it("asynchronous reads that completed before the consumer arrives do not block it", () => {
    const env = new FakeEnv([], 100);
    const r = drain(
      open(range(0, 200, 7), { version: 18, effectiveIoConcurrency: 32, ioMethod: "io_uring" }),
      env,
      50,
    );
    expect(r.stream.stats.ioWaitCalls).toBe(200);
    expect(r.stream.stats.waits).toBeLessThan(10);
  });
});

describe("PG19 read stream: two distances and the decay hold-off (reference 4.4)", () => {
  it("combine distance doubles after every I/O; read-ahead distance only when the consumer blocked", () => {
    // io_uring reads that are already complete when the consumer gets there never block.
    const env: ReadStreamEnv = {
      isBuffered: () => false,
      startRead: (_io, nowUs) => nowUs,
      waitRead: (io) => io.readyAtUs as number,
    };
    const stream = open(range(0, 100), { version: 19, effectiveIoConcurrency: 16, ioMethod: "io_uring" });
    const starts: number[] = [];
    const seen: ReadStreamEnv = {
      ...env,
      startRead: (io, now) => {
        starts.push(io.blocks);
        return now;
      },
    };
    const r = drain(stream, seen);
    expect(new Set(r.distances)).toEqual(new Set([1]));
    expect(starts.slice(0, 6)).toEqual([1, 2, 4, 8, 16, 16]);
    expect(r.stream.stats.waits).toBe(0);
  });

  it("after an I/O, max_pinned_buffers no-I/O reads pass before the distances decay (PG18 decays at once)", () => {
    const blocks = [0, ...range(1000, 300, 2)];
    const cached = blocks.slice(1);
    const s19 = open(blocks, { version: 19, effectiveIoConcurrency: 16, ioMethod: "sync" });
    const s18 = open(blocks, { version: 18, effectiveIoConcurrency: 16, ioMethod: "sync" });
    const hold = s19.config.maxPinnedBuffers;
    const d19 = drain(s19, new FakeEnv(cached)).distances;
    const d18 = drain(s18, new FakeEnv(cached)).distances;
    // One synchronous miss doubles 1 -> 2 in both.
    expect(s19.stats.distanceMax).toBe(2);
    expect(s18.stats.distanceMax).toBe(2);
    // PG18: the first hit takes it back to 1. PG19: it stays at 2 through `hold` hits, then decays to 1.
    expect(d18[1]).toBe(1);
    expect(d19.slice(0, hold - 2).every((d) => d === 2)).toBe(true);
    expect(d19[d19.length - 2]).toBe(1);
  });

  it("a fast-path miss is read synchronously, without advice", () => {
    const blocks = range(0, 40, 2);
    const env = new FakeEnv(blocks.filter((b) => b !== 30));
    drain(open(blocks, { version: 19, effectiveIoConcurrency: 16, ioMethod: "sync" }), env);
    const miss = env.starts().find((io) => io.firstBlock === 30);
    expect(miss).toMatchObject({ advise: false, async: false, blocks: 1 });
    const env18 = new FakeEnv(blocks.filter((b) => b !== 30));
    drain(open(blocks, { version: 18, effectiveIoConcurrency: 16, ioMethod: "sync" }), env18);
    expect(env18.starts().find((io) => io.firstBlock === 30)?.advise).toBe(true);
  });
});

describe("max_pinned_buffers and the BULKREAD ring (reference 4.1, 2.7)", () => {
  it("PG17: max(4 x max_ios, io_combine_limit), capped by the 32-buffer ring for bulk reads", () => {
    expect(readStreamConfig({ version: 17, effectiveIoConcurrency: 16 }).maxPinnedBuffers).toBe(64);
    expect(readStreamConfig({ version: 17, effectiveIoConcurrency: 0 }).maxPinnedBuffers).toBe(16);
    expect(
      readStreamConfig({ version: 17, effectiveIoConcurrency: 1, strategy: "bulkread" }).maxPinnedBuffers,
    ).toBe(16);
    expect(
      readStreamConfig({ version: 17, effectiveIoConcurrency: 16, strategy: "bulkread" }).maxPinnedBuffers,
    ).toBe(32);
    expect(bulkReadRingBuffers(17, { ioCombineLimit: 16, effectiveIoConcurrency: 16 })).toBe(32);
  });

  it("PG18 defaults with shared_buffers 128 MB: pin limit 16384 / 174 = 94, ring 94 buffers", () => {
    expect(backendPinLimit(18)).toBe(94);
    expect(bulkReadRingBuffers(18, { ioCombineLimit: 16, effectiveIoConcurrency: 16 })).toBe(94);
    expect(readStreamConfig({ version: 18, effectiveIoConcurrency: 16 }).maxPinnedBuffers).toBe(94);
  });

  it("PG18 ring uncapped: 256 kB + 8 x 16 x 16 kB = 2304 kB = 288 buffers; small pools cap it", () => {
    // shared_buffers 1 GB: pin limit 131072 / 174 = 753 buffers = 6024 kB, above 2304 kB.
    expect(
      bulkReadRingBuffers(18, { nBuffers: 131072, ioCombineLimit: 16, effectiveIoConcurrency: 16 }),
    ).toBe(288);
    // 8 MB: pin limit 5 buffers, so the ring stays at the 256 kB minimum (32 buffers)...
    expect(bulkReadRingBuffers(18, { nBuffers: 1024, ioCombineLimit: 16, effectiveIoConcurrency: 16 })).toBe(
      32,
    );
    // ... and 1 MB caps that at NBuffers / 8.
    expect(bulkReadRingBuffers(18, { nBuffers: 128, ioCombineLimit: 16, effectiveIoConcurrency: 16 })).toBe(
      16,
    );
    expect(bulkReadRingBuffers(17, { nBuffers: 128, ioCombineLimit: 16, effectiveIoConcurrency: 1 })).toBe(
      16,
    );
  });

  it("PG18: (max_ios + 1) x io_combine_limit below the pin limit", () => {
    expect(
      maxPinnedBuffers(18, { maxIos: 2, ioCombineLimit: 16, strategyPinLimit: 16384, backendPinLimit: 1000 }),
    ).toBe(48);
    expect(
      readStreamConfig({ version: 18, effectiveIoConcurrency: 2, nBuffers: 1 << 20 }).maxPinnedBuffers,
    ).toBe(48);
  });

  it("io_max_combine_limit caps io_combine_limit in PG18+", () => {
    expect(
      readStreamConfig({ version: 18, effectiveIoConcurrency: 1, ioCombineLimit: 64, ioMaxCombineLimit: 32 })
        .ioCombineLimit,
    ).toBe(32);
  });
});

describe("bad parameters are user errors with one sentence", () => {
  const cases: Array<[ReadStreamOptions, string, RegExp]> = [
    [
      { version: 17, effectiveIoConcurrency: 1001 },
      "READ_STREAM_BAD_EIC",
      /effective_io_concurrency .* 0 to 1000/,
    ],
    [{ version: 18, effectiveIoConcurrency: -1 }, "READ_STREAM_BAD_EIC", /effective_io_concurrency/],
    [
      { version: 17, effectiveIoConcurrency: 1, ioCombineLimit: 33 },
      "READ_STREAM_BAD_IO_COMBINE_LIMIT",
      /1 to 32 blocks in PostgreSQL 17/,
    ],
    [
      { version: 18, effectiveIoConcurrency: 1, ioCombineLimit: 129 },
      "READ_STREAM_BAD_IO_COMBINE_LIMIT",
      /1 to 128 blocks in PostgreSQL 18/,
    ],
    [
      { version: 19, effectiveIoConcurrency: 1, ioCombineLimit: 0 },
      "READ_STREAM_BAD_IO_COMBINE_LIMIT",
      /io_combine_limit/,
    ],
    [
      { version: 17, effectiveIoConcurrency: 1, ioMaxCombineLimit: 16 },
      "READ_STREAM_BAD_IO_COMBINE_LIMIT",
      /io_max_combine_limit/,
    ],
    [{ version: 16 as 17, effectiveIoConcurrency: 1 }, "READ_STREAM_BAD_VERSION", /17, 18 and 19/],
    [
      { version: 17, effectiveIoConcurrency: 1, ioMethod: "io_uring" },
      "READ_STREAM_BAD_IO_METHOD",
      /no asynchronous I\/O/,
    ],
    [{ version: 18, effectiveIoConcurrency: 1, nBuffers: 3 }, "READ_STREAM_BAD_PARAMETER", /nBuffers/],
  ];
  for (const [options, code, message] of cases) {
    it(`${code}: ${message.source}`, () => {
      let caught: unknown = null;
      try {
        new ReadStream(() => null, options);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(ReadStreamError);
      const e = caught as ReadStreamError;
      expect(e.code).toBe(code);
      expect(e.message).toMatch(message);
      expect(e.message).toMatch(/^[^\n]+\.$/);
    });
  }

  it("accepts the largest io_combine_limit of each version", () => {
    expect(() =>
      readStreamConfig({ version: 17, effectiveIoConcurrency: 1, ioCombineLimit: 32 }),
    ).not.toThrow();
    expect(() =>
      readStreamConfig({ version: 18, effectiveIoConcurrency: 1, ioCombineLimit: 128 }),
    ).not.toThrow();
  });

  it("rejects calls out of protocol as programming errors", () => {
    const stream = open([1, 2, 3], { version: 18, effectiveIoConcurrency: 1, ioMethod: "sync" });
    const env = new FakeEnv();
    const step = stream.nextBuffer(100, env);
    expect(step?.kind).toBe("wait");
    expect(() => stream.nextBuffer(200, env)).toThrow(/resume/);
    expect(() => stream.resume(150, env)).toThrow(/before the I\/O completes/);
    stream.resume(200, env);
    expect(() => stream.nextBuffer(50, env)).toThrow(/backwards/);
  });
});

describe("property: any source, any cache state, any version", () => {
  it("hands out the source's blocks in order, within the pin and I/O limits, each uncached block read once", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: RELSEG_SIZE_BLOCKS - 200, max: RELSEG_SIZE_BLOCKS + 200 }), {
          minLength: 0,
          maxLength: 200,
        }),
        fc.boolean(),
        fc.uniqueArray(fc.integer({ min: RELSEG_SIZE_BLOCKS - 200, max: RELSEG_SIZE_BLOCKS + 200 }), {
          maxLength: 150,
        }),
        fc.constantFrom(17 as const, 18 as const, 19 as const),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 1, max: 32 }),
        fc.constantFrom("sync" as const, "worker" as const, "io_uring" as const),
        fc.integer({ min: 0, max: 30 }),
        (raw, sortIt, cachedList, version, eic, icl, method, cpuUs) => {
          const blocks = sortIt ? [...raw].sort((a, b) => a - b) : raw;
          const env = new FakeEnv(cachedList, 80);
          const initiallyCached = new Set(cachedList);
          const stream = open(blocks, {
            version,
            effectiveIoConcurrency: eic,
            ioCombineLimit: icl,
            ioMethod: version === 17 ? "sync" : method,
          });
          let maxInFlight = 0;
          const counting: ReadStreamEnv = {
            isBuffered: (b) => env.isBuffered(b),
            startRead: (io, now) => {
              maxInFlight = Math.max(maxInFlight, stream.iosInProgress + 1);
              return env.startRead(io, now);
            },
            waitRead: (io, now) => env.waitRead(io, now),
          };
          const r = drain(stream, counting, cpuUs);
          expect(r.blocks).toEqual(blocks);
          expect(stream.stats.pinnedMax).toBeLessThanOrEqual(stream.config.maxPinnedBuffers);
          expect(maxInFlight).toBeLessThanOrEqual(stream.config.maxIos);
          const read: number[] = [];
          for (const io of env.starts()) {
            expect(io.blocks).toBeGreaterThan(0);
            expect(io.blocks).toBeLessThanOrEqual(stream.config.ioCombineLimit);
            if (version !== 17) {
              expect(Math.floor(io.firstBlock / RELSEG_SIZE_BLOCKS)).toBe(
                Math.floor((io.firstBlock + io.blocks - 1) / RELSEG_SIZE_BLOCKS),
              );
            }
            if (io.advise) expect(stream.config.adviceEnabled).toBe(true);
            for (let b = io.firstBlock; b < io.firstBlock + io.blocks; b++) read.push(b);
          }
          expect([...read].sort((a, b) => a - b)).toEqual(
            blocks.filter((b) => !initiallyCached.has(b)).sort((a, b) => a - b),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
