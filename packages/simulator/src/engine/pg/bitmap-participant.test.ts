/**
 * Bitmap heap scans the PostgreSQL 13-17 way (apps/docs/src/reference/bitmap-heap-scan-prefetch.md#pg13-to-17-prefetch): one 8 kB read
 * per bitmap page, posix_fadvise(WILLNEED) advice ahead of it up to
 * effective_io_concurrency pages, normal buffer replacement. Scenarios are
 * built the way T7 builds its synthetic rows (the 2022 bitmap data sets), on a
 * 20,000-block table instead of 131,072. The OS port is wrapped to see every
 * read and every piece of advice the scan gives the OS.
 */
import { describe, expect, it } from "vitest";
import { runSpied } from "../../../test/os-spy.js";
import { ScenarioError } from "../../errors.js";
import { resolveScenario } from "../../scenario/resolve.js";
import type { ScenarioInput } from "../../scenario/schema.js";
import { simulateWith } from "../loop/simulate.js";
import { realModels } from "../seam/adapters.js";
import { bitmapFor } from "../seam/bitmap-adapters.js";

type QueryIn = ScenarioInput["queries"][number];
type Dataset = "random" | "random-8" | "random-32" | "sequential";

const NBLOCKS = 20_000;

/** T7's synthetic row on a smaller table: i5-2500K-like machine, Linux 5.4, PG13 prefetcher. */
function bitmapScenario(
  dataset: Dataset,
  q: Partial<QueryIn> = {},
  machine: Partial<ScenarioInput["machine"]> = {},
): ScenarioInput {
  return {
    name: `bitmap ${dataset}`,
    machine: {
      cores: 4,
      ram: "8GB",
      sharedBuffers: "128MB",
      os: "linux-5.4",
      device: "intel-ssd-320-120gb",
      cpu: { jitter: 0 },
      ...machine,
    },
    tables: [{ name: "t", blocks: NBLOCKS, tuplesPerPage: 27 }],
    queries: [
      {
        name: "bitmap",
        table: "t",
        kind: "bitmap",
        pg: "13",
        bitmap: { dataset, selectivity: 0.1, seed: 4 },
        ...q,
      },
    ],
  };
}

const run = runSpied;

