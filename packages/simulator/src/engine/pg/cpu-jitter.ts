/**
 * CPU time is not the same for every page: tuple layout, cache misses,
 * interrupts and the scheduler make it vary. Without variation, identical
 * concurrent queries stay in perfect lockstep forever (T3's six clients would
 * finish every run at the same microsecond), which no real machine does.
 *
 * Model: each block's CPU time is its mean times (1 + u), u uniform in
 * [-jitter, +jitter], independently per block. The default jitter, 0.3, is
 * the assumption the reference simulation of apps/docs/src/reference/readahead-predictions.md#simulation-assumptions made ("15 us
 * CPU per block (+-30% jitter)"); it is not measured. A stretch of n blocks
 * draws one sample of the sum: mean n, and the sum's spread, which shrinks
 * as 1/sqrt(n) relative to the mean (approximated by a uniform of the same
 * variance, so a stretch never costs less than 0). Deterministic: a seeded
 * xorshift generator per process.
 */
import { type SeededRandom, scrambleSeed32, xorshift32 } from "../seam/shared-leaf.js";

/** apps/docs/src/reference/readahead-predictions.md#simulation-assumptions: "15 us CPU per block (+-30% jitter)". */
export const DEFAULT_CPU_JITTER = 0.3;

/** Seeded per-process source of CPU-time multipliers. */
export class CpuJitter {
  private readonly random: SeededRandom;

  constructor(
    seed: number,
    private readonly jitter: number,
  ) {
    // Scrambled so nearby seeds give unrelated streams; never 0.
    this.random = xorshift32(scrambleSeed32(seed));
  }

  /** The multiplier for the CPU time of a stretch of `blocks` blocks (mean 1). */
  factor(blocks: number): number {
    if (this.jitter === 0) return 1;
    const spread = this.jitter / Math.sqrt(blocks > 1 ? blocks : 1);
    return 1 + (2 * this.random.nextFloat() - 1) * spread;
  }
}
