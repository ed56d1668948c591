import { cutStretch } from "@scanlab/core/sim";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ReadaheadError } from "./errors.js";
import { linuxReadahead } from "./linux.js";
import { PageCache, RENAME_FILES } from "./page-cache.js";
import { renumberOpenFile, renumberSegmentFiles } from "./sim.js";

/**
 * Renaming files (the hook under renumberSegmentFiles) lets a simulator renumber a table's segment files in the
 * middle of a run (it cuts whole segments out of the table ahead of its
 * scans). The cache must then behave exactly as if the files had carried
 * their new names from the start: same pages, same readiness, same markers,
 * and the same victims when it evicts (least recently used first, then
 * (file, page) order within one LRU epoch).
 */
type Op = { file: number; start: number; pages: number; touch: boolean };

const opArb = fc.record({
  file: fc.integer({ min: 0, max: 5 }),
  start: fc.integer({ min: 0, max: 200 }),
  pages: fc.integer({ min: 1, max: 40 }),
  touch: fc.boolean(),
});

function apply(cache: PageCache, ops: Op[], name: (f: number) => number, t0: number): void {
  ops.forEach((op, i) => {
    const t = t0 + i;
    if (op.touch) cache.touch(name(op.file), op.start, op.pages, t);
    else cache.insert(name(op.file), op.start, op.pages, t + 5, t);
  });
}

function snapshot(cache: PageCache, files: number[]) {
  return files.map((f) => cache.extents(f));
}

