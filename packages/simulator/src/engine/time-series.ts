/**
 * A fixed-memory time series: amounts added at simulated times land in
 * buckets; when there are too many buckets, neighbours merge and the width
 * doubles. Whatever the run's length, the result has at most `maxBuckets`
 * points, so a three-hour simulation and a two-second one chart the same way.
 */
export class BucketSeries {
  private widthUs: number;
  private sums: Float64Array;
  private used = 0;

  constructor(
    initialWidthUs = 10_000,
    private readonly maxBuckets = 256,
  ) {
    this.widthUs = initialWidthUs;
    this.sums = new Float64Array(maxBuckets);
  }

  add(timeUs: number, amount: number): void {
    let i = Math.floor(timeUs / this.widthUs);
    while (i >= this.maxBuckets) {
      this.coarsen();
      i = Math.floor(timeUs / this.widthUs);
    }
    this.sums[i]! += amount;
    if (i + 1 > this.used) this.used = i + 1;
  }

  /** Points as (start of bucket in seconds, amount per second). */
  points(): { tS: number; perS: number }[] {
    const out: { tS: number; perS: number }[] = [];
    for (let i = 0; i < this.used; i++) {
      out.push({ tS: (i * this.widthUs) / 1e6, perS: this.sums[i]! / (this.widthUs / 1e6) });
    }
    return out;
  }

  private coarsen(): void {
    const next = new Float64Array(this.maxBuckets);
    for (let i = 0; i < this.maxBuckets; i++) next[i >> 1]! += this.sums[i]!;
    this.sums = next;
    this.widthUs *= 2;
    this.used = Math.ceil(this.used / 2);
  }
}
