/**
 * The Linux model against apps/docs/src/reference/linux-readahead-window.md (sizing, worked traces of apps/docs/src/reference/linux-readahead-window.md#worked-traces)
 * and against what the 6.18 kernel of the machine this package was built on
 * did (ftrace of `readahead:*` events and `fincore`, recorded in the README,
 * "Measured on the real kernel").
 */

import { linuxInitRaSize, linuxNextRaSize } from "@scanlab/core";
import { describe, expect, it } from "vitest";
import { createReadaheadModel } from "./create-model.js";
import { ReadaheadError } from "./errors.js";
import { type LinuxOptions, linuxReadahead } from "./linux.js";
import { PageCache } from "./page-cache.js";
import { readAll, readBlock, TestDevice } from "./test-driver.js";

/** One reader reading blocks [from, from + n) one at a time, each once the previous is in. */
function sequential(opts: LinuxOptions, from: number, n: number, sizePages = 1 << 20) {
  const cache = new PageCache();
  const model = linuxReadahead(cache, opts);
  const of = model.open(1, { sizePages });
  const dev = new TestDevice();
  const resident: number[] = [];
  let t = 0;
  for (let b = from; b < from + n; b++) {
    const out = readBlock(model, of, b, t, dev, `block ${b}`);
    t = out.readyAtUs + 15;
    resident.push(cache.residentIn(1));
  }
  return { cache, model, of, dev, resident };
}

/** The apps/docs/src/reference/readahead-predictions.md#simulation-assumptions reference setting: 128 KiB, no large folios, no window alignment. */
const REF_610: LinuxOptions = { version: ">=6.10", largeFolios: false, alignWindows: false };
const REF_69: LinuxOptions = { version: "<=6.9" };

describe("Linux sizing (apps/docs/src/reference/linux-readahead-window.md#sizing-functions)", () => {
  it("init(): 1-2 pages -> 4, 3-4 -> 8, 5-8 -> 16, more -> 32 with max 32", () => {
    expect([1, 2, 3, 4, 5, 8, 9, 32].map((r) => linuxInitRaSize(r, 32))).toEqual([
      4, 4, 8, 8, 16, 16, 32, 32,
    ]);
  });
  it("next(): 4 -> 8 -> 16 -> 32 -> 32 (16/32/64/128 KiB) with max 32", () => {
    expect([4, 8, 16, 32].map((c) => linuxNextRaSize(c, 32))).toEqual([8, 16, 32, 32]);
    // with 8 MiB (2048 pages) the small windows grow x4: 8 -> 32 -> 128
    expect([8, 32, 128, 1024, 2048].map((c) => linuxNextRaSize(c, 2048))).toEqual([32, 128, 256, 2048, 2048]);
  });
});

