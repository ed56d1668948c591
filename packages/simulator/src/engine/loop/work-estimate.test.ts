/**
 * The work estimate against the work the engine actually does: the steps
 * counted by SimulationProgress, on small scenarios of every path
 * (work-estimate.ts), the budget's comparisons on both sides of each limit,
 * and the progress and stop polls that long runs rely on.
 */
import { describe, expect, it } from "vitest";
import { simulate } from "../../index.js";
import { resolveScenario } from "../../scenario/resolve.js";
import type { ScenarioInput } from "../../scenario/schema.js";
import type { SimulationProgress } from "./simulate.js";
import {
  estimateWork,
  MEMORY_BUDGET_BYTES,
  overBudget,
  PROGRESS_STEPS,
  WORK_BUDGET_STEPS,
} from "./work-estimate.js";

type QueryIn = ScenarioInput["queries"][number];
type TableIn = ScenarioInput["tables"][number];

function scenario(
  table: Partial<TableIn>,
  query: Partial<QueryIn>,
  machine: Partial<ScenarioInput["machine"]> = {},
): ScenarioInput {
  return {
    name: "estimate",
    machine: { cores: 8, ram: "16GB", os: "linux-5.4", device: "samsung-990-pro-1tb", ...machine },
    tables: [{ name: "t", size: "256MB", tuplesPerPage: 226, ...table } as TableIn],
    queries: [{ name: "q", table: "t", ...query }],
  };
}

/** Steps the engine took (the last progress report is made at the end of the run). */
function stepsTaken(s: ScenarioInput, exact = false): number {
  let last: SimulationProgress | null = null;
  simulate(s, { exact, onProgress: (p) => (last = p) });
  return (last as SimulationProgress | null)?.steps ?? 0;
}

describe("estimateWork predicts the engine's steps on every path: not below 0.7x, not above 4x", () => {
  const cases: [string, ScenarioInput, boolean][] = [
    ["serial scan, cold", scenario({}, { workers: 0 }), false],
    ["PG14 chunks, 2 workers + leader, cold", scenario({ size: "512MB" }, { workers: 2 }), false],
    ["serial scan, cached, 3 runs", scenario({ cached: "os" }, { workers: 0, runs: 3 }), false],
    ["PG11 striding, 3 workers", scenario({}, { pg: "11", workers: 3 }), false],
    ["PG17 read stream", scenario({}, { pg: "17", workers: 1 }), false],
    ["no readahead (os none)", scenario({ size: "64MB" }, { workers: 0 }, { os: "none" }), false],
    ["FreeBSD clusters", scenario({}, { workers: 2 }, { os: "freebsd-13" }), false],
    [
      "bitmap heap scan, 10% random pages",
      scenario(
        {},
        { kind: "bitmap", bitmap: { dataset: "random", selectivity: 0.1 }, effectiveIoConcurrency: 4 },
      ),
      false,
    ],
    [
      "plain-file reader, forward, no advice",
      scenario({ size: "64MB" }, { kind: "file", file: { pattern: "forward" } }),
      false,
    ],
    [
      "plain-file reader, forward, advice 1 ahead",
      scenario({ size: "64MB" }, { kind: "file", file: { pattern: "forward", adviseDistance: 1 } }),
      false,
    ],
    [
      "plain-file reader, random, advice 8 ahead",
      scenario({ size: "64MB" }, { kind: "file", file: { pattern: "random", adviseDistance: 8 } }),
      false,
    ],
    ["5 clients", scenario({}, { workers: 1, clients: 5 }), false],
    ["pgbench -T 3s on a cached table", scenario({}, { workers: 1, duration: "3s" }), false],
    ["4 GB, 2 workers, warped", scenario({ size: "4GB" }, { workers: 2 }, { ram: "2GB" }), false],
    ["4 GB, 2 workers, exact", scenario({ size: "4GB" }, { workers: 2 }, { ram: "2GB" }), true],
  ];
  // Simulations of up to a few hundred thousand steps each: seconds on a loaded 2-core machine.
  it.each(cases)(
    "%s",
    (_name, s, exact) => {
      const estimate = estimateWork(resolveScenario(s), { exact }).steps;
      const taken = stepsTaken(s, exact);
      expect(taken).toBeGreaterThan(0);
      // High is the safe side of a budget (measured: up to 2.75x, FreeBSD's clusters); low is
      // a run longer than announced, so it is held closer.
      expect(estimate / taken).toBeGreaterThan(0.7);
      expect(estimate / taken).toBeLessThan(4);
    },
    600_000,
  );

  it("knows where the warp cuts: a 100 GB scan costs a fraction of its exact run, and no more when 4x longer", () => {
    const s = (size: string) => resolveScenario(scenario({ size }, { workers: 2 }));
    const warped = estimateWork(s("100GB"));
    const exact = estimateWork(s("100GB"), { exact: true });
    expect(warped.queries[0]!.warped).toBe(true);
    expect(exact.queries[0]!.warped).toBe(false);
    expect(exact.steps / warped.steps).toBeGreaterThan(10);
    expect(estimateWork(s("400GB")).steps).toBe(warped.steps);
    // Read streams are not warped: their estimate grows with the table.
    const rs = (size: string) =>
      estimateWork(resolveScenario(scenario({ size }, { workers: 2, pg: "17" }))).steps;
    expect(rs("400GB") / rs("100GB")).toBeCloseTo(4, 1);
  });
});

