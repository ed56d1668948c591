/**
 * Seeded pseudo-random generators: the same seed gives the same numbers on
 * every machine and in the browser.
 *
 * Problem: simulated figures, generated data sets and test files must be
 * reproducible bit for bit, so nothing may use `Math.random`. Several
 * packages each carried a generator of their own.
 *
 * Insight: the figures already published depend on the exact streams, so the
 * algorithms cannot be merged into one without changing them. What can be
 * shared is one interface, {@link SeededRandom}, and one implementation of
 * each algorithm.
 *
 * Design choices:
 * - Integer-only arithmetic (`Math.imul`, shifts), exact in every engine.
 * - {@link mulberry32} (Tommy Ettinger, public domain): one 32-bit word of
 *   state; used where a stream of uniform numbers is drawn from a small seed.
 * - {@link sfc32} (Chris Doty-Humphrey's Small Fast Counting generator,
 *   PractRand), seeded through splitmix32 so nearby seeds give unrelated
 *   streams, with 12 outputs discarded; used for generated data sets.
 * - {@link xorshift32} (Marsaglia, "Xorshift RNGs", J. Stat. Softw. 8(14),
 *   2003; shifts 13, 17, 5) from a raw nonzero state, and
 *   {@link scrambleSeed32} (MurmurHash3's fmix32 of the seed xor the golden
 *   ratio) to turn any seed into such a state.
 * - Each factory is self-contained (it refers to nothing else in this
 *   module), so its source text can be embedded in a worker started from a
 *   string.
 */

/** A deterministic generator. Every method advances the same stream. */
export interface SeededRandom {
  /** Next unsigned 32-bit integer. */
  nextUint32(): number;
  /** Next number in [0, 1): the next 32-bit integer / 2^32. */
  nextFloat(): number;
  /** Uniform integer in [0, n) for 1 <= n <= 2^32 (multiply-shift of the next integer, no modulo). */
  below(n: number): number;
}

/**
 * mulberry32 from a 32-bit seed (the seed is taken modulo 2^32).
 *
 * @example
 * ```ts
 * import { mulberry32 } from "@scanlab/core";
 * const r = mulberry32(42);
 * console.log(r.nextFloat() === mulberry32(42).nextFloat()); // true
 * ```
 */
export function mulberry32(seed: number): SeededRandom {
  let a = seed >>> 0;
  const nextUint32 = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  return {
    nextUint32,
    nextFloat: () => nextUint32() / 4294967296,
    below(n: number): number {
      // (x * n) / 2^32 exactly, split so the product stays below 2^53.
      const x = nextUint32();
      return Math.floor((x * Math.floor(n / 0x10000) + Math.floor((x * (n % 0x10000)) / 0x10000)) / 0x10000);
    },
  };
}

/**
 * sfc32 from any integer seed (negative seeds and seeds above 2^32 are folded
 * to 32 bits), seeded through splitmix32.
 *
 * @example
 * ```ts
 * import { sfc32 } from "@scanlab/core";
 * const r = sfc32(7);
 * console.log(r.below(6) < 6); // true
 * ```
 */
export function sfc32(seed: number): SeededRandom {
  let s = (Math.trunc(seed) ^ Math.trunc(seed / 0x100000000)) | 0;
  const splitmix32 = (): number => {
    s = (s + 0x9e3779b9) | 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = splitmix32();
  let b = splitmix32();
  let c = splitmix32();
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
  // Discard a few outputs so the first values do not mirror the seed mixing.
  for (let i = 0; i < 12; i++) nextUint32();
  return {
    nextUint32,
    nextFloat: () => nextUint32() / 4294967296,
    below(n: number): number {
      const x = nextUint32();
      return Math.floor((x * Math.floor(n / 0x10000) + Math.floor((x * (n % 0x10000)) / 0x10000)) / 0x10000);
    },
  };
}

/**
 * xorshift32 from a raw state. A state of 0 would stay 0 forever, so 0 is
 * replaced by 1; use {@link scrambleSeed32} to start from an arbitrary seed.
 *
 * @example
 * ```ts
 * import { scrambleSeed32, xorshift32 } from "@scanlab/core";
 * const r = xorshift32(scrambleSeed32(3));
 * console.log(r.nextUint32() > 0); // true
 * ```
 */
export function xorshift32(state: number): SeededRandom {
  let x = state >>> 0 || 1;
  const nextUint32 = (): number => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
  return {
    nextUint32,
    nextFloat: () => nextUint32() / 4294967296,
    below(n: number): number {
      const v = nextUint32();
      return Math.floor((v * Math.floor(n / 0x10000) + Math.floor((v * (n % 0x10000)) / 0x10000)) / 0x10000);
    },
  };
}

/**
 * A nonzero 32-bit state from any 32-bit seed: MurmurHash3's fmix32 finalizer
 * applied to `seed ^ 0x9e3779b9`, so nearby seeds give unrelated states.
 *
 * @example
 * ```ts
 * import { scrambleSeed32 } from "@scanlab/core";
 * console.log(scrambleSeed32(1) !== scrambleSeed32(2)); // true
 * ```
 */
export function scrambleSeed32(seed: number): number {
  let s = (seed ^ 0x9e3779b9) >>> 0;
  s = Math.imul(s ^ (s >>> 16), 0x85ebca6b) >>> 0;
  s = Math.imul(s ^ (s >>> 13), 0xc2b2ae35) >>> 0;
  return (s ^ (s >>> 16)) >>> 0 || 1;
}
