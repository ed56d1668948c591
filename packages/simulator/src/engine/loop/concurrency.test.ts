/**
 * Several queries on one machine: their own start times, and what
 * synchronized scans (apps/docs/src/reference/synchronized-scans.md) and the shared OS page cache do
 * when they scan the same table. The scenarios are small (20,000 to 40,000
 * blocks of 8 kB on the Intel 320 model) and use exact CPU costs (jitter 0).
 */
import { describe, expect, it } from "vitest";
import { resolveScenario } from "../../scenario/resolve.js";
import type { ScenarioInput } from "../../scenario/schema.js";
import { realModels } from "../seam/adapters.js";
import type { Claim, ModelFactories } from "../seam/ports.js";
import { type SimulationResult, simulateWith } from "./simulate.js";

type QueryIn = ScenarioInput["queries"][number];

const NBLOCKS = 20_000;

function machine(over: Partial<ScenarioInput["machine"]> = {}): ScenarioInput["machine"] {
  return {
    cores: 8,
    ram: "4GB",
    os: "linux-5.4",
    device: "intel-ssd-320-120gb",
    cpu: { jitter: 0 },
    ...over,
  };
}

/** A first query at 0 and a second one on the same table at `joinAt`. */
function pair(
  joinAt: string,
  q: Partial<QueryIn> = {},
  over: { blocks?: number; machine?: Partial<ScenarioInput["machine"]> } = {},
): ScenarioInput {
  return {
    name: "pair",
    machine: machine(over.machine),
    tables: [{ name: "t", blocks: over.blocks ?? NBLOCKS, tuplesPerPage: 100 }],
    queries: [
      { name: "first", table: "t", ...q },
      { name: "joiner", table: "t", start: joinAt, ...q },
    ],
  };
}

/** The first query alone, stopped at `untilS`: how many blocks it had processed by then. */
function processedBy(untilS: number, q: Partial<QueryIn> = {}): number {
  const s: ScenarioInput = {
    name: "alone",
    machine: machine(),
    tables: [{ name: "t", blocks: NBLOCKS, tuplesPerPage: 100 }],
    queries: [{ name: "first", table: "t", ...q }],
    until: untilS,
  };
  const r = simulateWith(resolveScenario(s), realModels);
  const x = r.queries[0]!.runs[0]!;
  expect(x.finished).toBe(false);
  return x.participants.reduce((a, p) => a + p.blocks, 0);
}

/** The claims every parallel run's participants were handed, per run (in run start order). */
function recordingClaims(): { models: ModelFactories; runs: Claim[][] } {
  const runs: Claim[][] = [];
  const models: ModelFactories = {
    ...realModels,
    parallelScan(spec, nblocks, sync, hooks) {
      const claims: Claim[] = [];
      runs.push(claims);
      const allocation = realModels.parallelScan(spec, nblocks, sync, hooks);
      return {
        ...allocation,
        join() {
          const p = allocation.join();
          return {
            next() {
              const c = p.next();
              if (c !== null) claims.push(c);
              return c;
            },
          };
        },
      };
    },
  };
  return { models, runs };
}

/** Every run finished and processed the whole table, its participants' blocks adding up. */
function expectEveryBlockOncePerRun(r: SimulationResult, nblocks: number): void {
  const runs = r.queries.flatMap((q) => q.runs);
  expect(runs.length).toBeGreaterThan(0);
  for (const x of runs) {
    expect(x.finished).toBe(true);
    expect(x.blocks).toBe(nblocks);
    expect(x.participants.reduce((a, p) => a + p.blocks, 0)).toBe(nblocks);
  }
}

/** The claims of one run cover blocks 0..nblocks-1 exactly once. */
function expectExactCover(claims: Claim[], nblocks: number): void {
  const seen = new Uint8Array(nblocks);
  for (const c of claims) for (let b = c.startBlock; b < c.startBlock + c.blocks; b++) seen[b]!++;
  expect(seen.every((n) => n === 1)).toBe(true);
}

const run = (s: ScenarioInput, models: ModelFactories = realModels) =>
  simulateWith(resolveScenario(s), models);

