/**
 * Scans on read streams (apps/docs/src/reference/read-streams.md): PG17+ sequential scans and PG18+
 * bitmap heap scans. What the stream does shows in the reads it hands the
 * OS: direct I/O (os "none") passes each read() to the device unchanged, so
 * the device's read sizes are the stream's combined reads. The OS port is
 * wrapped to log every read, every piece of advice and every open.
 */
import { describe, expect, it } from "vitest";
import { type OsLog, runSpied } from "../../../test/os-spy.js";
import { ScenarioError } from "../../errors.js";
import { resolveScenario } from "../../scenario/resolve.js";
import type { ScenarioInput } from "../../scenario/schema.js";
import { simulateWith } from "../loop/simulate.js";
import { realModels } from "../seam/adapters.js";
import { bitmapFor } from "../seam/bitmap-adapters.js";

type QueryIn = ScenarioInput["queries"][number];
type MachineIn = ScenarioInput["machine"];

const NBLOCKS = 20_000;

function seqScenario(q: Partial<QueryIn>, machine: Partial<MachineIn> = {}): ScenarioInput {
  return {
    name: "read stream",
    machine: {
      cores: 8,
      ram: "4GB",
      os: "none",
      device: "intel-ssd-320-120gb",
      cpu: { jitter: 0 },
      ...machine,
    },
    tables: [{ name: "t", blocks: NBLOCKS, tuplesPerPage: 100 }],
    queries: [{ name: "q", table: "t", pg: "17", ...q }],
  };
}

function bitmapScenario(q: Partial<QueryIn>, machine: Partial<MachineIn> = {}): ScenarioInput {
  return seqScenario(
    {
      kind: "bitmap",
      pg: "18",
      bitmap: { dataset: "random", selectivity: 0.1, seed: 4 },
      ...q,
    },
    { os: "linux-5.4", ...machine },
  );
}

const run = runSpied;

/** How many times each block was read. */
function readCounts(log: OsLog, nblocks: number): Uint8Array {
  const n = new Uint8Array(nblocks);
  for (const r of log.reads) for (let b = r.block; b < r.block + r.blocks; b++) n[b]!++;
  return n;
}

describe("PG17 sequential scan: I/O combining", () => {
  for (const icl of [1, 4, 16, 32]) {
    it(`io_combine_limit ${icl}: reads of at most ${icl} consecutive blocks, every block exactly once`, () => {
      const { r, log } = run(seqScenario({ ioCombineLimit: icl }));
      expect(r.queries[0]!.runs[0]!.blocks).toBe(NBLOCKS);
      expect(Math.max(...log.reads.map((x) => x.blocks))).toBe(icl);
      expect(readCounts(log, NBLOCKS).every((n) => n === 1)).toBe(true);
      // Direct I/O: the device sees exactly these reads.
      expect(r.device.reads).toBe(log.reads.length);
      expect(r.device.bytes).toBe(NBLOCKS * 8192);
      // After the stream's short ramp almost every read is full size.
      expect(r.device.avgReadKb).toBeLessThanOrEqual(icl * 8);
      expect(r.device.avgReadKb).toBeGreaterThan(icl * 8 * 0.95);
    });
  }

  it("the default io_combine_limit is 16 blocks: 128 kB reads, against 8 kB for PG14 on the same direct I/O", () => {
    const pg17 = run(seqScenario({})).r;
    const pg14 = run(seqScenario({ pg: "14" })).r;
    expect(pg17.device.avgReadKb).toBeGreaterThan(120);
    expect(pg17.device.avgReadKb).toBeLessThanOrEqual(128);
    expect(pg14.device.avgReadKb).toBe(8);
    // Fewer, larger reads: the same table in less time.
    expect(pg17.queries[0]!.meanDurationS).toBeLessThan(pg14.queries[0]!.meanDurationS);
  });

  it("PG17 caps io_combine_limit at 32 blocks; PG18 takes up to 128", () => {
    try {
      run(seqScenario({ ioCombineLimit: 64 }));
      expect.unreachable();
    } catch (e) {
      expect((e as { userError?: boolean }).userError).toBe(true);
      expect((e as Error).message).toMatch(/io_combine_limit .* 1 to 32 .* PostgreSQL 17/);
    }
    const { r } = run(seqScenario({ pg: "18", ioCombineLimit: 64 }));
    expect(r.device.avgReadKb).toBeGreaterThan(256);
    expect(r.device.avgReadKb).toBeLessThanOrEqual(512);
  });

  it("a sequential scan's stream never advises, whatever effective_io_concurrency is", () => {
    for (const os of ["none", "linux-5.4"] as const) {
      const { log } = run(seqScenario({ effectiveIoConcurrency: 64 }, { os }));
      expect(log.advisedBlocks).toEqual([]);
    }
  });

  it("parallel (2 workers + leader): the participants' streams still read every block exactly once", () => {
    const { r, log } = run(seqScenario({ workers: 2 }));
    const x = r.queries[0]!.runs[0]!;
    expect(x.participants).toHaveLength(3);
    expect(x.participants.reduce((a, p) => a + p.blocks, 0)).toBe(NBLOCKS);
    expect(readCounts(log, NBLOCKS).every((n) => n === 1)).toBe(true);
    // 16-block chunks: reads never cross a chunk, so they stay at most 16 blocks.
    expect(Math.max(...log.reads.map((y) => y.blocks))).toBeLessThanOrEqual(16);
  });
});

