import { linuxInitRaSize, linuxNextRaSize } from "@scanlab/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AdaptiveCostParameters,
  adviceCostUs,
  chooseRegionMode,
  gapMergeLimitBlocks,
  INTEL_320_LINUX_DEFAULTS,
  readaheadCostUs,
  readaheadWindowsBlocks,
  resolveCostParameters,
} from "./adaptive-cost-model.js";
import { AdaptiveBitmapPrefetcher, type PlannedRegion } from "./adaptive-prefetch.js";
import type { AdviceCall, PrefetchEnv } from "./bitmap-scan-policy.js";
import { BitmapPrefetchError } from "./errors.js";
import { HeapBitmap, HeapBitmapBuilder } from "./heap-bitmap.js";

const nothingBuffered: PrefetchEnv = { isBuffered: () => false };

/** Intel 320 with Linux's 128 kB readahead, as in apps/docs/src/reference/storage-device-models.md#intel-ssd-320 (the policy's defaults). */
const ssd = resolveCostParameters(INTEL_320_LINUX_DEFAULTS);
/** A fast NVMe-class device (apps/docs/src/reference/storage-device-models.md#samsung-990-pro: ~50 us QD1, 7450 MB/s, ~60 reads in flight at saturation). */
const nvme: AdaptiveCostParameters = {
  readLatencyUs: 50,
  bandwidthMBps: 7450,
  saturatingQueueDepth: 64,
  readaheadBlocks: 16,
};
/** A 7200 rpm disk: milliseconds per random read, one actuator. */
const hdd: AdaptiveCostParameters = {
  readLatencyUs: 8000,
  bandwidthMBps: 200,
  saturatingQueueDepth: 1,
  readaheadBlocks: 16,
};

interface Scan {
  pages: number[];
  advice: Array<AdviceCall & { atPage: number }>;
  maxRangesAhead: number;
  regions: PlannedRegion[];
  scan: AdaptiveBitmapPrefetcher;
}

function run(bitmap: HeapBitmap, params: AdaptiveCostParameters, env = nothingBuffered): Scan {
  const regions: PlannedRegion[] = [];
  const scan = new AdaptiveBitmapPrefetcher(bitmap, params, (r) => regions.push(r));
  const pages: number[] = [];
  const advice: Scan["advice"] = [];
  let maxRangesAhead = 0;
  for (let s = scan.nextPage(env); s !== null; s = scan.nextPage(env)) {
    pages.push(s.page);
    for (const a of s.advice) advice.push({ ...a, atPage: s.page });
    maxRangesAhead = Math.max(maxRangesAhead, scan.rangesAhead);
  }
  return { pages, advice, maxRangesAhead, regions, scan };
}

