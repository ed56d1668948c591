/**
 * The Windows model's pattern detection and read-ahead sizing, read by read,
 * against the inferred rules of apps/docs/src/reference/windows-cache-manager.md#inferred-model (all [I], low confidence:
 * these tests pin the rules as apps/docs/src/reference/windows-cache-manager.md#inferred-model states them, not Windows).
 *
 * Setting: G = 64 KiB (16 pages), C = 8 KiB (2 pages, so each demand miss
 * is exactly the 8 kB block), V = 256 KiB (64 pages), k = 1 (2 with
 * SEQUENTIAL_SCAN).
 */
import { describe, expect, it } from "vitest";
import { PageCache } from "./page-cache.js";
import { readAll, TestDevice } from "./test-driver.js";
import { type WindowsOpenOptions, windowsReadahead } from "./windows.js";

function world(open: WindowsOpenOptions = {}, sizePages = 1 << 20) {
  const cache = new PageCache();
  const win = windowsReadahead(cache, { granularityBytes: 65536, demandClusterBytes: 8192 });
  const of = win.open(1, { sizePages, ...open });
  const dev = new TestDevice();
  let t = 0;
  /** 2-page reads at these pages, each once the previous one's data is in. */
  const reads = (...pages: number[]) => {
    for (const p of pages) t = readAll(win, of, p, 2, t, dev).readyAtUs + 15;
  };
  return { cache, win, of, dev, reads };
}

const ios = (dev: TestDevice) => dev.log.map((l) => [l.page, l.pages, l.sync]);

describe("SEQ: R starts at h1's end and h1 at h2's end (apps/docs/src/reference/windows-cache-manager.md#inferred-model)", () => {
  it("queues k x roundup(R.len, G) from the frontier while the reader is within a unit of it, bounded by the view", () => {
    const { dev, reads } = world();
    const pages: number[] = [];
    for (let p = 0; p <= 66; p += 2) pages.push(p);
    reads(...pages);
    // p=0, 2: demand misses of C, no pattern yet (two reads). p=4: SEQ, f = max(frontier, 6) = 6,
    // unit roundup(2, 16) = 16: [6,22). p=6 (end 8): 22 - 8 = 14 < 16: [22,38). p=8..20: 38 - end >= 16,
    // nothing. p=22 (end 24): [38,54). p=38 (end 40): [54, 70) cut at the view end 64: [54,64).
    // p=48 (end 50): 64 - 50 = 14: [64,80). p=64 (end 66): [80,96).
    expect(ios(dev)).toEqual([
      [0, 2, true],
      [2, 2, true],
      [4, 2, true],
      [6, 16, false],
      [22, 16, false],
      [38, 16, false],
      [54, 10, false],
      [64, 16, false],
      [80, 16, false],
    ]);
  });

  it("two adjacent reads are not enough: the third read establishes the pattern", () => {
    const { dev, reads } = world();
    reads(100, 102);
    expect(dev.log.every((l) => l.sync)).toBe(true);
    reads(104); // f = 106: [106,122)
    expect(dev.log.at(-1)).toMatchObject({ page: 106, pages: 16, sync: false });
  });

  it("FILE_FLAG_SEQUENTIAL_SCAN: every read is SEQ and the unit doubles (k = 2)", () => {
    const { dev, reads } = world({ sequentialScan: true });
    reads(0, 2, 4, 32);
    // p=0: f = 2, unit 2 x 16 = 32: [2,34). p=2 (end 4): 34 - 4 = 30 < 32: [34,66) cut at 64: [34,64).
    // p=4 (end 6): 64 - 6 = 58, nothing. p=32 (end 34): 30 < 32: [64,96).
    expect(ios(dev)).toEqual([
      [0, 2, true],
      [2, 32, false],
      [34, 30, false],
      [64, 32, false],
    ]);
  });

  it("stops at the end of the file", () => {
    const { dev, reads } = world({}, 20);
    reads(0, 2, 4, 6, 8);
    // p=4: [6,22) clamped to [6,20). p=6 (end 8): frontier 20 is the file's end: nothing more.
    expect(ios(dev)).toEqual([
      [0, 2, true],
      [2, 2, true],
      [4, 2, true],
      [6, 14, false],
    ]);
  });
});

describe("STRIDE: R.off - h1.off = h1.off - h2.off != 0 (apps/docs/src/reference/windows-cache-manager.md#what-is-documented, apps/docs/src/reference/windows-cache-manager.md#inferred-model)", () => {
  it("forward: the predicted next request, rounded to G, one I/O per absent run", () => {
    const { dev, reads } = world();
    reads(0, 10, 20);
    // stride 10: predicted [30,32), rounded to G: [16,32); [20,22) is cached: [16,20) and [22,32).
    expect(ios(dev)).toEqual([
      [0, 2, true],
      [10, 2, true],
      [20, 2, true],
      [16, 4, false],
      [22, 10, false],
    ]);
  });

  it("backward (Windows Internals: 4000, 3000, then 2000 is pre-read)", () => {
    const { dev, reads } = world();
    reads(1000, 750, 500);
    // stride -250: predicted [250,252), rounded to G: [240,256).
    expect(ios(dev)).toEqual([
      [1000, 2, true],
      [750, 2, true],
      [500, 2, true],
      [240, 16, false],
    ]);
    reads(250); // a hit; stride still -250: predicted [0,2) -> [0,16)
    expect(ios(dev).slice(4)).toEqual([[0, 16, false]]);
  });

  it("unequal gaps (dynamic striding) give no read-ahead", () => {
    const { dev, reads } = world();
    reads(0, 10, 22, 30, 44);
    expect(dev.log.every((l) => l.sync)).toBe(true);
  });

  it("a predicted request past the end of the file is not read", () => {
    const { dev, reads } = world({}, 30);
    reads(0, 10, 20); // predicted [30,32): beyond the 30-page file
    expect(dev.log.every((l) => l.sync)).toBe(true);
  });

  it("FILE_FLAG_RANDOM_ACCESS: never, whatever the pattern", () => {
    const { dev, reads } = world({ randomAccess: true });
    reads(0, 10, 20, 30, 32, 34, 36);
    expect(dev.log.every((l) => l.sync && l.pages === 2)).toBe(true);
  });
});