describe("PG18 io_method", () => {
  it("worker and io_uring start reads ahead; sync waits for each one: same reads, less time", () => {
    const sync = run(seqScenario({ pg: "18", ioMethod: "sync" })).r;
    const worker = run(seqScenario({ pg: "18", ioMethod: "worker" })).r;
    const uring = run(seqScenario({ pg: "18", ioMethod: "io_uring" })).r;
    for (const r of [worker, uring]) {
      expect(r.device.reads).toBe(sync.device.reads);
      expect(r.device.bytes).toBe(sync.device.bytes);
      expect(r.queries[0]!.meanDurationS).toBeLessThan(0.9 * sync.queries[0]!.meanDurationS);
    }
  });

  it("worker: the I/O workers' copies take a core's share from the backend, so one core gains nothing", () => {
    // A warm table: every read is a copy from the page cache, CPU work either way. With a core each,
    // the backend hands its copies to the workers and runs faster than sync; on one core the workers'
    // copies take that core from it, and the scan takes at least as long as doing them itself.
    const warm = (cores: number, ioMethod: "sync" | "worker") => {
      const s = seqScenario({ pg: "18", ioMethod }, { cores, os: "linux-5.4" });
      return run({ ...s, tables: [{ ...s.tables[0]!, cached: "os" }] }).r.queries[0]!.meanDurationS;
    };
    expect(warm(8, "worker")).toBeLessThan(warm(8, "sync"));
    expect(warm(1, "worker")).toBeGreaterThanOrEqual(warm(1, "sync"));
  });

  it("the default is worker", () => {
    const byDefault = run(seqScenario({ pg: "18" })).r;
    const worker = run(seqScenario({ pg: "18", ioMethod: "worker" })).r;
    expect(JSON.stringify(byDefault)).toBe(JSON.stringify(worker));
  });

  it("worker: reads go through the I/O workers' own files (3 opens); sync and io_uring use the backend's (1)", () => {
    expect(run(seqScenario({ pg: "18", ioMethod: "worker" })).log.opens).toBe(3);
    expect(run(seqScenario({ pg: "18", ioMethod: "sync" })).log.opens).toBe(1);
    expect(run(seqScenario({ pg: "18", ioMethod: "io_uring" })).log.opens).toBe(1);
  });

  it("effective_io_concurrency 0 makes PG18 read synchronously even with io_method worker", () => {
    const zero = run(seqScenario({ pg: "18", ioMethod: "worker", effectiveIoConcurrency: 0 })).r;
    const sync = run(seqScenario({ pg: "18", ioMethod: "sync" })).r;
    expect(zero.queries[0]!.meanDurationS).toBe(sync.queries[0]!.meanDurationS);
    expect(zero.device.reads).toBe(sync.device.reads);
  });

  it("io_method makes no difference to PG17 (it has only synchronous I/O)", () => {
    // The scenario field is ignored before 18.
    const a = run(seqScenario({ pg: "17" })).r;
    const b = run(seqScenario({ pg: "17", ioMethod: "worker" })).r;
    expect(b.queries[0]!.meanDurationS).toBe(a.queries[0]!.meanDurationS);
  });
});

