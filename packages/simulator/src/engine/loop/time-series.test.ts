/**
 * BucketSeries: amounts land in fixed-width buckets; past maxBuckets,
 * neighbours merge and the width doubles, so a series never exceeds
 * maxBuckets points and never loses an amount.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BucketSeries } from "./time-series.js";

describe("BucketSeries", () => {
  it("is empty until something is added", () => {
    expect(new BucketSeries().points()).toEqual([]);
  });

  it("adds amounts to the bucket holding their time and reports per-second rates", () => {
    const s = new BucketSeries(10_000, 4);
    s.add(0, 1);
    s.add(9_999, 2);
    s.add(15_000, 5);
    expect(s.points()).toEqual([
      { tS: 0, perS: 300 },
      { tS: 0.01, perS: 500 },
    ]);
  });

  it("reports empty buckets before the last one as zero", () => {
    const s = new BucketSeries(10_000, 8);
    s.add(35_000, 1);
    expect(s.points()).toEqual([
      { tS: 0, perS: 0 },
      { tS: 0.01, perS: 0 },
      { tS: 0.02, perS: 0 },
      { tS: 0.03, perS: 100 },
    ]);
  });

  it("past maxBuckets, neighbours merge and the width doubles", () => {
    const s = new BucketSeries(10_000, 4);
    s.add(0, 1);
    s.add(15_000, 2);
    s.add(45_000, 4); // bucket 4 of 4: merge to 20 ms buckets
    expect(s.points()).toEqual([
      { tS: 0, perS: 150 },
      { tS: 0.02, perS: 0 },
      { tS: 0.04, perS: 200 },
    ]);
  });

  it("a time far beyond the end merges as often as needed", () => {
    const s = new BucketSeries(10_000, 4);
    s.add(5_000, 8);
    s.add(1_000_000, 16); // needs 40 ms x 2^k > 1 s / 4 -> 320 ms buckets
    const pts = s.points();
    expect(pts.map((p) => p.tS)).toEqual([0, 0.32, 0.64, 0.96]);
    expect(pts[0]!.perS).toBeCloseTo(8 / 0.32, 9);
    expect(pts[3]!.perS).toBeCloseTo(16 / 0.32, 9);
  });

  it("a three-hour run still has at most 256 points", () => {
    const s = new BucketSeries();
    for (let t = 0; t < 3 * 3600e6; t += 10_000) s.add(t, 1); // one unit every 10 ms
    const pts = s.points();
    expect(pts.length).toBeLessThanOrEqual(256);
    expect(pts.length).toBeGreaterThan(128);
    // 10800 s / 256 = 42.2 s: 10 ms x 2^12 = 40.96 s is too narrow, so 81.92 s buckets (132 of them),
    // each reporting the steady 100 units per second.
    expect(pts[1]!.tS).toBeCloseTo(81.92, 9);
    expect(pts).toHaveLength(132);
    for (const p of pts.slice(0, -1)) expect(p.perS).toBeCloseTo(100, 9);
  });

  it("keeps every amount, in the bucket its time belongs to, with the smallest width that fits", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 50_000_000 }), fc.integer({ min: 1, max: 1000 })), {
          minLength: 1,
          maxLength: 60,
        }),
        (maxBuckets, adds) => {
          const s = new BucketSeries(1_000, maxBuckets);
          for (const [t, a] of adds) s.add(t, a);
          let width = 1_000;
          const last = Math.max(...adds.map(([t]) => t));
          while (Math.floor(last / width) >= maxBuckets) width *= 2;
          const pts = s.points();
          expect(pts.length).toBe(Math.floor(last / width) + 1);
          expect(pts.length).toBeLessThanOrEqual(maxBuckets);
          pts.forEach((p, i) => {
            expect(p.tS).toBeCloseTo((i * width) / 1e6, 9);
            const inBucket = adds
              .filter(([t]) => Math.floor(t / width) === i)
              .reduce((acc, [, a]) => acc + a, 0);
            expect(p.perS * (width / 1e6)).toBeCloseTo(inBucket, 6);
          });
        },
      ),
      { numRuns: 200 },
    );
  });
});
