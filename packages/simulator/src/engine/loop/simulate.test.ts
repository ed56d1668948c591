/**
 * The engine on scenarios small enough to work out by hand, plus the
 * invariants every run must keep. (A cold reader with direct I/O, timed
 * against the device model itself, is in seam/os-adapter.test.ts: the device
 * model is the seam's to import.)
 */
import { describe, expect, it } from "vitest";
import { ScenarioError } from "../../errors.js";
import { resolveScenario } from "../../scenario/resolve.js";
import type { ScenarioInput } from "../../scenario/schema.js";
import { DEFAULT_CPU_COSTS, pageWorkUs, preadUs } from "../pg/cpu-costs.js";
import { realModels } from "../seam/adapters.js";
import { type SimulateOptions, simulateWith } from "./simulate.js";

function run(s: ScenarioInput, options: SimulateOptions = {}) {
  return simulateWith(resolveScenario(s), realModels, options);
}

function scenario(over: Partial<ScenarioInput> & { queries?: ScenarioInput["queries"] } = {}): ScenarioInput {
  return {
    name: "test",
    machine: { cores: 8, ram: "4GB", os: "linux-5.4", device: "intel-ssd-320-120gb", cpu: { jitter: 0 } },
    tables: [{ name: "t", blocks: 10_000, tuplesPerPage: 100 }],
    queries: [{ name: "q", table: "t", pg: "14", workers: 0 }],
    ...over,
  };
}

describe("hand-computable scans", () => {
  it("one reader over a table in the OS page cache is CPU-bound: blocks x (pread + page work)", () => {
    const r = run(scenario({ tables: [{ name: "t", blocks: 10_000, tuplesPerPage: 100, cached: "os" }] }));
    const perBlock = preadUs(DEFAULT_CPU_COSTS, 8192) + pageWorkUs(DEFAULT_CPU_COSTS, 100);
    expect(r.queries[0]!.meanDurationS).toBeCloseTo((10_000 * perBlock) / 1e6, 9);
    expect(r.device.reads).toBe(0);
  });

  it("the kernel's page-cache fill is the reader's CPU: a cold CPU-bound scan pays fillUsPerPage per page brought in, a warm one nothing", () => {
    // A 990 Pro reads 8 kB in about a microsecond, far below the ~7 us of CPU a block costs: the reader
    // stays CPU-bound, so each microsecond of fill shows in its time.
    const on = (fillUsPerPage: number, cached: "os" | "none") =>
      run(
        scenario({
          machine: {
            cores: 8,
            ram: "4GB",
            os: "linux-6.10",
            device: "samsung-990-pro-1tb",
            cpu: { jitter: 0, fillUsPerPage },
          },
          tables: [{ name: "t", blocks: 10_000, tuplesPerPage: 100, cached }],
        }),
      );
    const cold = on(0, "none");
    const coldFilled = on(1, "none");
    const pages = coldFilled.device.bytes / 4096;
    expect(pages).toBeGreaterThanOrEqual(20_000);
    const extraUs = (coldFilled.queries[0]!.meanDurationS - cold.queries[0]!.meanDurationS) * 1e6;
    expect(extraUs).toBeGreaterThan(0.98 * pages);
    expect(extraUs).toBeLessThan(1.02 * pages);
    expect(on(1, "os").queries[0]!.meanDurationS).toBe(on(0, "os").queries[0]!.meanDurationS);
  });

  it("Linux readahead turns one cold reader's 8 kB reads into the 16-32-64-128 kB ramp, then 128 kB", () => {
    const r = run(scenario());
    expect(r.device.avgReadKb).toBeGreaterThan(120);
    expect(r.device.bytes).toBeGreaterThanOrEqual(10_000 * 8192);
  });
});

