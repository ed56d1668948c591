/**
 * A small seeded generator (mulberry32, public domain, by Tommy Ettinger) for
 * the offsets of the closed-loop throughput runs and the calibration's random
 * reads. The device models themselves draw no random numbers.
 */

/**
 * Returns a function giving uniform numbers in [0, 1), the same sequence for the same seed.
 *
 * @example
 * ```ts
 * import { seededRandom } from "@scanlab/device-profiles";
 * const next = seededRandom(42);
 * console.log(next() === seededRandom(42)()); // true
 * ```
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
