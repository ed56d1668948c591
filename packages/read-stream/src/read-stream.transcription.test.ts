/**
 * PG17 and PG18 (io_method=sync) read streams against a literal transcription
 * of apps/docs/src/reference/read-streams.md#pg17-look-ahead, apps/docs/src/reference/read-streams.md#pg18-changes, written from the reference text
 * independently of read-stream.ts. With per-buffer data (a bitmap heap scan's
 * stream) there is no all-cached fast path, and the default buffer pool is
 * large enough that no pin limit cuts a read, so the transcription needs only
 * the look-ahead, StartReadBuffers, the advice rules and the distance rules.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ReadStream, type ReadStreamEnv, type ReadStreamIo } from "./read-stream.js";

interface RefIo {
  first: number;
  n: number;
  advise: boolean;
  /** Position (in hand-out order) of its first buffer. */
  head: number;
}

/** Transcription of reference 4.2 (PG17) / 4.3 (PG18, io_method=sync). */
class RefStream {
  distance = 1;
  readonly queue: number[] = []; // blocks pinned so far, in order; consumed ones stay (index = position)
  consumed = 0;
  pendStart = 0;
  pendN = 0;
  ungot: number | null = null;
  seqBlocknum = -1;
  seqUntil = -1;
  forwarded = false;
  readonly ios: RefIo[] = [];
  readonly started: Array<[number, number, boolean]> = [];
  readonly maxPinned: number;
  readonly maxIos: number;
  readonly advice: boolean;
  constructor(
    readonly v: 17 | 18,
    readonly eic: number,
    readonly icl: number,
    readonly source: () => number | null,
    readonly cached: Set<number>,
  ) {
    // 4.1, capped by the default pool's backend share (2.7): PG17 16384 / 128 - 8 = 120 (never reached
    // here), PG18 GetPinLimit() = 16384 / 174 = 94.
    this.maxPinned = v === 17 ? Math.min(Math.max(4 * eic, icl), 120) : Math.min((eic + 1) * icl, 94);
    this.maxIos = Math.max(1, eic);
    this.advice = eic > 0;
  }
  get pinned(): number {
    return this.queue.length - this.consumed;
  }
  private start(suppress: boolean): void {
    const b = this.pendStart;
    let advise = false;
    if (this.v === 17) advise = !suppress && this.advice && b !== this.seqBlocknum;
    else if (this.advice) {
      if (b === this.seqBlocknum) advise = this.seqUntil !== -1;
      else {
        this.seqUntil = b;
        advise = this.pinned > 0;
      }
    }
    let n = this.pendN;
    let io = n;
    if (this.v === 17) {
      // The range stops at the first cached block after block 0, which is included as its last element.
      for (let i = 0; i < n; i++)
        if (this.cached.has(b + i)) {
          n = i + 1;
          io = i;
          break;
        }
    } else if (this.forwarded || this.cached.has(b)) {
      this.forwarded = false;
      n = 1;
      io = 0;
    } else {
      for (let i = 1; i < n; i++)
        if (this.cached.has(b + i)) {
          n = i;
          this.forwarded = true; // split before it, kept pinned for the next read
          break;
        }
      io = n;
    }
    const head = this.queue.length;
    for (let i = 0; i < n; i++) this.queue.push(b + i);
    if (io === 0) {
      if (this.distance > 1) this.distance--;
    } else {
      this.ios.push({ first: b, n: io, advise, head });
      this.started.push([b, io, advise]);
      this.seqBlocknum = b + n;
    }
    this.pendStart += n;
    this.pendN -= n;
  }
  private lookAhead(suppressAtStart: boolean): void {
    let suppress = this.v === 17 && suppressAtStart;
    while (this.ios.length < this.maxIos && this.pinned + this.pendN < this.distance) {
      if (this.pendN === this.icl) {
        this.start(suppress);
        suppress = false;
        continue;
      }
      let b: number | null;
      if (this.ungot !== null) {
        b = this.ungot;
        this.ungot = null;
      } else b = this.source();
      if (b === null) {
        this.distance = 0;
        break;
      }
      if (this.pendN > 0 && this.pendStart + this.pendN === b) {
        this.pendN++;
        continue;
      }
      while (this.pendN > 0) {
        this.start(suppress);
        suppress = false;
        if (this.ios.length === this.maxIos) {
          this.ungot = b;
          return;
        }
      }
      this.pendStart = b;
      this.pendN = 1;
    }
    const reachedDistance = this.v === 17 ? this.pendN === this.distance : this.pendN >= this.distance;
    if (
      this.pendN > 0 &&
      (this.pendN === this.icl || (reachedDistance && this.pinned === 0) || this.distance === 0) &&
      this.ios.length < this.maxIos
    )
      this.start(suppress);
  }
  next(): number | null {
    if (this.pinned === 0) {
      if (this.distance === 0) return null;
      this.lookAhead(true);
      if (this.pinned === 0) return null;
    }
    const io = this.ios[0];
    if (io !== undefined && io.head === this.consumed) {
      this.ios.shift();
      for (let i = 0; i < io.n; i++) this.cached.add(io.first + i);
      if (this.v === 18) this.distance = Math.min(2 * this.distance, this.maxPinned);
      else if (io.advise) this.distance = Math.min(2 * this.distance, this.maxPinned);
      else if (this.distance > this.icl) this.distance--;
      else this.distance = Math.min(2 * this.distance, this.icl, this.maxPinned);
      if (this.v === 18 && this.advice && io.first === this.seqUntil) this.seqUntil = -1;
    }
    const block = this.queue[this.consumed] as number;
    this.consumed++;
    this.lookAhead(false);
    return block;
  }
}

