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

  /** Adds `amount` spread evenly over [fromUs, toUs) (a stretch the warp skipped). */
  addSpread(fromUs: number, toUs: number, amount: number): void {
    if (!(toUs > fromUs)) {
      this.add(fromUs, amount);
      return;
    }
    // Coarsen first, so that the loop below crosses at most maxBuckets buckets.
    this.add(toUs, 0);
    const w = this.widthUs;
    const rate = amount / (toUs - fromUs);
    let t = fromUs;
    while (t < toUs) {
      const end = Math.min(toUs, (Math.floor(t / w) + 1) * w);
      this.add(t, rate * (end - t));
      t = end;
    }
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
