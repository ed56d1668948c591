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

/** apps/docs/src/reference/readahead-predictions.md#simulation-assumptions: "15 us CPU per block (+-30% jitter)". */
export const DEFAULT_CPU_JITTER = 0.3;

/** Seeded per-process source of CPU-time multipliers. */
export class CpuJitter {
  private state: number;

  constructor(
    seed: number,
    private readonly jitter: number,
  ) {
    // splitmix-style scramble so nearby seeds give unrelated streams; never 0.
    let s = (seed ^ 0x9e3779b9) >>> 0;
    s = Math.imul(s ^ (s >>> 16), 0x85ebca6b) >>> 0;
    s = Math.imul(s ^ (s >>> 13), 0xc2b2ae35) >>> 0;
    this.state = (s ^ (s >>> 16)) >>> 0 || 1;
  }

  /** A uniform number in [0, 1). */
  private next(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state / 4294967296;
  }

  /** The multiplier for the CPU time of a stretch of `blocks` blocks (mean 1). */
  factor(blocks: number): number {
    if (this.jitter === 0) return 1;
    const spread = this.jitter / Math.sqrt(blocks > 1 ? blocks : 1);
    return 1 + (2 * this.next() - 1) * spread;
  }
}
