/**
 * Worked read-stream traces, expected values derived by hand from
 * apps/docs/src/reference/read-streams.md (not from the code's output).
 */
import { describe, expect, it } from "vitest";
import { ReadStream, type ReadStreamEnv, type ReadStreamIo, readStreamConfig } from "./read-stream.js";
import { backendPinLimit } from "./read-stream-limits.js";

/** Nothing cached; every read takes 100 us when waited for; records every started read. */
function recordingEnv(): { env: ReadStreamEnv; started: ReadStreamIo[] } {
  const started: ReadStreamIo[] = [];
  const buffered = new Set<number>();
  const env: ReadStreamEnv = {
    isBuffered: (b) => buffered.has(b),
    startRead: (io, nowUs) => {
      started.push(io);
      return io.async ? nowUs + 100 : null;
    },
    waitRead: (io, nowUs) => {
      for (let b = io.firstBlock; b < io.firstBlock + io.blocks; b++) buffered.add(b);
      return io.async ? (io.readyAtUs as number) : nowUs + 100;
    },
  };
  return { env, started };
}

/** Drains the stream; returns the blocks handed out and the distance after each hand-out. */
function drain(stream: ReadStream, env: ReadStreamEnv): { blocks: number[]; distances: number[] } {
  const blocks: number[] = [];
  const distances: number[] = [];
  let now = 0;
  for (let s = stream.nextBuffer(now, env); s !== null; s = stream.nextBuffer(now, env)) {
    if (s.kind === "wait") {
      now = s.untilUs;
      s = stream.resume(now, env);
    }
    blocks.push(s.block);
    distances.push(stream.distance);
    now += 1;
  }
  return { blocks, distances };
}

const ioTuple = (io: ReadStreamIo): [number, number, boolean] => [io.firstBlock, io.blocks, io.advise];
const run = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
/** A block source handing out `blocks` in order, then null. */
const listSource = (blocks: readonly number[]) => {
  let i = 0;
  return () => blocks[i++] ?? null;
};

// Blocks 0..3, a jump, 100..111; io_combine_limit 4, effective_io_concurrency 4, nothing cached.
const jumpBlocks = [...run(0, 4), ...run(100, 12)];

describe("PG17: advice only for jumps, never at start-up or for a read continuing the last I/O (reference 4.2)", () => {
  // max_pinned = max(4 x 4, 4) = 16. Hand trace (d = distance):
  //  start-up (advice suppressed): d 1, read [0] unadvised; seq_blocknum 1. Wait, not advised, d <= 4: d 2.
  //  look-ahead: 1, 2 merge; 2 = d with nothing pinned: start [1..2], 1 = seq_blocknum: no advice; seq 3.
  //  wait: d 4. look-ahead: 3, then 100 does not follow: start [3], = seq_blocknum 3: no advice; seq 4.
  //  100, 101, 102 pile up in the pending read (not full, not = d with pins), waiting to grow.
  //  wait for [3]: not advised and d = 4 <= io_combine_limit: d min(8, 4) = 4. Then 103 fills the pending
  //  read to io_combine_limit: start [100..103], 100 != seq_blocknum 4: advised; seq 104.
  //  wait for [100..103]: advised, d min(8, 16) = 8. Look-ahead: [104..107] full, = seq_blocknum: no advice.
  //  108..111 fill the next: [108..111], = seq_blocknum 108: no advice.
  //  wait for [104..107]: not advised and d 8 > 4: d - 1 = 7 (behaviour B, towards io_combine_limit).
  it("reads [0] [1-2] [3] unadvised, [100-103] advised, [104-107] [108-111] unadvised; distance 2, 4, 4, 8, then 7", () => {
    const { env, started } = recordingEnv();
    const stream = new ReadStream(listSource(jumpBlocks), {
      version: 17,
      effectiveIoConcurrency: 4,
      ioCombineLimit: 4,
    });
    expect(stream.config.maxPinnedBuffers).toBe(16);
    const r = drain(stream, env);
    expect(r.blocks).toEqual(jumpBlocks);
    expect(started.map(ioTuple)).toEqual([
      [0, 1, false],
      [1, 2, false],
      [3, 1, false],
      [100, 4, true],
      [104, 4, false],
      [108, 4, false],
    ]);
    // Distances after handing out blocks 0, 1, 2, 3, 100, 101, 102, 103, 104. After 104 the look-ahead has
    // 7 pinned buffers, so it does not ask the source yet; at 105 the source ends and the distance becomes 0.
    expect(r.distances.slice(0, 10)).toEqual([2, 4, 4, 4, 8, 8, 8, 8, 7, 0]);
    expect(stream.stats.distanceMax).toBe(8);
    expect(stream.stats.adviceBlocks).toBe(4);
  });
});