describe("read streams = transcription of reference 4.2 (PG17) and 4.3 (PG18, io_method=sync)", () => {
  it("same reads (first block, size, advice) in the same order, same distance after every buffer", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(17 as const, 18 as const),
        fc.array(
          fc.oneof(
            { weight: 3, arbitrary: fc.constant(0) },
            { weight: 1, arbitrary: fc.integer({ min: 1, max: 6 }) },
          ),
          { minLength: 0, maxLength: 150 },
        ),
        fc.uniqueArray(fc.integer({ min: 0, max: 400 }), { maxLength: 80 }),
        fc.integer({ min: 0, max: 24 }),
        fc.integer({ min: 1, max: 16 }),
        (version, gaps, cachedList, eic, icl) => {
          // Ascending blocks (a bitmap): gap 0 = the next block, so runs of consecutive blocks are common.
          const blocks: number[] = [];
          let b = 0;
          for (const g of gaps) {
            b += g === 0 ? 1 : g * 3;
            blocks.push(b);
          }
          let i = 0;
          let j = 0;
          const ref = new RefStream(version, eic, icl, () => blocks[j++] ?? null, new Set(cachedList));
          const buffered = new Set(cachedList);
          const started: Array<[number, number, boolean]> = [];
          const env: ReadStreamEnv = {
            isBuffered: (x) => buffered.has(x),
            startRead: (io: ReadStreamIo) => {
              started.push([io.firstBlock, io.blocks, io.advise]);
              return null;
            },
            waitRead: (io, nowUs) => {
              for (let x = io.firstBlock; x < io.firstBlock + io.blocks; x++) buffered.add(x);
              return nowUs + 100;
            },
          };
          const stream = new ReadStream(() => blocks[i++] ?? null, {
            version,
            effectiveIoConcurrency: eic,
            ioCombineLimit: icl,
            ioMethod: "sync",
            perBufferData: true,
          });
          expect(stream.config.maxPinnedBuffers).toBe(ref.maxPinned);
          let now = 0;
          for (;;) {
            const want = ref.next();
            let got = stream.nextBuffer(now, env);
            if (got !== null && got.kind === "wait") {
              now = got.untilUs;
              got = stream.resume(now, env);
            }
            expect(got?.block ?? null).toBe(want);
            expect(started).toEqual(ref.started);
            expect(stream.distance).toBe(ref.distance);
            if (want === null) break;
            now += 1;
          }
        },
      ),
      { numRuns: 400, seed: 20261130 },
    );
  });
});