describe("the cost model's Linux readahead (apps/docs/src/reference/linux-readahead-window.md#sizing-functions, apps/docs/src/reference/linux-readahead-window.md#worked-traces)", () => {
  it("init() with max 32 pages: req 1-2 -> 4, 3-4 -> 8, 5-8 -> 16, > 8 -> 32", () => {
    expect([1, 2, 3, 4, 5, 8, 9, 32].map((r) => linuxInitRaSize(r, 32))).toEqual([
      4, 4, 8, 8, 16, 16, 32, 32,
    ]);
  });

  it("next() with max 32 pages: 4 -> 8 -> 16 -> 32 -> 32", () => {
    expect([4, 8, 16, 32].map((c) => linuxNextRaSize(c, 32))).toEqual([8, 16, 32, 32]);
  });

  it("a cold run read with 8 kB reads: 8 KiB random read, then 16, 32, 64, 128 KiB windows, then 128 KiB each", () => {
    // 40 blocks: 1 + 2 + 4 + 8 + 16 = 31, one more 16-block window covers 40, and entering it triggers another.
    expect(readaheadWindowsBlocks(40, 16)).toEqual([1, 2, 4, 8, 16, 16, 16]);
    // One page: a random read, no marker, nothing more.
    expect(readaheadWindowsBlocks(1, 16)).toEqual([1]);
  });

  it("an isolated page costs a full latency plus transfer with readahead, a queue-depth share with advice", () => {
    const L = 100;
    const t = 8192 / 270;
    const one = { spanBlocks: 1, pages: 1, tuples: 27 };
    expect(readaheadCostUs(one, ssd)).toBeCloseTo(L + t, 9);
    expect(adviceCostUs(one, ssd)).toBeCloseTo(Math.max(t, L / 4, 0.4), 9);
    expect(chooseRegionMode(one, ssd)).toBe("advise");
    // Even a single-actuator disk gains: max(t, L) < L + t.
    expect(chooseRegionMode(one, resolveCostParameters(hdd))).toBe("advise");
  });

  it("a long run: advice pays when the scan is I/O-bound, readahead is left alone when the CPU is the limit", () => {
    const long = { spanBlocks: 100_000, pages: 100_000, tuples: 2_700_000 };
    expect(chooseRegionMode(long, ssd)).toBe("advise");
    expect(chooseRegionMode(long, resolveCostParameters(nvme))).toBe("advise");
    const cpuBound = resolveCostParameters({ ...nvme, cpuPerPageUs: 5, cpuPerTupleUs: 0.2 });
    expect(chooseRegionMode(long, cpuBound)).toBe("readahead");
    // ... and both then take the CPU time, within the advice calls' cost.
    expect(readaheadCostUs(long, cpuBound)).toBeGreaterThanOrEqual(100_000 * (5 + 27 * 0.2));
  });

  it("reads through a gap only when that is cheaper than another I/O: g x t < L / Q", () => {
    expect(gapMergeLimitBlocks(ssd)).toBe(0);
    expect(gapMergeLimitBlocks(resolveCostParameters(nvme))).toBe(0);
    // 8000 us / (8192 B / 200 MB/s = 41 us) = 195 blocks, capped by one advice call (16 blocks).
    expect(gapMergeLimitBlocks(resolveCostParameters(hdd))).toBe(15);
    expect(gapMergeLimitBlocks(resolveCostParameters({ ...hdd, readaheadBlocks: 512 }))).toBe(195);
  });

  it("rejects unphysical parameters with one sentence", () => {
    const bad: AdaptiveCostParameters[] = [
      { ...INTEL_320_LINUX_DEFAULTS, readLatencyUs: 0 },
      { ...INTEL_320_LINUX_DEFAULTS, bandwidthMBps: -1 },
      { ...INTEL_320_LINUX_DEFAULTS, saturatingQueueDepth: 0.5 },
      { ...INTEL_320_LINUX_DEFAULTS, readaheadBlocks: 0 },
      { ...INTEL_320_LINUX_DEFAULTS, cpuPerPageUs: Number.NaN },
    ];
    for (const p of bad) {
      expect(() => new AdaptiveBitmapPrefetcher(HeapBitmap.fromPages(10, [1]), p)).toThrow(
        BitmapPrefetchError,
      );
      expect(() => resolveCostParameters(p)).toThrow(/^[A-Za-z]+ must be [^\n]*\.$/);
    }
  });
});