describe("queries with their own start times", () => {
  it("each query's first run starts at its start; clients are staggered; runs follow each other", () => {
    const s: ScenarioInput = {
      name: "three queries",
      machine: machine(),
      tables: [
        { name: "a", blocks: 5_000, tuplesPerPage: 100, cached: "os" },
        { name: "b", blocks: 3_000, tuplesPerPage: 50, cached: "os" },
      ],
      queries: [
        { name: "qa", table: "a", runs: 2 },
        { name: "qb", table: "b", start: "30ms", clients: 3, clientStagger: "20ms" },
        { name: "qa-late", table: "a", start: 1.5, workers: 2 },
      ],
    };
    const r = run(s);
    const [qa, qb, late] = r.queries;
    expect(qa!.runs.map((x) => x.startS)).toEqual([0, qa!.runs[0]!.durationS]);
    expect(qb!.runs.map((x) => [x.client, x.startS])).toEqual([
      [0, 0.03],
      [1, 0.05],
      [2, 0.07],
    ]);
    expect(late!.runs[0]!.startS).toBe(1.5);
    expect(late!.runs[0]!.participants.map((p) => p.role)).toEqual(["leader", "worker", "worker"]);
    // Nothing runs after the last run ends.
    const ends = r.queries.flatMap((q) => q.runs.map((x) => x.startS + x.durationS));
    expect(r.simulatedS).toBeCloseTo(Math.max(...ends), 9);
    for (const q of r.queries)
      for (const x of q.runs) {
        expect(x.finished).toBe(true);
        expect(x.blocks).toBe(q.table === "a" ? 5_000 : 3_000);
      }
  });

  it("until stops the machine: runs still going are reported unfinished, the others are not", () => {
    const s: ScenarioInput = {
      name: "until",
      machine: machine(),
      tables: [{ name: "t", blocks: NBLOCKS, tuplesPerPage: 100 }],
      queries: [
        { name: "short", table: "t", start: 0 },
        { name: "late", table: "t", start: 5 },
      ],
      until: 2,
    };
    const r = run(s);
    expect(r.queries[0]!.runs[0]!.finished).toBe(true);
    // "late" never started: the machine stopped first.
    expect(r.queries[1]!.runs).toEqual([]);
    expect(Number.isNaN(r.queries[1]!.meanDurationS)).toBe(true);
  });
});

describe("synchronized scans: where a second query starts", () => {
  // The first query is cold and I/O-bound: 0.2 s in, it has processed a third of the table.
  const JOIN_S = 0.2;

  it("PG14 serial: at the first query's last report, a multiple of 16 at most one readahead window behind it", () => {
    const processed = processedBy(JOIN_S);
    expect(processed).toBeGreaterThan(1000);
    const r = run(pair(`${JOIN_S}s`));
    const start = r.queries[1]!.runs[0]!.startBlock;
    expect(start % 16).toBe(0);
    // Reported as processed: never ahead. Behind by less than the 16-block report
    // interval plus the 16-block (128 kB) stretch a reader processes in one step.
    expect(start).toBeLessThanOrEqual(processed);
    expect(processed - start).toBeLessThan(32);
    expect(r.queries[0]!.runs[0]!.startBlock).toBe(0);
    expectEveryBlockOncePerRun(r, NBLOCKS);
  });

  it("PG14 parallel (2 workers + leader): the joiner's whole scan starts near the first one's position", () => {
    const q = { workers: 2 };
    const processed = processedBy(JOIN_S, q);
    const { models, runs } = recordingClaims();
    const r = run(pair(`${JOIN_S}s`, q), models);
    const start = r.queries[1]!.runs[0]!.startBlock;
    expect(start % 16).toBe(0);
    // 16-block chunks (20,000 / 2048 -> 16): at most three chunks in flight.
    expect(Math.abs(processed - start)).toBeLessThan(48);
    expectEveryBlockOncePerRun(r, NBLOCKS);
    // The joiner's claims start at its start block and wrap round to it.
    expect(runs).toHaveLength(2);
    expect(runs[1]![0]!.startBlock).toBe(start);
    for (const claims of runs) expectExactCover(claims, NBLOCKS);
  });

  for (const pg of ["17", "18"] as const) {
    it(`PG${pg}: reports run ahead of processing (the read stream's look-ahead), so the joiner starts ahead`, () => {
      const q = { pg };
      const processed = processedBy(JOIN_S, q);
      const r = run(pair(`${JOIN_S}s`, q));
      const start = r.queries[1]!.runs[0]!.startBlock;
      expect(start % 16).toBe(0);
      expect(start).toBeGreaterThan(processed);
      // Ahead by at most the stream's pinned buffers (PG18: the 94-buffer ring).
      expect(start - processed).toBeLessThanOrEqual(pg === "17" ? 16 : 96);
      expectEveryBlockOncePerRun(r, NBLOCKS);
    });
  }

  it("synchronize_seqscans off: the joiner starts at block 0", () => {
    const r = run(pair(`${JOIN_S}s`, { synchronizeSeqscans: false }));
    expect(r.queries[1]!.runs[0]!.startBlock).toBe(0);
    expectEveryBlockOncePerRun(r, NBLOCKS);
  });

  it("off on the first query only: it never reports, so a joiner with sync on finds nothing and starts at 0", () => {
    const s = pair(`${JOIN_S}s`);
    s.queries[0]!.synchronizeSeqscans = false;
    expect(run(s).queries[1]!.runs[0]!.startBlock).toBe(0);
  });

  it("a table of NBuffers / 4 blocks or fewer never synchronizes, in series or in parallel", () => {
    // shared_buffers 128 MB: NBuffers / 4 = 4,096 blocks.
    for (const workers of [0, 2]) {
      const s: ScenarioInput = {
        name: "small",
        machine: machine(),
        tables: [{ name: "t", blocks: 4_096, tuplesPerPage: 100 }],
        queries: [0, 0.01, 0.02, 0.03].map((start, i) => ({ name: `q${i}`, table: "t", start, workers })),
      };
      const r = run(s);
      expect(r.queries.map((q) => q.runs[0]!.startBlock)).toEqual([0, 0, 0, 0]);
      expectEveryBlockOncePerRun(r, 4_096);
    }
  });

  it("two full scans one after another: the end-of-scan report is the start block, so the next starts there too", () => {
    const first = run(pair(`${JOIN_S}s`));
    const joinerStart = first.queries[1]!.runs[0]!.startBlock;
    // A third query after both finished starts where the last scan to report left the table:
    // the joiner's own start block (apps/docs/src/reference/synchronized-scans.md#serial-scans step 6).
    const s = pair(`${JOIN_S}s`);
    s.queries.push({ name: "after", table: "t", start: 10 });
    const r = run(s);
    const joined = r.queries[1]!.runs[0]!;
    expect(joined.startS + joined.durationS).toBeLessThan(10);
    expect(r.queries[2]!.runs[0]!.startBlock).toBe(joinerStart);
  });
});

