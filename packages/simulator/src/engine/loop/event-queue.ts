/**
 * The simulator's clock: a binary min-heap of (time, sequence) pairs.
 *
 * Every participant has at most one pending event, so the heap stays as small
 * as the number of processes (66 in T3, 72 in T4). Ties in time are broken by
 * insertion order (the sequence number), which is what makes a run
 * deterministic: two events at the same microsecond always fire in the order
 * they were scheduled, whatever the heap's internal layout.
 *
 * Storage is three parallel typed arrays, so pushing and popping allocate
 * nothing: the inner loop of a 100-million-block scan must not feed the GC.
 */
export class EventQueue {
  private times: Float64Array;
  private seqs: Float64Array;
  private ids: Int32Array;
  private n = 0;
  private nextSeq = 0;

  constructor(capacity = 64) {
    this.times = new Float64Array(capacity);
    this.seqs = new Float64Array(capacity);
    this.ids = new Int32Array(capacity);
  }

  /** Number of pending events. */
  get size(): number {
    return this.n;
  }

  /** Time of the earliest event (Infinity when empty). */
  peekTime(): number {
    return this.n > 0 ? this.times[0]! : Number.POSITIVE_INFINITY;
  }

  /** Schedules `id` at `timeUs`. */
  push(timeUs: number, id: number): void {
    if (this.n === this.times.length) this.grow();
    let i = this.n++;
    const seq = this.nextSeq++;
    const times = this.times;
    const seqs = this.seqs;
    const ids = this.ids;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pt = times[p]!;
      if (pt < timeUs || (pt === timeUs && seqs[p]! < seq)) break;
      times[i] = pt;
      seqs[i] = seqs[p]!;
      ids[i] = ids[p]!;
      i = p;
    }
    times[i] = timeUs;
    seqs[i] = seq;
    ids[i] = id;
  }

  /** Removes the earliest event and returns its id (-1 when empty); its time is `lastTime`. */
  pop(): number {
    if (this.n === 0) return -1;
    const times = this.times;
    const seqs = this.seqs;
    const ids = this.ids;
    const id = ids[0]!;
    this.lastTime = times[0]!;
    const n = --this.n;
    if (n > 0) {
      const t = times[n]!;
      const s = seqs[n]!;
      const x = ids[n]!;
      let i = 0;
      for (;;) {
        let c = 2 * i + 1;
        if (c >= n) break;
        const r = c + 1;
        if (r < n && (times[r]! < times[c]! || (times[r] === times[c] && seqs[r]! < seqs[c]!))) c = r;
        const ct = times[c]!;
        if (t < ct || (t === ct && s < seqs[c]!)) break;
        times[i] = ct;
        seqs[i] = seqs[c]!;
        ids[i] = ids[c]!;
        i = c;
      }
      times[i] = t;
      seqs[i] = s;
      ids[i] = x;
    }
    return id;
  }

  /** Time of the event most recently returned by `pop`. */
  lastTime = 0;

  private grow(): void {
    const cap = Math.max(16, this.times.length * 2);
    const t = new Float64Array(cap);
    const s = new Float64Array(cap);
    const d = new Int32Array(cap);
    t.set(this.times);
    s.set(this.seqs);
    d.set(this.ids);
    this.times = t;
    this.seqs = s;
    this.ids = d;
  }
}