describe("PG18 io_method=sync: advice from a jump until the consumer reaches it (reference 4.3, 7ea8cd1566)", () => {
  // max_pinned = (4 + 1) x 4 = 20. Hand trace:
  //  [0]: a jump (seq_blocknum unset): seq_until_processed = 0, but nothing is pinned: no advice. Wait: d 2,
  //  and the consumer reached block 0 = seq_until_processed: advice off until the next jump.
  //  [1..2] continues (seq_blocknum 1), advice off. Wait: d 4. [3] continues: off. 100..102 pending.
  //  Wait for [3]: d 8 (18 doubles on every wait). 103 fills [100..103]: a jump with nothing pinned:
  //  seq_until_processed = 100, no advice (it is waited for at once). Look-ahead goes on: [104..107]
  //  continues the last read while seq_until_processed is set: advised. Wait for [100..103]: d 16 and
  //  advice stops; [108..111] continues: not advised.
  it("reads [0] [1-2] [3] [100-103] unadvised, [104-107] advised, [108-111] unadvised", () => {
    const { env, started } = recordingEnv();
    const stream = new ReadStream(listSource(jumpBlocks), {
      version: 18,
      effectiveIoConcurrency: 4,
      ioCombineLimit: 4,
      ioMethod: "sync",
    });
    expect(stream.config.maxPinnedBuffers).toBe(20);
    const r = drain(stream, env);
    expect(r.blocks).toEqual(jumpBlocks);
    expect(started.map(ioTuple)).toEqual([
      [0, 1, false],
      [1, 2, false],
      [3, 1, false],
      [100, 4, false],
      [104, 4, true],
      [108, 4, false],
    ]);
    expect(stream.stats.distanceMax).toBe(16);
  });
});

describe("pin limits from shared_buffers and MaxBackends (reference 4.1, 2.7)", () => {
  // shared_buffers 1600 buffers, 100 backend + auxiliary slots: fair share 1600 / 100 = 16.
  it("PG17 subtracts the 8 pins LimitAdditionalPins assumes held: max(4 x 16, 16) = 64 -> 16 - 8 = 8", () => {
    expect(backendPinLimit(17, { nBuffers: 1600, maxBackendsPlusAuxiliary: 100 })).toBe(8);
    expect(
      readStreamConfig({
        version: 17,
        effectiveIoConcurrency: 16,
        nBuffers: 1600,
        maxBackendsPlusAuxiliary: 100,
      }).maxPinnedBuffers,
    ).toBe(8);
  });

  it("PG18: (16 + 1) x 16 = 272 capped at GetPinLimit() = 16", () => {
    expect(backendPinLimit(18, { nBuffers: 1600, maxBackendsPlusAuxiliary: 100 })).toBe(16);
    expect(
      readStreamConfig({
        version: 18,
        effectiveIoConcurrency: 16,
        nBuffers: 1600,
        maxBackendsPlusAuxiliary: 100,
      }).maxPinnedBuffers,
    ).toBe(16);
  });

  it("too few buffers for the backends: PG18 still pins at least 1", () => {
    // 16 / 174 = 0 -> max(1, 0) = 1.
    expect(backendPinLimit(18, { nBuffers: 16 })).toBe(0);
    expect(readStreamConfig({ version: 18, effectiveIoConcurrency: 16, nBuffers: 16 }).maxPinnedBuffers).toBe(
      1,
    );
  });

  // PG18 (92fc6856cb) repeats the remaining-pin check before every read. Pin allowance 94 (the PG18
  // default pool's GetPinLimit()); with 92 pins held elsewhere 2 remain. FULL flag: distance starts at
  // min(94, 16) = 16, so 0..15 form one 16-block pending read. Before starting it only 2 pins are
  // allowed: distance = pinned (0) + 2, and with nothing pinned a short 2-block read makes progress.
  // From then on the page just handed to the consumer is still pinned while the stream looks ahead
  // (and a scan's tuple slot holds the page before it), so at most 1 pin remains: with nothing
  // pinned, one-block reads. PG17 has no per-read check: one 16-block read.
  it("PG18 cuts every read to the pins left (2, then 1 while the consumer holds a page); PG17 reads 16 blocks at once", () => {
    for (const [version, sizes] of [
      [18, [2, ...Array<number>(14).fill(1)]],
      [17, [16]],
    ] as const) {
      const { env, started } = recordingEnv();
      let i = 0;
      const stream = new ReadStream(() => (i < 16 ? i++ : null), {
        version,
        effectiveIoConcurrency: 16,
        ioMethod: "sync",
        flags: { full: true },
        // The same 94-pin allowance for both versions, so only the per-read check differs.
        backendPinLimit: 94,
        otherPinsHeld: 92,
      });
      expect(drain(stream, env).blocks).toEqual(run(0, 16));
      expect(started.map((io) => io.blocks)).toEqual(sizes);
      expect(started.map((io) => io.firstBlock)).toEqual(version === 18 ? [0, ...run(2, 14)] : [0]);
    }
  });
});
