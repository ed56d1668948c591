/**
 * Each generator against the copy it replaced, kept here verbatim as the
 * oracle: the simulated figures and generated data sets depend on the exact
 * streams, so core must give identical numbers for every seed.
 */
import { describe, expect, it } from "vitest";
import { mulberry32, scrambleSeed32, sfc32, xorshift32 } from "../src/seeded-random.js";

// device-profiles/src/seeded-random.ts (seededRandom) and readahead/src/scan-harness.ts (mulberry32).
function oldMulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// bitmap-prefetch/src/prng.ts (seededRandom).
function oldSplitmix32(state: number): [number, number] {
  const s = (state + 0x9e3779b9) | 0;
  let z = s;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return [s, (z ^ (z >>> 16)) >>> 0];
}
function oldSfc32(seed: number) {
  let s = (Math.trunc(seed) ^ Math.trunc(seed / 0x100000000)) | 0;
  let a: number;
  let b: number;
  let c: number;
  [s, a] = oldSplitmix32(s);
  [s, b] = oldSplitmix32(s);
  [s, c] = oldSplitmix32(s);
  let d = 1;
  const nextUint32 = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 12; i++) nextUint32();
  return {
    nextUint32,
    below(n: number): number {
      const x = nextUint32();
      const hi = Math.floor(n / 0x10000);
      const lo = n % 0x10000;
      return Math.floor((x * hi + Math.floor((x * lo) / 0x10000)) / 0x10000);
    },
  };
}

// simulator/src/engine/pg/cpu-jitter.ts (CpuJitter's seeding and next()).
function oldCpuJitter(seed: number): () => number {
  let s = (seed ^ 0x9e3779b9) >>> 0;
  s = Math.imul(s ^ (s >>> 16), 0x85ebca6b) >>> 0;
  s = Math.imul(s ^ (s >>> 13), 0xc2b2ae35) >>> 0;
  let state = (s ^ (s >>> 16)) >>> 0 || 1;
  return () => {
    let x = state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    state = x >>> 0;
    return state / 4294967296;
  };
}

// readahead/src/extent-list.ts (randomLevel) and file-scan/test/files.ts: raw xorshift32 words.
function oldXorshiftWords(state: number): () => number {
  let x = state >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}

const SEEDS = [
  0,
  1,
  2,
  7,
  42,
  0x2545f491,
  0x7fffffff,
  0x80000000,
  0xffffffff,
  2 ** 32,
  2 ** 40 + 3,
  -1,
  -12345,
  1e15,
];
const DRAWS = 2000;

describe("seeded generators give the streams of the copies they replaced", () => {
  it("mulberry32", () => {
    for (const seed of SEEDS) {
      const ours = mulberry32(seed);
      const old = oldMulberry32(seed);
      for (let i = 0; i < DRAWS; i++) expect(ours.nextFloat()).toBe(old());
    }
  });

  it("sfc32 (integers and bounded draws, interleaved)", () => {
    const bounds = [1, 2, 3, 6, 1000, 65535, 65536, 65537, 1e6, 2 ** 31, 2 ** 32 - 1, 2 ** 32];
    for (const seed of SEEDS) {
      const ours = sfc32(seed);
      const old = oldSfc32(seed);
      for (let i = 0; i < DRAWS; i++) {
        if (i % 2 === 0) expect(ours.nextUint32()).toBe(old.nextUint32());
        else {
          const n = bounds[i % bounds.length]!;
          expect(ours.below(n)).toBe(old.below(n));
        }
      }
    }
  });

  it("xorshift32 from scrambleSeed32 (the CPU-jitter stream)", () => {
    for (const seed of SEEDS) {
      const ours = xorshift32(scrambleSeed32(seed));
      const old = oldCpuJitter(seed);
      for (let i = 0; i < DRAWS; i++) expect(ours.nextFloat()).toBe(old());
    }
  });

  it("xorshift32 from a raw state (extent towers, test file contents)", () => {
    for (const state of [0, 1, 0x2545f491, 0xdeadbeef, 0xffffffff]) {
      const ours = xorshift32(state);
      const old = oldXorshiftWords(state);
      for (let i = 0; i < DRAWS; i++) expect(ours.nextUint32()).toBe(old());
    }
  });

  it("the streams differ between seeds and between algorithms", () => {
    expect(mulberry32(1).nextUint32()).not.toBe(mulberry32(2).nextUint32());
    expect(sfc32(1).nextUint32()).not.toBe(mulberry32(1).nextUint32());
  });

  it("below(n) stays in [0, n)", () => {
    for (const make of [mulberry32, sfc32, xorshift32]) {
      const r = make(9);
      for (let i = 0; i < 1000; i++) {
        const v = r.below(7);
        expect(v >= 0 && v < 7 && Number.isInteger(v)).toBe(true);
      }
    }
  });

  it("each factory's source runs on its own (workers embed it as text)", () => {
    const rebuilt = new Function(`return (${mulberry32.toString()})`)() as typeof mulberry32;
    const a = rebuilt(5);
    const b = mulberry32(5);
    for (let i = 0; i < 100; i++) expect(a.nextFloat()).toBe(b.nextFloat());
  });
});