describe("two cold scans of one table: how often the device reads it", () => {
  const TABLE_BYTES = NBLOCKS * 8192;

  it("sync on, page cache larger than the table: the device reads it about once", () => {
    const r = run(pair("0.2s"));
    expect(r.device.bytes).toBeGreaterThanOrEqual(TABLE_BYTES);
    expect(r.device.bytes).toBeLessThan(1.01 * TABLE_BYTES);
    // Two tables processed, one read: half the blocks came from a cache.
    const scanned = r.queries.flatMap((q) => q.runs).reduce((a, x) => a + x.blocks, 0);
    expect(scanned).toBe(2 * NBLOCKS);
    expectEveryBlockOncePerRun(r, NBLOCKS);
  });

  it("sync off, page cache larger than the table: the joiner reads the first one's pages from the page cache", () => {
    const r = run(pair("0.2s", { synchronizeSeqscans: false }));
    expect(r.device.bytes).toBeGreaterThanOrEqual(TABLE_BYTES);
    expect(r.device.bytes).toBeLessThan(1.01 * TABLE_BYTES);
    // The joiner starts at block 0 behind the first scan: at least the blocks the first
    // one had read by then come from the page cache, not the device.
    const lead = processedBy(0.2);
    expect(r.os.requestedBytes - r.os.deviceBytes).toBeGreaterThanOrEqual(lead * 8192);
    expectEveryBlockOncePerRun(r, NBLOCKS);
  });

  it("two clients started together, sync on or off: one device pass either way", () => {
    for (const sync of [true, false]) {
      const s: ScenarioInput = {
        name: "together",
        machine: machine(),
        tables: [{ name: "t", blocks: NBLOCKS, tuplesPerPage: 100 }],
        queries: [{ name: "q", table: "t", clients: 2, workers: 2, synchronizeSeqscans: sync }],
      };
      const { models, runs } = recordingClaims();
      const r = run(s, models);
      expect(r.device.bytes).toBeLessThan(1.01 * TABLE_BYTES);
      expectEveryBlockOncePerRun(r, NBLOCKS);
      expect(runs).toHaveLength(2);
      for (const claims of runs) expectExactCover(claims, NBLOCKS);
    }
  });

  // RAM 256 MB with shared_buffers 128 MB leaves a 128 MB page cache (16,384 blocks)
  // for a 40,000-block table, and the joiner comes 0.8 s (about 24,000 blocks) later.
  const BIG = 40_000;
  const small = { blocks: BIG, machine: { ram: "256MB", sharedBuffers: "128MB" } };

  it("page cache smaller than the table, sync off: nothing is left to share, the device reads it twice", () => {
    const r = run(pair("0.8s", { synchronizeSeqscans: false }, small));
    expect(r.device.bytes).toBeGreaterThan(1.98 * BIG * 8192);
    expect(r.device.bytes).toBeLessThanOrEqual(2 * BIG * 8192);
    expectEveryBlockOncePerRun(r, BIG);
  });

  it("page cache smaller than the table, sync on: shared from the joiner's start to the end, then it re-reads 0..start", () => {
    const r = run(pair("0.8s", {}, small));
    const start = r.queries[1]!.runs[0]!.startBlock;
    expect(start).toBeGreaterThan(BIG / 2);
    // Hand count: the first scan reads all 40,000 blocks; the joiner rides along from
    // `start` to the end, wraps to block 0 after the first finished, and reads
    // 0..start-1 alone (long evicted from the 16,384-block page cache).
    const hand = (BIG + start) * 8192;
    expect(Math.abs(r.device.bytes / hand - 1)).toBeLessThan(0.005);
    expectEveryBlockOncePerRun(r, BIG);
  });

  it("direct I/O (no page cache): only shared buffers are shared, and the count is exact", () => {
    // With sync on the joiner trails the first scan through its ring; what it reads
    // alone is 0..start-1 after the wrap.
    const r = run(pair("0.2s", {}, { machine: { os: "none" } }));
    const start = r.queries[1]!.runs[0]!.startBlock;
    expect(start).toBeGreaterThan(0);
    expect(r.device.bytes).toBe((NBLOCKS + start) * 8192);
    expectEveryBlockOncePerRun(r, NBLOCKS);
  });
});
