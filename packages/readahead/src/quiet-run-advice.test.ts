/**
 * The fast-path contract of model.ts ("skipQuiet accounts for those reads
 * exactly as the reads would have") on histories that quiet-run.test.ts does
 * not draw: posix_fadvise between reads (NORMAL, SEQUENTIAL, RANDOM, WILLNEED,
 * DONTNEED), per-open flags (FreeBSD F_READAHEAD, Windows SEQUENTIAL_SCAN /
 * RANDOM_ACCESS), a second file sharing the cache, and small files whose end
 * is inside the run. Seeded, so a failure replays.
 *
 * For one scenario, the run is played twice from the same history: once with
 * every read through `read()`, once taking `quietRun` + `skipQuiet` where they
 * allow it. Device reads (page, size, sync, time), per-open state and the
 * page cache (state, completion time, marker, LRU epoch) must be identical.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { freebsdUfsReadahead } from "./freebsd-ufs.js";
import { linuxReadahead } from "./linux.js";
import type { FadviseAdvice, OpenFile, ReadaheadModel } from "./model.js";
import { PageCache } from "./page-cache.js";
import { observableRuns, playRun, readAll, TestDevice } from "./test-driver.js";
import { windowsReadahead } from "./windows.js";

type Make = (c: PageCache) => ReadaheadModel;
type OpenOpts = Record<string, unknown>;

const MODELS: [string, Make, OpenOpts[]][] = [
  ["linux <=6.9, 5.4 loop", (c) => linuxReadahead(c, { version: "<=6.9", readLoop: "5.4" }), [{}]],
  ["linux <=6.9, 5.12 loop", (c) => linuxReadahead(c, { version: "<=6.9" }), [{}]],
  ["linux >=6.10, large folios", (c) => linuxReadahead(c, { version: ">=6.10" }), [{}]],
  [
    "linux >=6.10, read_ahead_kb 0",
    (c) => linuxReadahead(c, { version: ">=6.10", readAheadKb: 0, largeFolios: false }),
    [{}],
  ],
  [
    "freebsd-ufs <=12",
    (c) => freebsdUfsReadahead(c, { version: "<=12" }),
    [{}, { readaheadSeqcount: 0 }, { readaheadSeqcount: 8 }],
  ],
  [
    "freebsd-ufs >=13",
    (c) => freebsdUfsReadahead(c, { version: ">=13" }),
    [{}, { readaheadSeqcount: 0 }, { readaheadSeqcount: 8 }],
  ],
  [
    "windows",
    (c) => windowsReadahead(c, { demandClusterBytes: 16384 }),
    [{}, { sequentialScan: true }, { randomAccess: true }],
  ],
];

const ADVICE: FadviseAdvice[] = ["normal", "sequential", "random", "willneed", "dontneed"];

const stepArb = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      k: fc.constant("reads" as const),
      opener: fc.integer({ min: 0, max: 2 }),
      file: fc.integer({ min: 1, max: 2 }),
      page: fc.integer({ min: 0, max: 900 }),
      pages: fc.constantFrom(1, 2, 2, 3, 8, 32),
      runReads: fc.integer({ min: 1, max: 30 }),
      gapUs: fc.integer({ min: 0, max: 400 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant("advise" as const),
      opener: fc.integer({ min: 0, max: 2 }),
      file: fc.integer({ min: 1, max: 2 }),
      advice: fc.constantFrom(...ADVICE),
      page: fc.integer({ min: 0, max: 900 }),
      pages: fc.integer({ min: 0, max: 200 }),
    }),
  },
);

const scenarioArb = fc.record({
  history: fc.array(stepArb, { maxLength: 10 }),
  sizes: fc.tuple(fc.integer({ min: 40, max: 1000 }), fc.integer({ min: 40, max: 1000 })),
  flags: fc.tuple(fc.nat(2), fc.nat(2), fc.nat(2)),
  adviceAtOpen: fc.tuple(
    ...[0, 1, 2].map(() => fc.constantFrom<FadviseAdvice | null>(null, null, "random", "sequential")),
  ),
  runOpener: fc.integer({ min: 0, max: 2 }),
  runFile: fc.integer({ min: 1, max: 2 }),
  runPage: fc.integer({ min: 0, max: 999 }),
  runPages: fc.integer({ min: 1, max: 600 }),
  pagesPerRead: fc.constantFrom(1, 2, 2, 8, 16, 32),
  cpuUsPerPage: fc.integer({ min: 0, max: 20 }),
  waitUs: fc.integer({ min: 0, max: 3000 }),
  capacity: fc.constantFrom(Number.POSITIVE_INFINITY, 300, 900),
});

type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

function play(make: Make, openOpts: OpenOpts[], s: Scenario, fast: boolean) {
  const cache = new PageCache({
    capacityPages: s.capacity,
    ...(Number.isFinite(s.capacity) ? { lruEpochPages: 29 } : {}),
  });
  const model = make(cache);
  // opener i has one handle per file, opened with flag set flags[i]
  const ofs: OpenFile[][] = [0, 1, 2].map((i) =>
    [1, 2].map((f) =>
      model.open(f, { sizePages: s.sizes[f - 1]!, ...openOpts[s.flags[i]! % openOpts.length] }),
    ),
  );
  const dev = new TestDevice(80, 3);
  ofs.forEach((handles, i) => {
    const advice = s.adviceAtOpen[i];
    if (advice) for (const of of handles) model.fadvise(of, advice, 0, 0, 0, dev.submit);
  });
  let t = 0;
  for (const h of s.history) {
    const of = ofs[h.opener]![h.file - 1]!;
    if (h.k === "advise") {
      if (h.page < of.sizePages) {
        dev.nowUs = t;
        model.fadvise(of, h.advice, h.page, h.pages, t, dev.submit);
      }
      t += 50;
      continue;
    }
    let p = h.page;
    for (let i = 0; i < h.runReads && p + h.pages <= of.sizePages; i++) {
      t = readAll(model, of, p, h.pages, t, dev).readyAtUs + h.gapUs;
      p += h.pages;
    }
  }
  t += s.waitUs;
  const of = ofs[s.runOpener]![s.runFile - 1]!;
  const start = Math.min(s.runPage, of.sizePages - 1);
  const end = Math.min(start + s.runPages, of.sizePages);
  const played = playRun(model, of, start, end, s.pagesPerRead, s.cpuUsPerPage, t, dev, fast);
  t = played.endUs;
  const skipped = played.skipped;
  const T = t;
  const cacheState = [1, 2].map((f) => observableRuns(cache, f, T, Number.isFinite(s.capacity)));
  return {
    ios: dev.log.map((l) => [l.file, l.page, l.pages, l.sync, l.atUs]),
    openFiles: ofs.flat().map((o) => JSON.stringify(o)),
    cache: cacheState,
    endUs: T,
    resident: cache.stats().residentPages,
    skipped,
  };
}

describe("quietRun + skipQuiet == read() one by one, with fadvise, open flags, two files, small files", () => {
  for (const [name, make, openOpts] of MODELS) {
    it(name, () => {
      let skippedSome = 0;
      fc.assert(
        fc.property(scenarioArb, (s) => {
          const slow = play(make, openOpts, s, false);
          const fast = play(make, openOpts, s, true);
          if (fast.skipped > 0) skippedSome++;
          expect(fast.ios).toEqual(slow.ios);
          expect(fast.openFiles).toEqual(slow.openFiles);
          expect(fast.cache).toEqual(slow.cache);
          expect(fast.endUs).toBe(slow.endUs);
          expect(fast.resident).toBe(slow.resident);
        }),
        { numRuns: 150, seed: 20240611 },
      );
      // Not vacuous: quiet runs are found and skipped.
      expect(skippedSome).toBeGreaterThan(10);
    }, 300_000);
  }
});
