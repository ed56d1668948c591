/**
 * Per-block CPU jitter: a seeded, deterministic multiplier of mean 1, within
 * +-jitter for one block, whose spread shrinks as 1/sqrt(n) for a stretch of
 * n blocks ("+-30% jitter", apps/docs/src/reference/readahead-predictions.md#simulation-assumptions).
 */
import { describe, expect, it } from "vitest";
import { CpuJitter, DEFAULT_CPU_JITTER } from "./cpu-jitter.js";

function draws(j: CpuJitter, n: number, blocks = 1): number[] {
  return Array.from({ length: n }, () => j.factor(blocks));
}

function stats(xs: number[]): { mean: number; variance: number; min: number; max: number } {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const variance = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const x of xs) {
    if (x < min) min = x;
    if (x > max) max = x;
  }
  return { mean, variance, min, max };
}

describe("CpuJitter", () => {
  it("the default is the +-30% of apps/docs/src/reference/readahead-predictions.md#simulation-assumptions", () => {
    expect(DEFAULT_CPU_JITTER).toBe(0.3);
  });

  it("is deterministic: the same seed gives the same sequence", () => {
    expect(draws(new CpuJitter(42, 0.3), 1000)).toEqual(draws(new CpuJitter(42, 0.3), 1000));
    const mixed = (j: CpuJitter) => [j.factor(1), j.factor(7), j.factor(1000), j.factor(1)];
    expect(mixed(new CpuJitter(7, 0.3))).toEqual(mixed(new CpuJitter(7, 0.3)));
  });

  it("different seeds, even adjacent ones, give different streams", () => {
    const a = draws(new CpuJitter(1, 0.3), 100);
    const b = draws(new CpuJitter(2, 0.3), 100);
    expect(a).not.toEqual(b);
    expect(a.filter((x, i) => x === b[i]).length).toBe(0);
    // The first draw of seeds 0..999 (one per process) spreads over the whole range.
    const firsts = Array.from({ length: 1000 }, (_, seed) => new CpuJitter(seed, 0.3).factor(1));
    const s = stats(firsts);
    expect(Math.abs(s.mean - 1)).toBeLessThan(0.02);
    expect(s.min).toBeLessThan(0.72);
    expect(s.max).toBeGreaterThan(1.28);
  });

  it("one block: within [0.7, 1.3), mean 1, variance of a uniform on +-0.3 (0.03)", () => {
    const xs = draws(new CpuJitter(12345, 0.3), 200_000);
    const s = stats(xs);
    expect(s.min).toBeGreaterThanOrEqual(0.7);
    expect(s.max).toBeLessThan(1.3);
    // Both ends are reached: the spread is really +-30%, not less.
    expect(s.min).toBeLessThan(0.701);
    expect(s.max).toBeGreaterThan(1.299);
    // Standard error of the mean: sqrt(0.03 / 200000) = 0.0004.
    expect(Math.abs(s.mean - 1)).toBeLessThan(0.002);
    expect(s.variance).toBeCloseTo(0.09 / 3, 3);
  });

  it("a stretch of n blocks draws one sample with spread jitter / sqrt(n): the variance of the mean of n blocks", () => {
    for (const n of [4, 100, 10_000]) {
      const xs = draws(new CpuJitter(99 + n, 0.3), 50_000, n);
      const s = stats(xs);
      const half = 0.3 / Math.sqrt(n);
      expect(s.min).toBeGreaterThanOrEqual(1 - half);
      expect(s.max).toBeLessThan(1 + half);
      expect(s.max - s.min).toBeGreaterThan(1.98 * half);
      expect(Math.abs(s.mean - 1)).toBeLessThan(half / 100);
      expect(s.variance / (0.03 / n)).toBeGreaterThan(0.97);
      expect(s.variance / (0.03 / n)).toBeLessThan(1.03);
    }
  });

  it("factor(0) and factor(1) have the same +-jitter spread (a stretch is at least one block)", () => {
    const xs = draws(new CpuJitter(5, 0.3), 20_000, 0);
    const s = stats(xs);
    expect(s.min).toBeGreaterThanOrEqual(0.7);
    expect(s.max).toBeLessThan(1.3);
    expect(s.variance).toBeCloseTo(0.03, 2);
  });

  it("never makes a stretch cost less than 0, even at the largest jitter a scenario allows (0.9)", () => {
    const { min } = stats(draws(new CpuJitter(3, 0.9), 50_000));
    expect(min).toBeGreaterThan(0);
    expect(min).toBeLessThan(0.11);
  });

  it("jitter 0 makes CPU time exact", () => {
    expect(new Set(draws(new CpuJitter(17, 0), 1000, 1))).toEqual(new Set([1]));
    expect(new CpuJitter(17, 0).factor(500)).toBe(1);
  });

  it("the mean over many one-block draws of one process is 1 within 0.5%, whatever the seed", () => {
    for (const seed of [0, 1, 0x9e3779b9, 2 ** 31, 123456789]) {
      const s = stats(draws(new CpuJitter(seed, 0.3), 20_000));
      expect(Math.abs(s.mean - 1)).toBeLessThan(0.005);
    }
  });
});