describe("the budget, on both sides of each limit", () => {
  const withClients = (clients: number) =>
    estimateWork(resolveScenario(scenario({ size: "1GB" }, { workers: 2, clients })));

  it("steps: the last client count within the budget passes, one more is over", () => {
    let lo = 1;
    let hi = 100_000;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (withClients(mid).steps <= WORK_BUDGET_STEPS) lo = mid;
      else hi = mid;
    }
    expect(overBudget(withClients(lo))).toBeNull();
    expect(overBudget(withClients(lo + 1))).toBe("steps");
    expect(withClients(lo + 1).levers[0]).toBe("clients");
    // 1 GB x 1000 clients (21 s measured) is near the budget; 10,000 (180 s) far over it.
    expect(lo).toBeGreaterThan(500);
    expect(lo).toBeLessThan(5000);
  });

  it("progress: a run over PROGRESS_STEPS but within the budget is long but allowed", () => {
    const e = withClients(60);
    expect(e.steps).toBeGreaterThan(PROGRESS_STEPS);
    expect(overBudget(e)).toBeNull();
    expect(withClients(1).steps).toBeLessThan(PROGRESS_STEPS);
  });

  it("memory: a bitmap data set just within 1 GiB passes, a larger table is over", () => {
    const bitmap = (blocks: number) =>
      estimateWork(
        resolveScenario(
          scenario(
            { size: undefined, blocks },
            { kind: "bitmap", bitmap: { dataset: "random", selectivity: 0.01 } },
          ),
        ),
      );
    // 2 bytes per block and 24 per matching page (1%): 2.24 bytes per block, plus the buffer pool.
    const pool = bitmap(1000).memoryBytes - (1000 * 2 + 10 * 24);
    const fits = Math.floor((MEMORY_BUDGET_BYTES - pool) / 2.24) - 1000;
    expect(overBudget(bitmap(fits))).toBeNull();
    expect(overBudget(bitmap(fits * 2))).toBe("memory");
    expect(bitmap(fits * 2).levers).toContain("table-size");
  });

  it("the largest table PostgreSQL allows is within the budget, warped", () => {
    const e = estimateWork(
      resolveScenario(scenario({ size: undefined, blocks: 0xfffffffe }, { workers: 2 })),
    );
    expect(e.queries[0]!.warped).toBe(true);
    expect(overBudget(e)).toBeNull();
  });
});

describe("what a progress display counts", () => {
  it("blocks of every run, or simulated time up to the end of a timed query", () => {
    const runs = estimateWork(resolveScenario(scenario({ size: "1GB" }, { clients: 3, runs: 2 })));
    expect(runs.progressTotal).toEqual({ blocks: 3 * 2 * 131072 });
    const timed = estimateWork(
      resolveScenario(
        scenario({ size: "1GB" }, { clients: 3, duration: "1h", clientStagger: "10s", start: "5s" }),
      ),
    );
    expect(timed.progressTotal).toEqual({ simulatedS: 5 + 2 * 10 + 3600 });
  });
});

describe("a lone scan that carries on inside one wake-up is polled by steps", () => {
  it("shouldStop stops it at the first poll, with its run marked unfinished; onProgress saw it", () => {
    // One serial scan reading block by block (no readahead): 131,072 steps, two polls' worth, in a
    // handful of events (it continues within its wake-up).
    const s = scenario({ size: "1GB" }, { workers: 0 }, { os: "none" });
    const seen: SimulationProgress[] = [];
    const r = simulate(s, { shouldStop: () => true, onProgress: (p) => seen.push(p) });
    expect(r.events).toBeLessThan(10);
    expect(r.queries[0]!.runs[0]!.finished).toBe(false);
    expect(seen.length).toBeGreaterThanOrEqual(1);
    expect(seen[0]!.blocks).toBeGreaterThan(0);
    expect(seen[0]!.blocks).toBeLessThan(131072);
    const whole = simulate(s);
    expect(r.simulatedS).toBeLessThan(whole.simulatedS);
  });
});
