/**
 * The extent page cache must behave exactly like the obvious per-page cache
 * (one slot per page), including which pages LRU eviction picks: oldest
 * touch epoch first, then file, then page. The naive model below is that
 * specification; fast-check drives both with random operations.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ReadaheadError } from "./errors.js";
import { PageCache } from "./page-cache.js";

interface Slot {
  readyAtUs: number;
  mark: number;
  epoch: number;
}

/** One slot per page: the specification. */
class NaiveCache {
  files = new Map<number, Map<number, Slot>>();
  clock = 0;
  resident = 0;
  constructor(
    readonly capacity: number,
    readonly epochPages: number,
  ) {}
  get(file: number, page: number): Slot | undefined {
    return this.files.get(file)?.get(page);
  }
  map(file: number): Map<number, Slot> {
    let m = this.files.get(file);
    if (m === undefined) {
      m = new Map();
      this.files.set(file, m);
    }
    return m;
  }
  epoch(c: number): number {
    return Math.floor(c / this.epochPages);
  }
  insert(file: number, start: number, pages: number, readyAtUs: number, nowUs: number): void {
    const absent: number[] = [];
    for (let p = start; p < start + pages; p++) if (this.get(file, p) === undefined) absent.push(p);
    if (absent.length === 0) return;
    const over = this.resident + absent.length - this.capacity;
    if (over > 0) this.evict(over, nowUs);
    for (const p of absent) {
      this.map(file).set(p, { readyAtUs, mark: -1, epoch: this.epoch(this.clock) });
      this.clock++;
      this.resident++;
    }
  }
  evict(need: number, nowUs: number): void {
    const cands: [number, number, number][] = [];
    for (const [f, m] of this.files)
      for (const [p, s] of m) if (s.readyAtUs <= nowUs) cands.push([s.epoch, f, p]);
    cands.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
    for (const [, f, p] of cands.slice(0, need)) {
      this.files.get(f)!.delete(p);
      this.resident--;
    }
  }
  touch(file: number, start: number, pages: number): void {
    for (let i = 0; i < pages; i++) {
      const s = this.get(file, start + i);
      if (s !== undefined) s.epoch = this.epoch(this.clock + i);
    }
    this.clock += pages;
  }
  setMarker(file: number, a: number, b: number): void {
    for (let p = a; p < b; p++) {
      const s = this.get(file, p);
      if (s !== undefined) s.mark = a;
    }
  }
  clearMarker(file: number, u: number): void {
    for (const s of this.map(file).values()) if (s.mark === u) s.mark = -1;
  }
  drop(file: number, start: number, pages: number, nowUs: number): number {
    let n = 0;
    for (let p = start; p < start + pages; p++) {
      const s = this.get(file, p);
      if (s !== undefined && s.readyAtUs <= nowUs) {
        this.files.get(file)!.delete(p);
        this.resident--;
        n++;
      }
    }
    return n;
  }
  nextMissing(file: number, page: number, limit: number): number {
    for (let p = page; p < page + limit; p++) if (this.get(file, p) === undefined) return p;
    return page + limit;
  }
  prevMissing(file: number, page: number, limit: number): number {
    for (let p = page; p > page - limit; p--) {
      if (p < 0) return -1;
      if (this.get(file, p) === undefined) return p;
    }
    return page - limit >= 0 ? page - limit : -1;
  }
  run(
    file: number,
    page: number,
    max: number,
    nowUs: number,
    ignoreMarkers: boolean,
  ): { pages: number; readyAtUs: number } {
    const first = this.get(file, page);
    if (first === undefined) return { pages: 0, readyAtUs: nowUs };
    const cls = (s: Slot) => (s.readyAtUs <= nowUs ? Number.NEGATIVE_INFINITY : s.readyAtUs);
    let n = 0;
    while (n < max) {
      const s = this.get(file, page + n);
      if (s === undefined || (!ignoreMarkers && s.mark >= 0) || cls(s) !== cls(first)) break;
      n++;
    }
    return { pages: n, readyAtUs: cls(first) === Number.NEGATIVE_INFINITY ? nowUs : first.readyAtUs };
  }
}

