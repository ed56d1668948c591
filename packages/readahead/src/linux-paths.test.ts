/**
 * Linux sync and async paths played step by step, like the worked traces of
 * apps/docs/src/reference/linux-readahead-window.md#worked-traces, on cases apps/docs/src/reference/linux-readahead-window.md#worked-traces does not walk through: CONTINUE on a miss
 * at `start + size`, READIT growth (both branches), MARKER sizing and its
 * `s - index > max` limit, the async CONTINUE after a CONTEXT window, window
 * alignment, the two read loops' `prev_pos`, forced reads (WILLNEED), DONTNEED
 * and the end of the file. Every expected number is worked out in a comment
 * from the rule it cites (ra_pages 32 = 128 KiB unless said otherwise).
 */
import { describe, expect, it } from "vitest";
import { type LinuxOptions, linuxReadahead } from "./linux.js";
import { PageCache } from "./page-cache.js";
import { readAll, readBlock, TestDevice } from "./test-driver.js";

/** The reference setting of apps/docs/src/reference/readahead-predictions.md#simulation-assumptions for the two lines: order-0 pages, no folio alignment. */
const L69: LinuxOptions = { version: "<=6.9" };
const L54: LinuxOptions = { version: "<=6.9", readLoop: "5.4" };
const L610: LinuxOptions = { version: ">=6.10", largeFolios: false, alignWindows: false };
const L610_ALIGN: LinuxOptions = { version: ">=6.10", largeFolios: false, alignWindows: true };

function world(opts: LinuxOptions, sizePages = 1 << 20) {
  const cache = new PageCache();
  const model = linuxReadahead(cache, opts);
  const of = model.open(1, { sizePages });
  const dev = new TestDevice();
  return { cache, model, of, dev };
}

/** [page, pages, sync] of the logged device reads from index `from`. */
const ios = (dev: TestDevice, from = 0) => dev.log.slice(from).map((l) => [l.page, l.pages, l.sync]);

/** Pages carrying a marker in [0, end) (one entry per marker unit). */
function markers(cache: PageCache, end: number): number[] {
  const out: number[] = [];
  for (let p = 0; p < end; p++) {
    const m = cache.page(1, p, 1e12).markerUnit;
    if (m >= 0 && !out.includes(m)) out.push(m);
  }
  return out;
}

describe("sync path: a miss at start + size (apps/docs/src/reference/linux-readahead-window.md#sync-path-up-to-6-9)", () => {
  it("<=6.9: CONTINUE, then READIT grows a window the reader would hit at once", () => {
    const { cache, model, of, dev } = world(L69);
    // block 0: index 0 -> INITIAL: size init(2, 32) = 4, async 4 - 2 = 2: [0,4), marker on 0+4-2 = 2
    readBlock(model, of, 0, 0, dev);
    // pages [4,6) at t=1000 (the marker page 2 is skipped): index 4 = start + size -> CONTINUE:
    // start 4, size next(4, 32) = 8 (4 <= 32/2), async 8. READIT: index == start and size == async:
    // add = next(8) = 16, 8 + 16 <= 32 -> async 16, size 24: [4,28), marker on 28 - 16 = 12.
    readAll(model, of, 4, 2, 1000, dev);
    expect(ios(dev)).toEqual([
      [0, 4, true],
      [4, 24, true],
    ]);
    expect([of.start, of.size, of.asyncSize]).toEqual([4, 24, 16]);
    expect(markers(cache, 40)).toEqual([2, 12]); // the marker on 2 was never touched
  });

  it(">=6.10: no CONTINUE in the sync path; CONTEXT sizes it from the history instead", () => {
    const { cache, model, of, dev } = world(L610);
    readBlock(model, of, 0, 0, dev); // INITIAL' [0,4), async 4 - 2 = 2, marker on 2
    // index 4, prev_index 2 (5.12 loop: end of the read): 4 - 2 = 2 > 1, not INITIAL.
    // CONTEXT: pages 3, 2, 1, 0 are cached and the scan runs off page 0: h = 4 (= index) -> 8;
    // size min(8 + 2, 32) = 10, async 1: [4,14), marker on the last page, 13.
    readAll(model, of, 4, 2, 1000, dev);
    expect(ios(dev)).toEqual([
      [0, 4, true],
      [4, 10, true],
    ]);
    expect([of.start, of.size, of.asyncSize]).toEqual([4, 10, 1]);
    expect(markers(cache, 40)).toEqual([2, 13]);
  });

  it("<=6.9 READIT when the window cannot grow: size = max, async = max/2", () => {
    const { cache, model, of, dev } = world(L69);
    // 32 pages at 0: INITIAL size init(32, 32) = 32 (32 > 32/4), async = size (not > req) = 32.
    // READIT: index == start, size == async: add = next(32) = 32, 32 + 32 > 32 -> size 32, async 16:
    // one sync read [0,32), marker on 32 - 16 = 16. The same read then walks onto marker 16:
    // 16 = start + size - async -> CONTINUE: [32,64), async 32 (READIT: 16 != 32, no growth).
    readAll(model, of, 0, 32, 0, dev);
    expect(ios(dev)).toEqual([
      [0, 32, true],
      [32, 32, false],
    ]);
    expect(markers(cache, 80)).toEqual([32]);
  });
});