describe("one reader from block 0 (apps/docs/src/reference/linux-readahead-window.md#one-reader-from-block-0)", () => {
  for (const [name, opts] of [
    ["<=6.9, 5.4 read loop", { ...REF_69, readLoop: "5.4" }],
    ["<=6.9, 5.12 read loop", REF_69],
    [">=6.10 (no folios)", REF_610],
  ] as [string, LinuxOptions][]) {
    it(`${name}: ramps 16, 32, 64, 128 KiB, then a 128 KiB window every 16 blocks`, () => {
      const { dev } = sequential(opts, 0, 64);
      expect(dev.sizes().slice(0, 8)).toEqual([16, 32, 64, 128, 128, 128, 128, 128]);
      // sync INITIAL [0,4) at block 0; block 1 hits marker 2 -> [4,12); block 2 -> [12,28); block 6 -> [28,60)
      expect(dev.log.slice(0, 4).map((l) => [l.by, l.page, l.sync])).toEqual([
        ["block 0", 0, true],
        ["block 1", 4, false],
        ["block 2", 12, false],
        ["block 6", 28, false],
      ]);
      // "each issued when the reader reaches the start of the previous window": [60,92) at block 14 (page 28)
      expect(dev.log[4]).toMatchObject({ by: "block 14", page: 60, pages: 32 });
    });
  }

  it("mid-file cold start: 8 KiB random read, then 16, 32, 64, 128 KiB (both lines)", () => {
    for (const opts of [REF_69, REF_610]) {
      const { dev } = sequential(opts, 5000, 40);
      expect(dev.sizes().slice(0, 6)).toEqual([8, 16, 32, 64, 128, 128]);
      expect(dev.log[0]!.sync && dev.log[1]!.sync && !dev.log[2]!.sync).toBe(true);
    }
  });

  it("6.18 with read_ahead_kb 128 (measured on a loop device): resident pages after each read", () => {
    // fincore after each 8 kB read, kernel 6.18.44, ext4 with large folios, read_ahead_kb 128:
    // the async windows are trimmed to the folio order (4, 8, 16... pages), see README "Measured".
    const fromStart = [
      4, 12, 16, 16, 16, 16, 24, 24, 32, 32, 32, 32, 48, 48, 48, 48, 64, 64, 64, 64, 64, 64, 64, 64,
    ];
    const midFile = [
      2, 6, 12, 16, 16, 16, 24, 24, 32, 32, 32, 32, 48, 48, 48, 48, 64, 64, 64, 64, 64, 64, 64, 64,
    ];
    expect(sequential({ version: ">=6.10" }, 0, 24).resident).toEqual(fromStart);
    const mid = sequential({ version: ">=6.10" }, 65536, 24, 262144);
    expect(mid.resident).toEqual(midFile);
  });

  it("6.18 with read_ahead_kb 8192, max_sectors_kb 4096 (vda, traced): windows 8, 32, 120, 480, 896, 1536, 1024, 2048 pages", () => {
    // readahead:page_cache_ra_order on this machine: size=8 (order 0), 32 (order 2), 120 (order 4),
    // 480 (order 6), 896 (order 8), 1536 (order 10), 1024 (order 11), 2048, 2048...; block_rq_issue
    // split 1536 pages into 4 MiB + 2 MiB and 2048 into 2 x 4 MiB.
    const { dev, resident } = sequential(
      { version: ">=6.10", readAheadKb: 8192, maxSectorsKb: 4096 },
      0,
      2600,
    );
    expect(dev.log.slice(0, 10).map((l) => l.pages)).toEqual([
      8, 32, 120, 480, 896, 1024, 512, 1024, 1024, 1024,
    ]);
    expect(dev.log.slice(0, 10).map((l) => l.page)).toEqual([
      0, 8, 40, 160, 640, 1536, 2560, 3072, 4096, 5120,
    ]);
    // fincore after reads 0..20: 8, 40, 40, 40, 160 ... 160, 640
    expect([resident[0], resident[1], resident[3], resident[4], resident[19], resident[20]]).toEqual([
      8, 40, 40, 160, 160, 640,
    ]);
  });
});

describe("two striding readers, separate opens (apps/docs/src/reference/linux-readahead-window.md#two-striding-readers)", () => {
  function stride(opts: LinuxOptions, blocks: number) {
    const cache = new PageCache();
    const model = linuxReadahead(cache, opts);
    const w = [model.open(1), model.open(1)];
    const dev = new TestDevice();
    let t = 0;
    for (let b = 0; b < blocks; b++) {
      readBlock(model, w[b % 2]!, b, t, dev, `W${b % 2} block ${b}`);
      t += 20;
    }
    return dev.log;
  }

  it("<=6.9: W1 takes the MARKER route, W0's stale CONTINUE + READIT pushes a 64 KiB window", () => {
    const log = stride(REF_69, 3);
    expect(log.map((l) => [l.by, l.page, l.pages, l.sync])).toEqual([
      ["W0 block 0", 0, 4, true], // INITIAL [0,4), marker on page 2
      ["W1 block 1", 4, 8, false], // MARKER: s = 4, size next(4) = 8, marker on 4
      // W0 hits marker 4 with state (0,4,2): index == start+size -> CONTINUE [4,12), and since
      // index == start && size == async, READIT grows it to [4,28) with 16 async: only [12,28) is absent.
      // (the narrative of apps/docs/src/reference/linux-readahead-window.md#two-striding-readers says "no I/O, marker gone" here, but its own READIT rule, and
      // ondemand_readahead() in Debian's linux-source-6.1, apply READIT after CONTINUE too.)
      ["W0 block 2", 12, 16, false],
    ]);
  });

  it(">=6.10: W0 takes the MARKER route instead: async [12,32)", () => {
    const log = stride(REF_610, 3);
    expect(log.map((l) => [l.by, l.page, l.pages, l.sync])).toEqual([
      ["W0 block 0", 0, 4, true],
      ["W1 block 1", 4, 8, false],
      ["W0 block 2", 12, 20, false], // s = 12, size next(12 - 4 + 2) = 20
    ]);
  });

  it("both lines keep the striding pair on large windows (the two share one stream)", () => {
    for (const opts of [REF_69, REF_610]) {
      const log = stride(opts, 4000);
      const kib = log.reduce((a, l) => a + l.kib, 0) / log.length;
      expect(kib).toBeGreaterThan(100);
    }
  });

  it("6.18 with large folios (traced): the xarray walk starts the MARKER window one page late", () => {
    // Trace on a loop device, read_ahead_kb 128: W0 (state 0,4,2) hits the marker at 4 of W1's window
    // [4,12) made of order-2 folios; page_cache_next_miss(5) reports 13, not 12, so the window is [13,32)
    // and page 12 is later read alone (4 KiB).
    const log = stride({ version: ">=6.10" }, 3);
    expect(log.map((l) => [l.page, l.pages])).toEqual([
      [0, 4],
      [4, 8],
      [13, 19],
    ]);
  });
});