type Op =
  | { k: "insert"; file: number; start: number; pages: number; delay: number }
  | { k: "touch"; file: number; start: number; pages: number }
  | { k: "mark"; file: number; start: number; pages: number }
  | { k: "clear"; file: number; start: number }
  | { k: "drop"; file: number; start: number; pages: number }
  | { k: "tick"; us: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    k: fc.constant("insert" as const),
    file: fc.integer({ min: 1, max: 2 }),
    start: fc.integer({ min: 0, max: 40 }),
    pages: fc.integer({ min: 1, max: 8 }),
    // mostly pages that are valid at once (evictable), sometimes I/O in flight
    delay: fc.oneof(
      { arbitrary: fc.constant(0), weight: 3 },
      { arbitrary: fc.integer({ min: -5, max: 40 }), weight: 1 },
    ),
  }),
  fc.record({
    k: fc.constant("touch" as const),
    file: fc.integer({ min: 1, max: 2 }),
    start: fc.integer({ min: 0, max: 60 }),
    pages: fc.integer({ min: 1, max: 20 }),
  }),
  fc.record({
    k: fc.constant("mark" as const),
    file: fc.integer({ min: 1, max: 2 }),
    start: fc.integer({ min: 0, max: 60 }),
    pages: fc.integer({ min: 1, max: 4 }),
  }),
  fc.record({
    k: fc.constant("clear" as const),
    file: fc.integer({ min: 1, max: 2 }),
    start: fc.integer({ min: 0, max: 60 }),
  }),
  fc.record({
    k: fc.constant("drop" as const),
    file: fc.integer({ min: 1, max: 2 }),
    start: fc.integer({ min: 0, max: 60 }),
    pages: fc.integer({ min: 1, max: 30 }),
  }),
  fc.record({ k: fc.constant("tick" as const), us: fc.integer({ min: 0, max: 30 }) }),
);

function compare(cache: PageCache, naive: NaiveCache, nowUs: number): void {
  expect(cache.stats().residentPages).toBe(naive.resident);
  for (const file of [1, 2]) {
    for (let p = 0; p < 80; p++) {
      const s = naive.get(file, p);
      const info = cache.page(file, p, nowUs);
      if (s === undefined) expect(info.state).toBe("absent");
      else {
        expect(info.state).toBe(s.readyAtUs <= nowUs ? "valid" : "in-flight");
        expect(info.readyAtUs).toBe(Math.max(nowUs, s.readyAtUs));
        expect(info.markerUnit).toBe(s.mark);
      }
      if (p % 7 === 0) {
        expect(cache.nextMissing(file, p, 9)).toBe(naive.nextMissing(file, p, 9));
        expect(cache.prevMissing(file, p, 9)).toBe(naive.prevMissing(file, p, 9));
        expect(cache.run(file, p, 16, nowUs)).toEqual(naive.run(file, p, 16, nowUs, false));
        expect(cache.run(file, p, 16, nowUs, true)).toEqual(naive.run(file, p, 16, nowUs, true));
      }
    }
  }
  // Epochs (the LRU order) must match page by page.
  for (const file of [1, 2]) {
    for (const r of cache.extents(file)) {
      for (let p = r.start; p < r.end; p++) expect(naive.get(file, p)?.epoch).toBe(r.epoch);
    }
  }
}

// The property runs compare thousands of random operations against a one-slot-per-page cache: several
// seconds alone, ten times that on a loaded 2-core machine. The timeout only catches a hang.
const PROPERTY_MS = 600_000;

