/**
 * The order a prefetch experiment reads a file's blocks in: front to back,
 * back to front, or a seeded random permutation. The real scanner
 * (@scanlab/file-scan's prefetch reader) and the simulator's plain-file
 * reader take their order from here, so a run and its prediction read the
 * same blocks in the same order for the same seed.
 */

/** The order of a prefetch experiment. */
export type ReadPattern = "forward" | "backward" | "random";

/**
 * Block numbers 0..nblocks-1 in `pattern` order; the random order is a
 * Fisher-Yates shuffle driven by `below(n)` (a uniform integer in [0, n),
 * e.g. `mulberry32(seed).below`).
 *
 * @example
 * ```ts
 * import { mulberry32, readOrder } from "@scanlab/core";
 * console.log([...readOrder("backward", 4, mulberry32(1).below)]); // [3, 2, 1, 0]
 * ```
 */
export function readOrder(pattern: ReadPattern, nblocks: number, below: (n: number) => number): Uint32Array {
  const order = new Uint32Array(nblocks);
  if (pattern === "backward") {
    for (let i = 0; i < nblocks; i++) order[i] = nblocks - 1 - i;
    return order;
  }
  for (let i = 0; i < nblocks; i++) order[i] = i;
  if (pattern === "random") {
    for (let i = nblocks - 1; i > 0; i--) {
      const j = below(i + 1);
      const t = order[i]!;
      order[i] = order[j]!;
      order[j] = t;
    }
  }
  return order;
}