describe("async path: MARKER sizing (apps/docs/src/reference/linux-readahead-window.md#async-path-up-to-6-9)", () => {
  for (const [name, opts] of [
    ["<=6.9", L69],
    [">=6.10", L610],
  ] as [string, LinuxOptions][]) {
    it(`${name}: the window starts at the first absent page and is sized next((s - index) + req)`, () => {
      const { cache, model, of, dev } = world(opts);
      cache.insert(1, 0, 12, 0, 0); // [0,12) valid (someone else's pages)
      cache.setMarker(1, 8, 9, 0); // their marker on page 8
      // A fresh opener reads pages [8,10): marker 8 with empty state -> MARKER.
      // s = first absent page in (8, 8 + 32] = 12; size = next(12 - 8 + 2 = 6, 32) = 12 (6 <= 16);
      // async = size: [12,24), marker on 24 - 12 = 12.
      readAll(model, of, 8, 2, 10, dev);
      expect(ios(dev)).toEqual([[12, 12, false]]);
      expect([of.start, of.size, of.asyncSize]).toEqual([12, 12, 12]);
      expect(markers(cache, 40)).toEqual([12]);
    });

    it(`${name}: nothing to read within max pages: no I/O, the marker is consumed, state untouched`, () => {
      const { cache, model, of, dev } = world(opts);
      cache.insert(1, 0, 38, 0, 0);
      cache.setMarker(1, 5, 6, 0);
      // index 5: (5, 37] is all cached, so s = 5 + 32 + 1 = 38 and s - index = 33 > 32: return.
      readAll(model, of, 5, 1, 10, dev);
      expect(dev.log).toEqual([]);
      expect(markers(cache, 40)).toEqual([]);
      expect([of.start, of.size, of.asyncSize]).toEqual([0, 0, 0]);
    });

    it(`${name}: s - index = max exactly still reads ahead`, () => {
      const { cache, model, of, dev } = world(opts);
      cache.insert(1, 0, 37, 0, 0);
      cache.setMarker(1, 5, 6, 0);
      // s = 37, s - 5 = 32 = max: size = next(32 + 1, 32) = 32 (> 32/2): [37,69), marker on 37.
      readAll(model, of, 5, 1, 10, dev);
      expect(ios(dev)).toEqual([[37, 32, false]]);
      expect(markers(cache, 80)).toEqual([37]);
    });
  }

  it(">=6.10 with window alignment: the end is trimmed to a multiple of 2^min(order, ctz(max))", () => {
    const { cache, model, of, dev } = world(L610_ALIGN);
    cache.insert(1, 0, 37, 0, 0);
    cache.setMarker(1, 5, 6, 0);
    // As above, [37,69); order 0 + 2 = 2, ctz(32) = 5: align 2^2 = 4; 69 -> 68: [37,68), async 31.
    readAll(model, of, 5, 1, 10, dev);
    expect(ios(dev)).toEqual([[37, 31, false]]);
    expect([of.start, of.size, of.asyncSize]).toEqual([37, 31, 31]);
    expect(markers(cache, 80)).toEqual([37]);
  });
});