describe("PageCache", { timeout: PROPERTY_MS }, () => {
  it.each([
    [40, 5],
    [24, 16],
  ])(
    "matches a one-slot-per-page cache under random operations, eviction order included (capacity %i, epoch %i)",
    (capacity, epochPages) => {
      fc.assert(
        fc.property(fc.array(opArb, { minLength: 1, maxLength: 60 }), (ops) => {
          const cache = new PageCache({ capacityPages: capacity, lruEpochPages: epochPages });
          const naive = new NaiveCache(capacity, epochPages);
          let now = 0;
          for (const op of ops) {
            switch (op.k) {
              case "insert":
                cache.insert(op.file, op.start, op.pages, now + op.delay, now);
                naive.insert(op.file, op.start, op.pages, now + op.delay, now);
                break;
              case "touch":
                cache.touch(op.file, op.start, op.pages);
                naive.touch(op.file, op.start, op.pages);
                break;
              case "mark": {
                // A marker unit covers present pages only (the models mark pages they just inserted).
                let ok = true;
                for (let p = op.start; p < op.start + op.pages; p++)
                  ok &&= naive.get(op.file, p) !== undefined;
                if (ok && cache.markerIn(op.file, op.start, op.start + op.pages) < 0) {
                  cache.setMarker(op.file, op.start, op.start + op.pages, now);
                  naive.setMarker(op.file, op.start, op.start + op.pages);
                }
                break;
              }
              case "clear":
                cache.clearMarker(op.file, op.start, now);
                naive.clearMarker(op.file, op.start);
                break;
              case "drop":
                expect(cache.drop(op.file, op.start, op.pages, now)).toBe(
                  naive.drop(op.file, op.start, op.pages, now),
                );
                break;
              case "tick":
                now += op.us;
                break;
            }
            compare(cache, naive, now);
          }
        }),
        { numRuns: 200 },
      );
    },
    PROPERTY_MS,
  );

  it("keeps a sequential reader's pages in a handful of extents, whatever the file size", () => {
    const cache = new PageCache();
    // 1 M pages inserted as 128 KiB windows and touched 8 kB at a time.
    for (let p = 0; p < 1 << 20; p += 32) cache.insert(3, p, 32, 0, 0);
    for (let p = 0; p < 1 << 20; p += 2) cache.touch(3, p, 2);
    expect(cache.stats().extents).toBe(1);
    expect(cache.residentIn(3)).toBe(1 << 20);
  });

  it("answers the readahead models' range questions with the kernel's conventions", () => {
    const cache = new PageCache();
    cache.insert(1, 0, 10, 50, 0); // [0, 10) in flight until 50
    cache.insert(1, 12, 4, 0, 0); // [12, 16) valid
    // page_cache_next_miss(): first gap, or index + max when none.
    expect(cache.nextMissing(1, 3, 20)).toBe(10);
    expect(cache.nextMissing(1, 12, 4)).toBe(16);
    expect(cache.nextMissing(1, 12, 3)).toBe(15);
    // page_cache_prev_miss(): scanning down; -1 (ULONG_MAX) when it runs off page 0.
    expect(cache.prevMissing(1, 15, 8)).toBe(11);
    expect(cache.prevMissing(1, 9, 20)).toBe(-1);
    expect(cache.prevMissing(1, 9, 4)).toBe(5);
    // CONTEXT history (apps/docs/src/reference/linux-readahead-window.md#sync-path-up-to-6-9): h == index exactly when it reaches page 0.
    expect(cache.residentRunBelow(1, 10, 32)).toBe(10);
    expect(cache.residentRunBelow(1, 10, 4)).toBe(4);
    expect(cache.residentRunBelow(1, 16, 32)).toBe(4);
    // A run shares one readiness: in flight [0, 10) until 50, then a gap.
    expect(cache.run(1, 2, 100, 20)).toEqual({ pages: 8, readyAtUs: 50 });
    expect(cache.run(1, 2, 100, 60)).toEqual({ pages: 8, readyAtUs: 60 });
    cache.setMarker(1, 6, 8, 0);
    expect(cache.run(1, 2, 100, 60)).toEqual({ pages: 4, readyAtUs: 60 });
    expect(cache.page(1, 7, 60).markerUnit).toBe(6);
    expect(cache.markerIn(1, 0, 7)).toBe(6);
    cache.clearMarker(1, 6, 60);
    expect(cache.markerIn(1, 0, 16)).toBe(-1);
  });

  it("evicts least recently used valid pages, never pages in flight", () => {
    const cache = new PageCache({ capacityPages: 8, lruEpochPages: 2 });
    cache.insert(1, 0, 4, 0, 0); // epochs 0,0,1,1
    cache.insert(2, 0, 4, 100, 0); // in flight until 100
    cache.touch(1, 0, 2); // pages 0,1 of file 1 become the most recent
    cache.insert(1, 10, 2, 0, 10); // needs 2 pages: file 1 pages 2,3 go (oldest valid)
    expect(cache.residentIn(1)).toBe(4);
    expect(cache.page(1, 2, 10).state).toBe("absent");
    expect(cache.page(1, 0, 10).state).toBe("valid");
    expect(cache.residentIn(2)).toBe(4); // in flight: kept
    cache.insert(1, 20, 6, 0, 10); // only 4 valid pages can go: the cache overflows instead of dropping I/O
    expect(cache.residentIn(2)).toBe(4);
    expect(cache.stats().peakResidentPages).toBeGreaterThan(8);
    expect(cache.stats().evictedPages).toBe(6);
  });

  it("evicts the pages of an LRU epoch that eviction emptied and that filled again", () => {
    // One long epoch, so every page below is in epoch 0.
    const cache = new PageCache({ capacityPages: 4, lruEpochPages: 100 });
    cache.insert(1, 0, 2, 0, 0); // epoch 0 holds two extents: [0, 2)
    cache.insert(1, 10, 2, 0, 0); // and [10, 12)
    cache.insert(1, 20, 4, 0, 0); // full: both go, epoch 0 empties, then holds [20, 24)
    cache.setMarker(1, 22, 24, 0); // epoch 0 holds two extents again: [20, 22) and [22, 24)
    cache.insert(1, 30, 2, 0, 0); // needs 2 pages: the oldest valid ones, [20, 22)
    expect(cache.stats().residentPages).toBe(4);
    expect(cache.page(1, 20, 0).state).toBe("absent");
    expect(cache.page(1, 22, 0).state).toBe("valid");
    expect(cache.stats().evictedPages).toBe(6);
  });

  it("drops valid pages on DONTNEED and keeps those still being read", () => {
    const cache = new PageCache();
    cache.insert(1, 0, 8, 0, 0);
    cache.insert(1, 8, 8, 500, 0);
    expect(cache.drop(1, 0, 16, 100)).toBe(8);
    expect(cache.residentIn(1)).toBe(8);
  });

  it("rejects a negative capacity with one sentence", () => {
    expect(() => new PageCache({ capacityPages: -5 })).toThrow(ReadaheadError);
    expect(() => new PageCache({ capacityPages: -5 })).toThrow(
      /^PageCache capacityPages must be an integer >= 1, got -5\.$/,
    );
  });
});
