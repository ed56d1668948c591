/**
 * The package's only source of randomness: a seeded 32-bit generator.
 *
 * Data sets must be byte-identical for a given seed on every machine and in
 * the browser, so this is integer-only arithmetic (Math.imul and shifts), no
 * Math.random. The generator is sfc32 (Chris Doty-Humphrey's Small Fast
 * Counting generator, PractRand), seeded through splitmix32 so that nearby
 * seeds give unrelated streams.
 */

/** A deterministic generator of unsigned 32-bit integers. @internal */
export interface SeededRandom {
  /** Next unsigned 32-bit integer. */
  nextUint32(): number;
  /** Uniform integer in [0, n) for 1 <= n <= 2^32 (multiply-shift, no modulo). */
  below(n: number): number;
}

function splitmix32(state: number): [number, number] {
  const s = (state + 0x9e3779b9) | 0;
  let z = s;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return [s, (z ^ (z >>> 16)) >>> 0];
}

/** Creates an sfc32 generator from any integer seed (negative and > 2^32 seeds are folded). @internal */
export function seededRandom(seed: number): SeededRandom {
  let s = (Math.trunc(seed) ^ Math.trunc(seed / 0x100000000)) | 0;
  let a: number;
  let b: number;
  let c: number;
  [s, a] = splitmix32(s);
  [s, b] = splitmix32(s);
  [s, c] = splitmix32(s);
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
    below(n: number): number {
      // (x * n) / 2^32 exactly, split so the product stays below 2^53.
      const x = nextUint32();
      const hi = Math.floor(n / 0x10000);
      const lo = n % 0x10000;
      return Math.floor((x * hi + Math.floor((x * lo) / 0x10000)) / 0x10000);
    },
  };
}