describe("renaming a page cache's files", () => {
  it("renaming mid-way is the same as carrying the new names from the start", () => {
    // Files 0..5 are renamed as a table's segments are when segments 2 and 3 are cut out:
    // 0, 1 keep their ids; 4, 5 become 2, 3 (the cut files hold nothing when it happens).
    const rename = (f: number) => (f < 2 ? f : f - 2);
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 60 }), fc.array(opArb, { maxLength: 60 }), (early, late) => {
        const before = early.filter((op) => op.file < 2 || op.file > 3);
        const after = late.filter((op) => op.file < 4);
        const a = new PageCache({ capacityPages: 120, lruEpochPages: 8 });
        const b = new PageCache({ capacityPages: 120, lruEpochPages: 8 });
        apply(a, before, (f) => f, 0);
        a[RENAME_FILES](rename);
        apply(b, before, rename, 0);
        expect(snapshot(a, [0, 1, 2, 3])).toEqual(snapshot(b, [0, 1, 2, 3]));
        apply(a, after, (f) => f, 1000);
        apply(b, after, (f) => f, 1000);
        expect(snapshot(a, [0, 1, 2, 3, 4, 5])).toEqual(snapshot(b, [0, 1, 2, 3, 4, 5]));
        expect(a.stats()).toEqual(b.stats());
      }),
    );
  });

  it("lists the files it holds and refuses a map that gives two files one name", () => {
    const cache = new PageCache();
    cache.insert(9, 0, 4, 10, 0);
    cache.insert(3, 0, 4, 10, 0);
    expect(cache.cachedFiles()).toEqual([3, 9]);
    expect(() => cache[RENAME_FILES](() => 1)).toThrow(ReadaheadError);
    expect(() => cache[RENAME_FILES](() => 1)).toThrow(/distinct/);
    expect(() => cache[RENAME_FILES]((f) => -f)).toThrow(ReadaheadError);
    // A file whose pages have all gone is forgotten: the map is not asked about it.
    cache.insert(5, 0, 4, 10, 0);
    cache.drop(5, 0, 4, 20);
    cache[RENAME_FILES]((f) => (f === 5 ? -1 : f + 100));
    expect(cache.cachedFiles()).toEqual([103, 109]);
    expect(cache.page(103, 1, 20).state).toBe("valid");
  });

  it("an open file renamed with its pages keeps reading sequentially (no new window from scratch)", () => {
    const cache = new PageCache();
    const linux = linuxReadahead(cache, { version: "<=6.9" });
    const submit = () => 100;
    // Segment 5 of a relation whose segments are files 0-99, with 16-block segments: segments 2-4 are
    // cut out, so segment 5 becomes segment 2.
    const files = { first: 0, end: 100, segmentBlocks: 16 };
    const cut = cutStretch(0, 10 * 16, 2 * 16, 3 * 16);
    const of = linux.open(5, { sizePages: 1 << 20 });
    let reads = 0;
    for (let p = 0; p < 256; p += 2) reads += linux.read(of, p, 2, p, submit).syncIos;
    renumberSegmentFiles(cache, cut, files);
    expect(renumberOpenFile(of, cut, files)).toBe(true);
    const out = linux.read(of, 256, 2, 300, submit);
    // The window in flight was found under the new name: no synchronous read, as without the rename.
    expect(out.syncIos).toBe(0);
    expect(reads).toBe(1);
    expect(of.file).toBe(2);
    // An open file of a cut segment is left alone for the caller to close; a cached one is refused.
    const gone = linux.open(3, { sizePages: 64 });
    expect(renumberOpenFile(gone, cut, files)).toBe(false);
    expect(gone.file).toBe(3);
    const other = new PageCache();
    other.insert(3, 0, 4, 400, 400);
    expect(() => renumberSegmentFiles(other, cut, files)).toThrow(/segment 3 is cut out/);
    expect(() => renumberOpenFile({ file: 5, sizePages: 8 }, cut, files)).toThrow(ReadaheadError);
  });

  it("insertAged: pages put back with an earlier age go after older ones and before younger ones", () => {
    const cache = new PageCache({ capacityPages: 100, lruEpochPages: 10 });
    cache.insert(1, 0, 30, 0, 0); // epochs 0, 1, 2: read before the skipped stretch
    const cutEpoch = cache.epochNow();
    expect(cutEpoch).toBe(3);
    cache.insert(3, 0, 40, 0, 1); // epochs 3..6: read after it
    expect(cache.insertAged(2, 0, 50, cutEpoch)).toBe(50);
    expect(cache.insertAged(2, 40, 20, cutEpoch)).toBe(10); // [40, 50) already there
    expect(cache.stats().residentPages).toBe(130);
    expect(cache.overfullPages()).toBe(30);
    // A real cache would have pushed out the 30 oldest: all of file 1, nothing of files 2 or 3.
    expect(cache.evictOldest(cache.overfullPages(), 2)).toBe(30);
    expect(cache.cachedFiles()).toEqual([2, 3]);
    expect(cache.extents(2).reduce((a, r) => a + r.end - r.start, 0)).toBe(60);
    expect(cache.overfullPages()).toBe(0);
    // An age below every epoch still present, after an eviction moved past it, goes first.
    cache.insertAged(4, 0, 5, 0);
    cache.evictOldest(5, 3);
    expect(cache.cachedFiles()).toEqual([2, 3]);
  });

  it("oldestSurvivingEpoch and newestEpoch: what reading more pages would have pushed out", () => {
    const cache = new PageCache({ capacityPages: 100, lruEpochPages: 10 });
    cache.insert(1, 0, 30, 0, 0); // epochs 0, 1, 2
    cache.insert(2, 0, 30, 0, 1); // epochs 3, 4, 5
    expect(cache.newestEpoch(1)).toBe(2);
    expect(cache.newestEpoch(2)).toBe(5);
    expect(cache.newestEpoch(3)).toBe(Number.NEGATIVE_INFINITY);
    expect(cache.oldestSurvivingEpoch(25)).toBe(2); // epochs 0 and 1 go, part of 2
    expect(cache.oldestSurvivingEpoch(30)).toBe(3);
    expect(cache.oldestSurvivingEpoch(60)).toBe(Number.POSITIVE_INFINITY);
    // What inserting 75 pages into the (then full) cache really evicts: the 35 oldest.
    cache.insert(3, 0, 75, 0, 2);
    expect(cache.cachedFiles()).toEqual([2, 3]);
    expect(cache.newestEpoch(2)).toBeGreaterThanOrEqual(cache.oldestSurvivingEpoch(0));
    expect(cache.extents(2).reduce((a, r) => a + r.end - r.start, 0)).toBe(25);
  });

  it("a map out of the old order: eviction within an epoch follows the new names", () => {
    const build = (c: number) => {
      // Epoch 0 holds the first 30 pages; later insertions go to later epochs, so epoch 0 is not re-sorted on its own.
      const cache = new PageCache({ capacityPages: 30, lruEpochPages: 30 });
      for (const f of [0, 3, c]) cache.insert(f, 0, 10, 0, 0);
      // One eviction (file 0's first page, under either naming) builds the epoch's sorted order.
      cache.insert(5, 0, 1, 0, 1);
      return cache;
    };
    const renamed = build(9);
    renamed[RENAME_FILES]((f) => (f === 9 ? 1 : f));
    const fresh = build(1);
    renamed.insert(6, 0, 15, 0, 2);
    fresh.insert(6, 0, 15, 0, 2);
    for (const f of [0, 1, 3, 5, 6]) expect(renamed.extents(f)).toEqual(fresh.extents(f));
    // File 0's other 9 pages, then file 1's lowest 6 (not file 3's): the new name sorts first.
    expect(renamed.extents(1)[0]!.start).toBe(6);
    expect(renamed.extents(3)[0]!.start).toBe(0);
  });
});