describe("async path: the expected marker of a CONTEXT window (apps/docs/src/reference/linux-readahead-window.md#sync-path-up-to-6-9, apps/docs/src/reference/linux-readahead-window.md#async-path)", () => {
  for (const [name, opts] of [
    ["<=6.9", L69],
    [">=6.10", L610],
    [">=6.10 aligned", L610_ALIGN],
  ] as [string, LinuxOptions][]) {
    it(`${name}: the marker on the window's last page continues the stream`, () => {
      const { cache, model, of, dev } = world(opts);
      cache.insert(1, 0, 20, 0, 0); // [0,20) cached by someone else
      // Pages [20,22), cold open: not index 0, not sequential (prev_pos -1). CONTEXT: h = 20 reaches
      // page 0 -> 40; size min(40 + 2, 32) = 32, async 1: sync [20,52), marker on 51.
      readAll(model, of, 20, 2, 0, dev);
      expect(ios(dev)).toEqual([[20, 32, true]]);
      expect(markers(cache, 60)).toEqual([51]);
      // Pages [50,52) once they are in: marker 51 = start + size - async -> CONTINUE:
      // start 52, size next(32) = 32, async 32: [52,84), marker on 52. (A MARKER route would give
      // s = 52, next(52 - 51 + 1 = 2) = 8 pages.) Aligned: order 2, 84 is a multiple of 4.
      readAll(model, of, 50, 2, 10_000, dev);
      expect(ios(dev, 1)).toEqual([[52, 32, false]]);
      expect([of.start, of.size, of.asyncSize]).toEqual([52, 32, 32]);
      expect(markers(cache, 100)).toEqual([52]);
    });
  }
});

describe("prev_pos of the two read loops (apps/docs/src/reference/linux-readahead-window.md#how-a-read-drives-readahead)", () => {
  // Block 5 cold: CONTEXT finds no history: a random read of exactly [10,12), state untouched.
  // Then the single page 13:
  it("5.4 loop: prev_index = 11 (last page read), 13 - 11 = 2: another random read of 1 page", () => {
    const { model, of, dev } = world(L54);
    readBlock(model, of, 5, 0, dev);
    expect(of.prevIndex).toBe(11);
    readAll(model, of, 13, 1, 1000, dev);
    // CONTEXT: page 12 is absent, h = 0 <= req 1: read exactly [13,14).
    expect(ios(dev)).toEqual([
      [10, 2, true],
      [13, 1, true],
    ]);
  });
  for (const [name, opts] of [
    ["<=6.9, 5.12 loop", L69],
    [">=6.10", L610],
  ] as [string, LinuxOptions][]) {
    it(`${name}: prev_index = 12 (end of the read), 13 - 12 = 1: INITIAL`, () => {
      const { cache, model, of, dev } = world(opts);
      readBlock(model, of, 5, 0, dev);
      expect(of.prevIndex).toBe(12);
      readAll(model, of, 13, 1, 1000, dev);
      // INITIAL: size init(1, 32) = 4, async 4 - 1 = 3: [13,17), marker on 17 - 3 = 14.
      expect(ios(dev)).toEqual([
        [10, 2, true],
        [13, 4, true],
      ]);
      expect(markers(cache, 20)).toEqual([14]);
    });
  }
});