describe("xarray walks that start inside a large folio (6.18, measured)", () => {
  function scenario(first: number, probe: number, xarrayLag = true) {
    const cache = new PageCache();
    const model = linuxReadahead(cache, { version: ">=6.10", xarrayLag });
    const a = model.open(1, { sizePages: 65536 });
    const b = model.open(1, { sizePages: 65536 });
    const dev = new TestDevice();
    let t = 0;
    for (let blk = 0; blk < first; blk++) t = readBlock(model, a, blk, t, dev).readyAtUs + 10;
    const n = dev.log.length;
    readBlock(model, b, probe, t, dev);
    return dev.log.slice(n).map((l) => [l.page, l.pages, l.sync]);
  }
  it("CONTEXT: history under page 16 counts 13 pages, so the window is [16, 31)", () => {
    // Traced: fd1 reads blocks 0-5 (pages 0-15 cached, [12,16) one order-2 folio); fd2 reads block 8:
    // page_cache_ra_order index=16 size=15 async_size=1. A plain scan would find 16 pages reaching
    // page 0 and double them: size 32.
    expect(scenario(6, 8)).toEqual([[16, 15, true]]);
    expect(scenario(6, 8, false)).toEqual([[16, 32, true]]);
  });
  it("MARKER: next miss after page 13 reported as 17, so the window is [17, 28)", () => {
    // Traced: fd1 reads blocks 0-2; fd2 reads block 6 (marker on the order-2 folio [12,16)):
    // page_cache_ra_order index=17 order=2 size=11.
    expect(scenario(3, 6)).toEqual([[17, 11, false]]);
    expect(scenario(3, 6, false)).toEqual([[16, 12, false]]); // s = 16, size next(6) = 12
  });
});

describe("one shared open file (apps/docs/src/reference/linux-readahead-window.md#one-shared-struct-file-vs-separate-opens)", () => {
  it("two readers striding through one struct file look like one sequential reader", () => {
    const cache = new PageCache();
    const model = linuxReadahead(cache, REF_610);
    const shared = model.open(1);
    const dev = new TestDevice();
    let t = 0;
    for (let b = 0; b < 64; b++) {
      readBlock(model, shared, b, t, dev, `P${b % 2}`);
      t += 20;
    }
    const alone = sequential(REF_610, 0, 64).dev;
    expect(dev.sizes()).toEqual(alone.sizes());
  });
});