describe("invariants", () => {
  const parallel = scenario({
    tables: [{ name: "t", blocks: 50_000, tuplesPerPage: 60 }],
    queries: [{ name: "q", table: "t", pg: "14", workers: 3, clients: 2, runs: 2 }],
  });

  it("every block is processed exactly once per run, by its participants", () => {
    const r = run(parallel);
    for (const q of r.queries)
      for (const x of q.runs) {
        expect(x.finished).toBe(true);
        expect(x.blocks).toBe(50_000);
        expect(x.participants.reduce((a, p) => a + p.blocks, 0)).toBe(50_000);
      }
  });

  it("bytes read from the device are at least the bytes no cache held", () => {
    const r = run(parallel);
    const scanned = r.queries.flatMap((q) => q.runs).reduce((a, x) => a + x.blocks, 0) * 8192;
    expect(r.device.bytes).toBeGreaterThanOrEqual(50_000 * 8192);
    expect(r.device.bytes).toBeLessThanOrEqual(scanned);
  });

  it("is deterministic: the same scenario gives byte-identical results", () => {
    expect(JSON.stringify(run(parallel))).toBe(JSON.stringify(run(parallel)));
  });

  for (const kind of ["pg96", "pg11"] as const) {
    it(`${kind} striding: the gang's bulk emulation agrees with claim-by-claim processing`, () => {
      const s = scenario({
        tables: [{ name: "t", blocks: 40_000, tuplesPerPage: 60, cached: "os" }],
        queries: [
          { name: "q", table: "t", pg: kind === "pg96" ? "9.6" : "11", workers: 5, allocator: { kind } },
        ],
      });
      const fast = run(s);
      const exact = run(s, { exactStriding: true });
      expect(fast.queries[0]!.runs[0]!.blocks).toBe(40_000);
      expect(fast.queries[0]!.meanDurationS).toBeCloseTo(exact.queries[0]!.meanDurationS, 4);
      expect(fast.allocator.ops).toBe(exact.allocator.ops);
      expect(fast.events).toBeLessThan(exact.events);
      // Every block missed in shared buffers is one 8 kB read asked of the OS, emulated or not.
      for (const r of [fast, exact]) expect(r.os.requestedBytes).toBe((40_000 - r.sharedBuffers.hits) * 8192);
    });
  }

  it("cold striding: the gang stays within 1% of claim-by-claim processing", () => {
    const s = scenario({
      tables: [{ name: "t", blocks: 30_000, tuplesPerPage: 60 }],
      queries: [{ name: "q", table: "t", pg: "11", workers: 3, allocator: { kind: "pg11" } }],
    });
    const fast = run(s);
    const exact = run(s, { exactStriding: true });
    expect(Math.abs(fast.queries[0]!.meanDurationS / exact.queries[0]!.meanDurationS - 1)).toBeLessThan(0.01);
    for (const r of [fast, exact]) expect(r.os.requestedBytes).toBe((30_000 - r.sharedBuffers.hits) * 8192);
  });
});

describe("bad scenarios", () => {
  it("a missing field is named", () => {
    const bad = scenario() as unknown as Record<string, unknown>;
    delete bad.tables;
    expect(() => run(bad as unknown as ScenarioInput)).toThrow(/field "tables"/);
  });
  it("an unknown table in a query is named with the tables that exist", () => {
    expect(() => run(scenario({ queries: [{ name: "q", table: "nope" }] }))).toThrow(ScenarioError);
    expect(() => run(scenario({ queries: [{ name: "q", table: "nope" }] }))).toThrow(
      /queries.0.table.*tables: t/,
    );
  });
  it("a bad size says what a size looks like", () => {
    expect(() => run(scenario({ tables: [{ name: "t", size: "12 parsecs", tuplesPerPage: 1 }] }))).toThrow(
      /not a size/,
    );
  });
  it("an unknown device is a user error", () => {
    try {
      run(scenario({ machine: { cores: 1, ram: "1GB", os: "none", device: "floppy" } }));
      expect.unreachable();
    } catch (e) {
      expect((e as { userError?: boolean }).userError).toBe(true);
    }
  });
  it("shared_buffers must fit in RAM", () => {
    expect(() =>
      run(
        scenario({
          machine: { cores: 1, ram: "1GB", sharedBuffers: "2GB", os: "none", device: "intel-ssd-320-120gb" },
        }),
      ),
    ).toThrow(/machine.sharedBuffers/);
  });
});