describe("fadvise (apps/docs/src/reference/linux-readahead-window.md#fadvise-and-modes)", () => {
  it("WILLNEED: capped at max(io_pages, ra_pages), issued in 2 MiB pieces, one request per absent run", () => {
    // io_pages = 8192 KiB / 4 = 2048 > ra_pages 32: 3000 pages are capped at 2048, in 2 MiB = 512-page
    // pieces from page 100. Segments are not the limit here (1024 per request).
    const { cache, model, of, dev } = world({ ...L610, maxSectorsKb: 8192, maxSegments: 1024 });
    cache.insert(1, 300, 10, 0, 0); // [300,310) already cached: the first piece skips it
    const tally = model.fadvise(of, "willneed", 100, 3000, 0, dev.submit);
    expect(ios(dev)).toEqual([
      [100, 200, false],
      [310, 302, false],
      [612, 512, false],
      [1124, 512, false],
      [1636, 512, false],
    ]);
    expect(tally).toEqual({ syncIos: 0, syncPages: 0, asyncIos: 5, asyncPages: 2038 });
    expect(cache.markerIn(1, 0, 4000)).toBe(-1); // no marker
    expect([of.start, of.size, of.asyncSize, of.prevIndex]).toEqual([0, 0, 0, -1]); // state untouched
  });

  it("WILLNEED stops at the end of the file", () => {
    const { model, of, dev } = world(L610, 150);
    model.fadvise(of, "willneed", 100, 0, 0, dev.submit); // pages <= 0: to the end of the file
    expect(ios(dev)).toEqual([[100, 50, false]]);
  });

  it("DONTNEED with no length drops to the end of the file, only valid pages", () => {
    const { cache, model, of, dev } = world(L610, 64);
    cache.insert(1, 0, 40, 0, 0);
    cache.insert(1, 40, 24, 500, 0); // in flight until 500
    model.fadvise(of, "dontneed", 10, 0, 100, dev.submit);
    expect(cache.residentIn(1, 0, 10)).toBe(10); // below the range: kept
    expect(cache.residentIn(1, 10, 40)).toBe(0); // valid: dropped
    expect(cache.residentIn(1, 40, 64)).toBe(24); // under I/O: kept
  });

  it("RANDOM then NORMAL: back to readahead for this open only", () => {
    const { model, of, dev } = world(L610);
    model.fadvise(of, "random", 0, 0, 0, dev.submit);
    readBlock(model, of, 0, 0, dev); // RANDOM: forced read of exactly req = 2 pages, no marker
    model.fadvise(of, "normal", 0, 0, 1000, dev.submit);
    // block 1 (pages 2,3), prev_index 2: INITIAL' [2,6), async 2, marker on 4
    readBlock(model, of, 1, 1000, dev);
    expect(ios(dev)).toEqual([
      [0, 2, true],
      [2, 4, true],
    ]);
  });
});

describe("the end of the file (apps/docs/src/reference/linux-readahead-window.md#submission: SUBMIT clamps to EOF)", () => {
  for (const [name, opts] of [
    ["<=6.9", L69],
    [">=6.10", L610],
  ] as [string, LinuxOptions][]) {
    it(`${name}: a window past EOF is cut there and, cut before its marker page, has no marker`, () => {
      const { cache, model, of, dev } = world(opts, 11);
      readBlock(model, of, 0, 0, dev); // INITIAL [0,4), marker on 2
      // block 1 hits marker 2 = start + size - async: CONTINUE [4,12), async 8 (both lines).
      // Clamped to 11 pages: 7 pages, and the marker 7 - 8 < 0 pages into the window: none.
      readBlock(model, of, 1, 1000, dev);
      expect(ios(dev)).toEqual([
        [0, 4, true],
        [4, 7, false],
      ]);
      expect(markers(cache, 11)).toEqual([]);
      readBlock(model, of, 2, 2000, dev);
      readBlock(model, of, 3, 3000, dev);
      readAll(model, of, 8, 3, 4000, dev); // the last 3 pages: cached, no marker, no I/O
      expect(dev.log.length).toBe(2);
    });
  }

  it("every model refuses reads past the end, empty reads and negative pages", () => {
    const { model, of, dev } = world(L610, 10);
    expect(() => model.read(of, 9, 2, 0, dev.submit)).toThrow(RangeError);
    expect(() => model.read(of, 10, 1, 0, dev.submit)).toThrow(RangeError);
    expect(() => model.read(of, 0, 0, 0, dev.submit)).toThrow(RangeError);
    expect(() => model.read(of, -1, 1, 0, dev.submit)).toThrow(RangeError);
    expect(model.read(of, 9, 1, 0, dev.submit).pending).toBeNull(); // the last page is fine
    expect(model.quietRun(of, 10, 5, 1, 0).pages).toBe(0); // nothing to run at EOF
  });
});
