/**
 * The Windows model against apps/docs/src/reference/windows-cache-manager.md#inferred-model and the rows of apps/docs/src/reference/readahead-predictions.md#windows-predictions (all [I],
 * low confidence): these tests pin the inferred rules, not Windows.
 */
import { describe, expect, it } from "vitest";
import { directIo } from "./direct-io.js";
import { PageCache } from "./page-cache.js";
import { simulateScan } from "./scan-harness.js";
import { readAll, readBlock, TestDevice } from "./test-driver.js";
import { type WindowsOpenOptions, windowsReadahead } from "./windows.js";

function sequentialRun(open: WindowsOpenOptions, blocks = 2000) {
  const cache = new PageCache();
  const win = windowsReadahead(cache, { granularityBytes: 65536, demandClusterBytes: 32768 });
  const of = win.open(1, open);
  const dev = new TestDevice();
  let t = 0;
  for (let b = 0; b < blocks; b++) t = readBlock(win, of, b, t, dev).readyAtUs + 15;
  return { win, dev };
}

const avg = (dev: TestDevice) => dev.log.reduce((a, l) => a + l.kib, 0) / dev.log.length;

describe("Windows Cache Manager model (low confidence)", () => {
  it("says so in its label and confidence", () => {
    const win = windowsReadahead(new PageCache());
    expect(win.confidence).toBe("low");
    expect(win.label).toContain("LOW CONFIDENCE");
  });

  it("one reader, neither flag: a demand miss of C, then read-ahead of about G = 64 KiB from the 3rd read", () => {
    const { dev } = sequentialRun({});
    expect(dev.log[0]).toMatchObject({ page: 0, pages: 8, sync: true, by: "" });
    expect(dev.log[1]!.sync).toBe(false);
    expect(avg(dev)).toBeGreaterThan(56);
    expect(avg(dev)).toBeLessThanOrEqual(64);
    expect(dev.log.filter((l) => l.sync).length).toBe(1);
  });

  it("FILE_FLAG_SEQUENTIAL_SCAN doubles the read-ahead (about 128 KiB)", () => {
    const { dev } = sequentialRun({ sequentialScan: true });
    expect(avg(dev)).toBeGreaterThan(112);
  });

  it("FILE_FLAG_RANDOM_ACCESS: only demand misses of C", () => {
    const { dev } = sequentialRun({ randomAccess: true });
    expect(dev.log.every((l) => l.sync && l.kib === 32)).toBe(true);
  });

  it("a strictly regular stride is detected (three reads, equal gaps)", () => {
    const cache = new PageCache();
    const win = windowsReadahead(cache, { demandClusterBytes: 8192 });
    const h = [win.open(1), win.open(1)];
    const dev = new TestDevice();
    for (let b = 0; b < 3000; b++) readBlock(win, h[b % 2]!, b, b * 20, dev);
    expect(dev.log.filter((l) => !l.sync).length / dev.log.length).toBeGreaterThan(0.3);
  });

  it("apps/docs/src/reference/readahead-predictions.md#windows-predictions rows: dynamic striding is mostly demand misses, chunks of 1024 read ahead about G", () => {
    const model = (c: PageCache) => windowsReadahead(c, { demandClusterBytes: 16384 });
    const stride = simulateScan({ kind: "stride", processes: 4 }, { model, blocks: 50_000 });
    expect(stride.syncFraction).toBeGreaterThan(0.5);
    expect(stride.avgIoKiB).toBeLessThan(40);
    const chunk = simulateScan({ kind: "chunk", processes: 4, chunkBlocks: 1024 }, { model, blocks: 50_000 });
    expect(chunk.syncFraction).toBeLessThan(0.05);
    expect(chunk.avgIoKiB).toBeGreaterThan(56);
  });
});

describe("direct I/O (none)", () => {
  it("reads exactly what was asked, every time, split at the largest request", () => {
    const cache = new PageCache();
    const none = directIo(cache, { maxIoKb: 64 });
    const of = none.open(1);
    const dev = new TestDevice();
    readBlock(none, of, 5, 0, dev);
    readBlock(none, of, 5, 1000, dev);
    readAll(none, of, 0, 40, 2000, dev);
    expect(dev.log.map((l) => [l.page, l.pages, l.sync])).toEqual([
      [10, 2, true],
      [10, 2, true],
      [0, 16, true],
      [16, 16, true],
      [32, 8, true],
    ]);
    expect(cache.stats().residentPages).toBe(0);
    expect(none.quietRun(of, 0, 100, 2, 0).pages).toBe(0);
  });
});