describe("PG18 bitmap heap scan on a read stream", () => {
  const pagesOf = (s: ScenarioInput) => [
    ...bitmapFor(resolveScenario(s).scenario.queries[0]!, NBLOCKS).toPages(),
  ];

  for (const dataset of ["random", "random-8"] as const) {
    it(`${dataset}: every bitmap page read exactly once, consecutive pages combined`, () => {
      const s = bitmapScenario({ bitmap: { dataset, selectivity: 0.1, seed: 4 } });
      const pages = pagesOf(s);
      const { r, log } = run(s);
      expect(r.queries[0]!.runs[0]!.blocks).toBe(pages.length);
      const counts = readCounts(log, NBLOCKS);
      const inBitmap = new Set(pages);
      expect(counts.every((n, b) => n === (inBitmap.has(b) ? 1 : 0))).toBe(true);
      expect(counts.reduce((a, n) => a + n, 0)).toBe(pages.length);
      // Runs of adjacent pages become one read: fewer reads than pages.
      expect(log.reads.length).toBeLessThan(pages.length);
      if (dataset === "random-8") expect(log.reads.length).toBeLessThan(pages.length / 4);
    });
  }

  it("advice only with io_method sync (and eic > 0); worker and io_uring start the reads instead", () => {
    const advised = (q: Partial<QueryIn>) => run(bitmapScenario(q)).log.advisedBlocks;
    expect(advised({ ioMethod: "sync", effectiveIoConcurrency: 16 }).length).toBeGreaterThan(0);
    expect(advised({ ioMethod: "sync", effectiveIoConcurrency: 0 })).toEqual([]);
    expect(advised({ ioMethod: "worker", effectiveIoConcurrency: 16 })).toEqual([]);
    expect(advised({ ioMethod: "io_uring", effectiveIoConcurrency: 16 })).toEqual([]);
  });

  it("advice is given only for bitmap pages, each at most once", () => {
    const s = bitmapScenario({ ioMethod: "sync", effectiveIoConcurrency: 16 });
    const inBitmap = new Set(pagesOf(s));
    const { log } = run(s);
    expect(log.advisedBlocks.every((b) => inBitmap.has(b))).toBe(true);
    expect(new Set(log.advisedBlocks).size).toBe(log.advisedBlocks.length);
  });

  it("cold random pages on an SSD: the default eic 16 is faster than eic 0", () => {
    const zero = run(bitmapScenario({ effectiveIoConcurrency: 0 })).r.queries[0]!.meanDurationS;
    const byDefault = run(bitmapScenario({})).r.queries[0]!.meanDurationS;
    expect(byDefault).toBeLessThan(zero / 1.5);
  });

  it("io_method worker: the three I/O workers read one block each at a time, so io_uring, which the kernel serves, keeps more reads in flight at eic 16", () => {
    const worker = run(bitmapScenario({ ioMethod: "worker" })).r.queries[0]!.meanDurationS;
    const uring = run(bitmapScenario({ ioMethod: "io_uring" })).r.queries[0]!.meanDurationS;
    expect(uring).toBeLessThan(worker / 1.2);
    // At eic 3 the pool is no bound: worker and io_uring read alike.
    const worker3 = run(bitmapScenario({ ioMethod: "worker", effectiveIoConcurrency: 3 })).r.queries[0]!
      .meanDurationS;
    const uring3 = run(bitmapScenario({ ioMethod: "io_uring", effectiveIoConcurrency: 3 })).r.queries[0]!
      .meanDurationS;
    expect(worker3 / uring3).toBeGreaterThan(0.9);
    expect(worker3 / uring3).toBeLessThan(1.1);
  });

  it("wakeUpUs: at eic 1 every read wakes an idle I/O worker and then the backend waiting for it; a sync read is woken only from I/O it did not start", () => {
    const seconds = (ioMethod: "worker" | "sync", wakeUpUs: number, eic = 1) =>
      run(bitmapScenario({ effectiveIoConcurrency: eic, ioMethod }, { cpu: { jitter: 0, wakeUpUs } })).r
        .queries[0]!.meanDurationS;
    const { log } = run(bitmapScenario({ effectiveIoConcurrency: 1, ioMethod: "worker" }));
    const reads = log.reads.length;
    const extraUs = (seconds("worker", 100) - seconds("worker", 0)) * 1e6;
    // At most two wake-ups a read (the worker's and the backend's); at eic 1 nearly every read pays both.
    expect(extraUs).toBeLessThanOrEqual(2 * reads * 100 + 1e-6);
    expect(extraUs).toBeGreaterThan(1.5 * reads * 100);
    // A sync read that finds its block still being read by the stream's advice sleeps on it and is
    // woken: at most one wake-up per advised block.
    const advised = run(bitmapScenario({ effectiveIoConcurrency: 1, ioMethod: "sync" })).log.advisedBlocks
      .length;
    const syncExtraUs = (seconds("sync", 100) - seconds("sync", 0)) * 1e6;
    expect(syncExtraUs).toBeGreaterThan(0);
    expect(syncExtraUs).toBeLessThanOrEqual(advised * 100 + 1e-6);
    // With no advice every read waits for its own I/O, whose wake-up the device's latency holds.
    expect(seconds("sync", 100, 0)).toBe(seconds("sync", 0, 0));
  });

  it("before PG18 a bitmap heap scan has no read stream: asking for one is a user error", () => {
    const s = bitmapScenario({ pg: "17", prefetch: "read-stream" });
    expect(() => simulateWith(resolveScenario(s), realModels)).toThrow(ScenarioError);
    expect(() => simulateWith(resolveScenario(s), realModels)).toThrow(/from PG18 on/);
  });
});