describe("parameters and hints", () => {
  it("splits windows at max_sectors_kb (apps/docs/src/reference/linux-readahead-window.md#readahead-parameters)", () => {
    const { dev } = sequential({ ...REF_610, readAheadKb: 512, maxSectorsKb: 64 }, 0, 300);
    expect(Math.max(...dev.sizes())).toBe(64);
    expect(dev.log.filter((l) => l.kib === 64).length).toBeGreaterThan(10);
  });

  it("a read bigger than the window uses io_pages (PG17 read streams, 32 and 64 pages)", () => {
    const cache = new PageCache();
    const model = linuxReadahead(cache, { ...REF_610, maxSectorsKb: 1280 });
    const of = model.open(1);
    const dev = new TestDevice();
    // req 32 = max: init() jumps to the maximum with the marker half way, and the same read,
    // once page 0 is in, walks onto that marker and pushes the next window.
    readAll(model, of, 0, 32, 0, dev);
    expect(dev.log.map((l) => [l.page, l.pages, l.sync])).toEqual([
      [0, 32, true],
      [32, 32, false],
    ]);
    const of2 = model.open(2);
    readAll(model, of2, 0, 64, 0, dev); // req 64 > 32: max = min(64, io_pages 320)
    expect(dev.log.slice(2).map((l) => [l.file, l.page, l.pages, l.sync])).toEqual([
      [2, 0, 64, true],
      [2, 64, 64, false],
    ]);
  });

  it("POSIX_FADV_SEQUENTIAL doubles the window: 256 KiB", () => {
    const cache = new PageCache();
    const model = linuxReadahead(cache, REF_610);
    const of = model.open(1);
    const dev = new TestDevice();
    model.fadvise(of, "sequential", 0, 0, 0, dev.submit);
    let t = 0;
    for (let b = 0; b < 200; b++) t = readBlock(model, of, b, t, dev).readyAtUs + 15;
    expect(dev.sizes().slice(0, 6)).toEqual([32, 64, 128, 256, 256, 256]);
    model.fadvise(of, "normal", 0, 0, t, dev.submit);
    expect(of.raPages).toBe(32);
  });

  it("POSIX_FADV_RANDOM: misses read exactly the request, but other openers' markers still fire", () => {
    const cache = new PageCache();
    const model = linuxReadahead(cache, REF_610);
    const r = model.open(1);
    const s = model.open(1);
    const dev = new TestDevice();
    model.fadvise(r, "random", 0, 0, 0, dev.submit);
    readBlock(model, r, 100, 0, dev);
    readBlock(model, r, 101, 1000, dev);
    expect(dev.sizes()).toEqual([8, 8]);
    readBlock(model, s, 0, 2000, dev); // a normal opener leaves a marker on page 2
    readBlock(model, r, 1, 3000, dev); // the random opener touches it: the async path does not test RANDOM
    expect(dev.log.at(-1)).toMatchObject({ sync: false, page: 4 });
  });

  it("POSIX_FADV_WILLNEED: forced read capped at max(io_pages, ra_pages), no marker, state untouched", () => {
    const cache = new PageCache();
    const model = linuxReadahead(cache, { ...REF_610, maxSectorsKb: 1280 });
    const of = model.open(1);
    const dev = new TestDevice();
    const tally = model.fadvise(of, "willneed", 1000, 10_000, 0, dev.submit);
    expect(tally.asyncPages).toBe(320); // io_pages = 1280 KiB / 4
    expect(cache.markerIn(1, 0, 20_000)).toBe(-1);
    expect([of.start, of.size, of.prevIndex]).toEqual([0, 0, -1]);
    // Its pages count as history for CONTEXT: a miss right after them gets a full window.
    readBlock(model, of, 660, 10, dev);
    expect(dev.log.at(-1)).toMatchObject({ page: 1320, pages: 32, sync: true });
  });

  it("POSIX_FADV_DONTNEED drops the valid pages", () => {
    const { cache, model, of, dev } = sequential(REF_610, 0, 40);
    model.fadvise(of, "dontneed", 0, 0, 1e9, dev.submit);
    expect(cache.residentIn(1)).toBe(0);
  });

  it("read_ahead_kb 0: every page is its own read", () => {
    const { dev } = sequential({ ...REF_610, readAheadKb: 0 }, 0, 4);
    expect(dev.sizes()).toEqual([4, 4, 4, 4, 4, 4, 4, 4]);
  });

  it("stops at the end of the file", () => {
    const { dev, cache } = sequential(REF_610, 0, 10, 20);
    expect(cache.residentIn(1)).toBe(20);
    expect(Math.max(...dev.log.map((l) => l.page + l.pages))).toBe(20);
  });
});

describe("time order", () => {
  it("a read that must wait before deciding returns pending, and submits later only on resume", () => {
    const cache = new PageCache();
    const model = linuxReadahead(cache, REF_610);
    const of = model.open(1);
    cache.insert(1, 0, 2, 100, 0); // pages 0-1 in flight until 100
    cache.insert(1, 2, 2, 0, 0); // pages 2-3 valid, marker on 2
    cache.setMarker(1, 2, 3, 0);
    const dev = new TestDevice();
    const out = model.read(of, 0, 4, 0, dev.submit);
    expect(out.pending).not.toBeNull();
    expect(out.readyAtUs).toBe(100);
    expect(dev.log).toEqual([]); // nothing decided before the wait
    dev.nowUs = 100;
    const done = model.resume(out.pending!, 100, dev.submit);
    expect(done.pending).toBeNull();
    expect(dev.log.map((l) => l.atUs)).toEqual([100]);
    expect(() => model.resume(out.pending!, 200, dev.submit)).toThrow(RangeError);
  });
});

describe("bad parameters", () => {
  it("name what was wrong in one sentence", () => {
    const cache = new PageCache();
    expect(() => linuxReadahead(cache, { version: "5.x" as never })).toThrow(
      'Linux readahead version "5.x" is unknown; use "<=6.9" or ">=6.10".',
    );
    expect(() => linuxReadahead(cache, { version: ">=6.10", readLoop: "5.4" })).toThrow(ReadaheadError);
    expect(() => linuxReadahead(cache, { readAheadKb: -1 })).toThrow(
      "Linux readAheadKb must be a number >= 0, got -1.",
    );
    expect(() => createReadaheadModel(cache, "linux-9.9" as never)).toThrow(
      /^Readahead model "linux-9.9" is unknown/,
    );
    try {
      linuxReadahead(cache, { maxSectorsKb: -4 });
    } catch (e) {
      expect(e).toMatchObject({ name: "ReadaheadError", userError: true, code: "READAHEAD_BAD_PARAMETER" });
    }
  });
});