/** The bitmap's pages, ascending. */
function pagesOf(s: ScenarioInput): number[] {
  const spec = resolveScenario(s).scenario.queries[0]!;
  return [...bitmapFor(spec, NBLOCKS).toPages()];
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

describe("every bitmap page exactly once", () => {
  for (const dataset of ["random", "random-8", "sequential"] as const) {
    for (const eic of [0, 16]) {
      it(`${dataset}, eic ${eic}: one 8 kB read per bitmap page, no page twice, nothing else`, () => {
        const s = bitmapScenario(dataset, { effectiveIoConcurrency: eic });
        const pages = pagesOf(s);
        // 10% of 20,000 pages, give or take the data set's run structure.
        expect(pages.length).toBeGreaterThan(1500);
        expect(pages.length).toBeLessThan(2500);
        const { r, log } = run(s);
        const x = r.queries[0]!.runs[0]!;
        expect(x.finished).toBe(true);
        expect(x.blocks).toBe(pages.length);
        expect(x.startBlock).toBe(0);
        // Cold table, the bitmap fits in shared buffers: every page is read from the OS once.
        expect(sorted(log.readBlocks)).toEqual(pages);
        expect(x.sharedHits).toBe(0);
      });
    }
  }

  it("parallel (2 workers + leader, PG13 shared iterator): the participants split the pages, none read twice", () => {
    const s = bitmapScenario("random", { workers: 2, effectiveIoConcurrency: 8 });
    const pages = pagesOf(s);
    const { r, log } = run(s);
    const x = r.queries[0]!.runs[0]!;
    expect(x.participants).toHaveLength(3);
    expect(x.participants.reduce((a, p) => a + p.blocks, 0)).toBe(pages.length);
    for (const p of x.participants) expect(p.blocks).toBeGreaterThan(0);
    expect(sorted(log.readBlocks)).toEqual(pages);
  });

  it("no ring, no syncscan: a second run finds every page in shared buffers and reads nothing", () => {
    const s = bitmapScenario("random", { runs: 2 });
    const pages = pagesOf(s);
    const { r, log } = run(s);
    const [first, second] = r.queries[0]!.runs;
    expect(first!.sharedHits).toBe(0);
    expect(second!.sharedHits).toBe(pages.length);
    expect(second!.startBlock).toBe(0);
    // Reads only in the first run.
    expect(log.readBlocks).toHaveLength(pages.length);
    expect(r.sharedBuffers.hits).toBe(pages.length);
    expect(r.sharedBuffers.misses).toBe(pages.length);
  });
});

describe("effective_io_concurrency", () => {
  it("eic 0 gives no advice at all", () => {
    const { log } = run(bitmapScenario("random", { effectiveIoConcurrency: 0 }));
    expect(log.adviceCalls).toBe(0);
  });

  for (const eic of [1, 16]) {
    it(`eic ${eic}: one 8 kB WILLNEED per page ahead, only for bitmap pages, never twice, never the first page`, () => {
      const s = bitmapScenario("random", { effectiveIoConcurrency: eic });
      const pages = pagesOf(s);
      const { log } = run(s);
      // PrefetchBuffer advises one block per call (apps/docs/src/reference/bitmap-heap-scan-prefetch.md#prefetchbuffer).
      expect(log.advisedBlocks).toHaveLength(log.adviceCalls);
      const advised = sorted(log.advisedBlocks);
      expect(new Set(advised).size).toBe(advised.length);
      const inBitmap = new Set(pages);
      expect(advised.every((b) => inBitmap.has(b))).toBe(true);
      // The prefetch iterator starts after the first page is read: every later page is advised.
      expect(advised).toEqual(pages.slice(1));
    });
  }

  it("the default is 1 up to PG17: same advice as eic 1", () => {
    const byDefault = run(bitmapScenario("random", { pg: "17" })).log.adviceCalls;
    const one = run(bitmapScenario("random", { pg: "17", effectiveIoConcurrency: 1 })).log.adviceCalls;
    expect(byDefault).toBe(one);
    expect(byDefault).toBeGreaterThan(0);
  });

  it("random pages, cold, on an SSD: eic 16 keeps 16 reads in flight and is at least twice as fast as eic 0", () => {
    const t0 = run(bitmapScenario("random", { effectiveIoConcurrency: 0 })).r.queries[0]!.meanDurationS;
    const t16 = run(bitmapScenario("random", { effectiveIoConcurrency: 16 })).r;
    expect(t16.queries[0]!.meanDurationS).toBeLessThan(t0 / 2);
    expect(t16.device.meanQueueDepth).toBeGreaterThan(2);
  });

  it("the regression of the 2022 eic benchmark: on a sequential bitmap eic 1 replaces 128 kB readahead by 8 kB advised reads and is slower", () => {
    const off = run(bitmapScenario("sequential", { effectiveIoConcurrency: 0 })).r;
    const one = run(bitmapScenario("sequential", { effectiveIoConcurrency: 1 })).r;
    expect(off.device.avgReadKb).toBeGreaterThan(100);
    expect(one.device.avgReadKb).toBe(8);
    expect(one.queries[0]!.meanDurationS).toBeGreaterThan(1.3 * off.queries[0]!.meanDurationS);
  });
});

describe("policies and errors", () => {
  it("the adaptive policy is serial only: a parallel one is a user error", () => {
    const s = bitmapScenario("random", { prefetch: "adaptive", workers: 2 });
    expect(() => simulateWith(resolveScenario(s), realModels)).toThrow(ScenarioError);
    expect(() => simulateWith(resolveScenario(s), realModels)).toThrow(/serial only/);
  });

  it("the adaptive policy reads every page once too", () => {
    const s = bitmapScenario("random-32", { prefetch: "adaptive" });
    const pages = pagesOf(s);
    const { r, log } = run(s);
    expect(r.queries[0]!.runs[0]!.blocks).toBe(pages.length);
    expect(sorted(log.readBlocks)).toEqual(pages);
  });

  it("pg84's spindle formula: eic 2 prefetches as far as PG13's eic 3, eic 4 as far as eic 8", () => {
    // round(n x H(n)): 2 -> round(2 + 1) = 3; 4 -> round(4 + 2 + 1.33 + 1) = 8 (apps/docs/src/reference/bitmap-heap-scan-prefetch.md#spindle-formula).
    const device = (eic: number, prefetch: "pg13" | "pg84") =>
      run(bitmapScenario("random", { effectiveIoConcurrency: eic, prefetch })).r.device;
    expect(device(2, "pg84")).toEqual(device(3, "pg13"));
    expect(device(4, "pg84")).toEqual(device(8, "pg13"));
    // The queue depth is the prefetch distance: about 8 with 8 pages advised ahead, about 4 with 4.
    expect(device(4, "pg84").meanQueueDepth).toBeGreaterThan(7);
    expect(device(4, "pg13").meanQueueDepth).toBeLessThan(4.5);
  });
});

describe("the CPU of a warm bitmap scan: matched tuples and buffers used for the first time", () => {
  // The table in the OS page cache, no CPU jitter: the scan's time is its CPU, so costs add exactly.
  const warm = (cpu: Record<string, number>, sharedBuffers = "128MB"): ScenarioInput => {
    const s = bitmapScenario("random", {}, { sharedBuffers, cpu: { jitter: 0, ...cpu } });
    s.tables[0] = { ...s.tables[0]!, cached: "os" };
    return s;
  };
  const seconds = (s: ScenarioInput) =>
    simulateWith(resolveScenario(s), realModels).queries[0]!.meanDurationS;

  it("bitmapTupleUs is paid once per matched tuple: 27 a page in the 2022 data sets", () => {
    const pages = pagesOf(warm({})).length;
    const extra = seconds(warm({ bitmapTupleUs: 1 })) - seconds(warm({}));
    expect(extra * 1e6).toBeCloseTo(pages * 27 * 1, 3);
  });

  it("bufferFirstUseUs is paid for every page while shared buffers have unused buffers, and not after", () => {
    const pages = pagesOf(warm({})).length;
    // 128 MB is 16,384 buffers: every one of the scan's pages lands in a buffer never used before.
    const big = seconds(warm({ bufferFirstUseUs: 10 }, "128MB")) - seconds(warm({}, "128MB"));
    expect(big * 1e6).toBeCloseTo(pages * 10, 3);
    // 4 MB is 512 buffers: the first 512 pages fault their buffers in, the rest reuse them.
    expect(pages).toBeGreaterThan(512);
    const small = seconds(warm({ bufferFirstUseUs: 10 }, "4MB")) - seconds(warm({}, "4MB"));
    expect(small * 1e6).toBeCloseTo(512 * 10, 3);
  });

  it("advice on a cached block costs a page-cache lookup (readSyscallUs), not fadviseUs", () => {
    // eic 16: every page is advised before it is read, and every one is already in the page cache.
    const advised = (cpu: Record<string, number>) => {
      const s = warm(cpu);
      s.queries[0] = { ...s.queries[0]!, effectiveIoConcurrency: 16 } as (typeof s.queries)[0];
      return s;
    };
    expect(seconds(advised({ fadviseUs: 50 }))).toBeCloseTo(seconds(advised({ fadviseUs: 2 })), 9);
    const pages = pagesOf(warm({})).length;
    const calls = run(advised({})).log.adviceCalls;
    expect(calls).toBeGreaterThan(0);
    const lookups =
      seconds(advised({ fadviseUs: 50, readSyscallUs: 3 })) -
      seconds(advised({ fadviseUs: 50, readSyscallUs: 1 }));
    // Each advice call and each page's read is one lookup: (3 - 1) us apiece.
    expect(lookups * 1e6).toBeCloseTo((calls + pages) * 2, 0);
  });

  it("a sequential scan of the same table reads through its 32-buffer BAS_BULKREAD ring and pays for those only", () => {
    const seq = (cpu: Record<string, number>) => {
      const s = warm(cpu);
      s.queries[0] = { name: "seq", table: "t", kind: "seqscan", pg: "13" };
      return s;
    };
    const extra = seconds(seq({ bufferFirstUseUs: 10 })) - seconds(seq({}));
    expect(extra * 1e6).toBeCloseTo(32 * 10, 3);
  });
});

describe("advice that starts a read", () => {
  it("costs fadviseUs for each absent block it advises", () => {
    const cold = (fadviseUs: number) =>
      run(bitmapScenario("random", { effectiveIoConcurrency: 16 }, { cpu: { jitter: 0, fadviseUs } }));
    const slow = cold(50);
    const fast = cold(2);
    expect(slow.r.queries[0]!.meanDurationS).toBeGreaterThan(fast.r.queries[0]!.meanDurationS);
  });
});

describe("catching up with advice", () => {
  it("a read that finds its page still being read by earlier advice sleeps on it and pays a wake-up; with no advice few reads do", () => {
    const seconds = (eic: number, wakeUpUs: number) =>
      run(bitmapScenario("random", { effectiveIoConcurrency: eic }, { cpu: { jitter: 0, wakeUpUs } })).r
        .queries[0]!.meanDurationS;
    const { log } = run(bitmapScenario("random", { effectiveIoConcurrency: 1 }));
    // At eic 1 the advice runs one page ahead of a device-bound scan, so many reads find their page in flight.
    const extraUs = (seconds(1, 100) - seconds(1, 0)) * 1e6;
    expect(extraUs).toBeGreaterThan(0.25 * log.readBlocks.length * 100);
    expect(extraUs).toBeLessThanOrEqual(log.advisedBlocks.length * 100 + 1e-6);
    // eic 0: a read starts its own I/O, whose wake-up the device's latency already holds; only the
    // few that land in the kernel's readahead of a neighbour wait for I/O they did not start.
    const eic0ExtraUs = (seconds(0, 100) - seconds(0, 0)) * 1e6;
    expect(eic0ExtraUs).toBeGreaterThanOrEqual(0);
    expect(eic0ExtraUs).toBeLessThan(0.05 * extraUs);
  });
});

describe("the Bitmap Index Scan before the heap: leaf pages of the table's index", () => {
  const withIndex = (
    indexBlocks: number | undefined,
    q: Partial<QueryIn> = {},
    cached: "none" | "os" = "none",
  ) => {
    const s = bitmapScenario("random", q);
    s.tables[0] = { ...s.tables[0]!, cached, ...(indexBlocks === undefined ? {} : { indexBlocks }) };
    return s;
  };
  const result = (s: ScenarioInput) => simulateWith(resolveScenario(s), realModels);

  it("reads the metapage and the matched share of the leaf pages through shared buffers: 10 % of 501 blocks is 1 + 50", () => {
    // The random data set at 10 %: every tuple of a matched page matches, so the share is pages / blocks.
    const share = pagesOf(withIndex(501)).length / NBLOCKS;
    const leaves = Math.ceil(share * 500);
    const without = result(withIndex(undefined));
    const withIt = result(withIndex(501));
    expect(withIt.sharedBuffers.misses - without.sharedBuffers.misses).toBe(1 + leaves);
    // Cold: the index comes from the device (with the kernel's readahead of the index file, at least those pages).
    expect(withIt.device.bytes - without.device.bytes).toBeGreaterThanOrEqual((1 + leaves) * 8192);
    // Before the heap: the scan takes longer.
    expect(withIt.queries[0]!.meanDurationS).toBeGreaterThan(without.queries[0]!.meanDurationS);
  });

  it("an index in the page cache costs no device read", () => {
    const warm = result(withIndex(501, {}, "os"));
    expect(warm.device.bytes).toBe(0);
  });

  it("a parallel bitmap heap scan does not read the index (who builds the bitmap is not modelled)", () => {
    const q = { workers: 1 };
    expect(result(withIndex(501, q)).sharedBuffers.misses).toBe(
      result(withIndex(undefined, q)).sharedBuffers.misses,
    );
  });
});

describe("determinism", () => {
  it("the same scenario and seed give byte-identical results; another seed gives other results", () => {
    // Default CPU jitter, so the seed matters.
    const s = bitmapScenario("random-8", { effectiveIoConcurrency: 4, workers: 1 }, { cpu: {} });
    const a = JSON.stringify(simulateWith(resolveScenario(s), realModels));
    const b = JSON.stringify(simulateWith(resolveScenario(s), realModels));
    expect(a).toBe(b);
    const other = JSON.stringify(simulateWith(resolveScenario({ ...s, seed: 2 }), realModels));
    expect(other).not.toBe(a);
  });
});