describe("determinism", () => {
  it("PG18 parallel scan and bitmap scan: the same seed gives byte-identical JSON, another seed does not", () => {
    for (const s of [
      seqScenario({ pg: "18", workers: 2 }, { os: "linux-6.10", cpu: {} }),
      bitmapScenario({ workers: 1 }, { cpu: {} }),
    ]) {
      const a = JSON.stringify(simulateWith(resolveScenario(s), realModels));
      expect(JSON.stringify(simulateWith(resolveScenario(s), realModels))).toBe(a);
      expect(JSON.stringify(simulateWith(resolveScenario({ ...s, seed: 7 }), realModels))).not.toBe(a);
    }
  });
});

describe("shared buffers and the pin limit", () => {
  for (const pg of ["17", "18"] as const) {
    it(`PG${pg}: a second run of a table that fits in shared buffers is all hits, as with PG14`, () => {
      // 2000 blocks <= NBuffers/4 (16384/4): no ring, the table stays in shared buffers.
      const s = (v: "14" | "17" | "18"): ScenarioInput => ({
        ...seqScenario({ pg: v, runs: 2 }, { os: "linux-5.4" }),
        tables: [{ name: "t", blocks: 2000, tuplesPerPage: 100, cached: "os" }],
      });
      const stream = run(s(pg)).r;
      const classic = run(s("14")).r;
      for (const r of [stream, classic]) {
        const [first, second] = r.queries[0]!.runs;
        expect(first!.sharedHits).toBe(0);
        expect(second!.sharedHits).toBe(2000);
        expect(r.sharedBuffers.hits).toBe(2000);
      }
    });
  }

  it("max_connections sizes PG18's pin limit: 500 connections cap reads at 16384/574 = 28 pins less 8 = 20 blocks", () => {
    const sizes = (maxConnections: number) =>
      run(seqScenario({ pg: "18", ioCombineLimit: 128, ioMethod: "sync" }, { maxConnections })).log.reads.map(
        (x) => x.blocks,
      );
    // GetAdditionalPinLimit assumes at least REFCOUNT_ARRAY_ENTRIES (8) pins held.
    expect(Math.max(...sizes(500))).toBe(20);
    // 20 connections: 16384/94 = 174 pins, so io_combine_limit (128) is the limit.
    expect(Math.max(...sizes(20))).toBe(128);
  });

  it("io_method worker: the I/O workers keep each table's files apart (a second table is not read from the first's)", () => {
    // Table a is in the page cache, table b is not. Query qa has the I/O workers open
    // segment 0 of a; qb then reads segment 0 of b through the same workers.
    const s: ScenarioInput = {
      name: "two tables, io workers",
      machine: { cores: 8, ram: "4GB", os: "linux-6.10", device: "intel-ssd-320-120gb", cpu: { jitter: 0 } },
      tables: [
        { name: "a", blocks: 2000, tuplesPerPage: 100, cached: "os" },
        { name: "b", blocks: 2000, tuplesPerPage: 100 },
      ],
      queries: [
        { name: "qa", table: "a", pg: "18", ioMethod: "worker" },
        { name: "qb", table: "b", pg: "18", ioMethod: "worker", start: "1s" },
      ],
    };
    const r = simulateWith(resolveScenario(s), realModels);
    // Everything of b comes from the device: 2000 blocks of 8 kB.
    expect(r.device.bytes).toBeGreaterThanOrEqual(2000 * 8192);
  });
});