describe("AdaptiveBitmapPrefetcher", () => {
  it("isolated pages: one 1-block call each, advised before they are read, Q ranges ahead", () => {
    const pages = Array.from({ length: 200 }, (_, i) => i * 50);
    const r = run(HeapBitmap.fromPages(10_000, pages, { tuples: 27 }), INTEL_320_LINUX_DEFAULTS);
    expect(r.pages).toEqual(pages);
    expect(r.advice.every((a) => a.blocks === 1 && a.afterTuples === 0)).toBe(true);
    expect(r.advice.map((a) => a.firstBlock)).toEqual(pages.slice(1));
    expect(r.maxRangesAhead).toBe(4);
  });

  it("runs of 8 (the random-8 layout of Vondra's 2022 benchmark, pgsql-hackers “Re: effective_io_concurrency and NVMe devices”): each run is one 8-block call instead of 8 calls", () => {
    const b = new HeapBitmapBuilder(100_000);
    for (let i = 0; i < 100; i++) b.addRun(i * 800, 8, { tuples: 27 });
    const r = run(b.build(), INTEL_320_LINUX_DEFAULTS);
    expect(r.advice.length).toBe(100 - 1 + 1);
    // The first run's page 0 is read before any advice: the rest of that run is one 7-block call.
    expect(r.advice[0]).toMatchObject({ firstBlock: 1, blocks: 7 });
    expect(r.advice.slice(1).every((a) => a.blocks === 8 && a.firstBlock % 800 === 0)).toBe(true);
    expect(r.regions.every((x) => x.mode === "advise")).toBe(true);
  });

  it("a long run on an I/O-bound scan: readahead-window calls, two windows ahead", () => {
    const r = run(
      HeapBitmap.fromRuns(10_000, [{ startBlock: 100, pages: 5000, lossy: false, tuples: 27 }]),
      INTEL_320_LINUX_DEFAULTS,
    );
    expect(r.advice.every((a) => a.blocks <= 16)).toBe(true);
    const covered = r.advice.reduce((n, a) => n + a.blocks, 0);
    expect(covered).toBe(4999);
    // max(Q, 2 x 16) = 32 blocks ahead: two full calls.
    expect(r.maxRangesAhead).toBeLessThanOrEqual(2);
    for (const a of r.advice) expect(a.firstBlock - a.atPage).toBeLessThanOrEqual(32);
  });

  it("a long run on a CPU-bound scan is left to OS readahead; the next region is advised once the scan is inside it", () => {
    const bitmap = HeapBitmap.fromRuns(100_000, [
      { startBlock: 10, pages: 1, lossy: false, tuples: 27 },
      { startBlock: 1000, pages: 50_000, lossy: false, tuples: 27 },
      { startBlock: 60_000, pages: 1, lossy: false, tuples: 27 },
      { startBlock: 70_000, pages: 1, lossy: false, tuples: 27 },
    ]);
    const r = run(bitmap, { ...nvme, cpuPerPageUs: 5, cpuPerTupleUs: 0.2 });
    expect(r.regions.map((x) => x.mode)).toEqual(["advise", "readahead", "advise", "advise"]);
    expect(r.advice.some((a) => a.firstBlock >= 1000 && a.firstBlock < 51_000)).toBe(false);
    const toNext = r.advice.find((a) => a.firstBlock === 60_000);
    expect(toNext?.atPage).toBe(1000);
    expect(r.scan.stats.readaheadRegionPages).toBe(50_000);
  });

  it("leaves blocks in shared buffers out, splitting the range around them", () => {
    const bitmap = HeapBitmap.fromRuns(1000, [{ startBlock: 0, pages: 40, lossy: false, tuples: 1 }]);
    const r = run(bitmap, INTEL_320_LINUX_DEFAULTS, { isBuffered: (b) => b === 5 || b === 6 });
    expect(r.advice.slice(0, 2).map((a) => [a.firstBlock, a.blocks])).toEqual([
      [1, 4],
      [7, 10],
    ]);
    expect(r.scan.stats.adviceSkippedBuffered).toBe(2);
  });

  it("on a disk, reads small gaps through in the same call", () => {
    const bitmap = HeapBitmap.fromPages(10_000, [100, 104, 109, 2000], { tuples: 27 });
    const r = run(bitmap, hdd);
    expect(r.advice.map((a) => [a.firstBlock, a.blocks])).toEqual([
      [101, 9],
      [2000, 1],
    ]);
    expect(r.scan.stats.gapBlocksAdvised).toBe(7);
  });

  it("property: pages in bitmap order; advice ahead of the scan, at most one call's size, each block once, covering every later page of an advised region", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 3000 }), { minLength: 1, maxLength: 250 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 3000 }), { maxLength: 40 }),
        fc.constantFrom<AdaptiveCostParameters>(INTEL_320_LINUX_DEFAULTS, nvme, hdd, {
          ...nvme,
          cpuPerPageUs: 20,
          readaheadBlocks: 4,
        }),
        (raw, bufferedList, params) => {
          const pages = [...raw].sort((a, b) => a - b);
          const buffered = new Set(bufferedList);
          const r = run(HeapBitmap.fromPages(3001, pages, { tuples: 3 }), params, {
            isBuffered: (b) => buffered.has(b),
          });
          expect(r.pages).toEqual(pages);
          const maxCall = r.scan.parameters.maxAdviceBlocks;
          const advised = new Set<number>();
          for (const a of r.advice) {
            expect(a.firstBlock).toBeGreaterThan(a.atPage);
            expect(a.blocks).toBeGreaterThan(0);
            expect(a.blocks).toBeLessThanOrEqual(maxCall);
            for (let b = a.firstBlock; b < a.firstBlock + a.blocks; b++) {
              expect(advised.has(b)).toBe(false);
              expect(buffered.has(b)).toBe(false);
              advised.add(b);
            }
          }
          expect(r.maxRangesAhead).toBeLessThanOrEqual(r.scan.parameters.saturatingQueueDepth);
          for (const region of r.regions) {
            if (region.mode !== "advise") continue;
            for (const p of pages) {
              if (p <= pages[0]! || p < region.startBlock || p >= region.endBlock || buffered.has(p))
                continue;
              expect(advised.has(p)).toBe(true);
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
