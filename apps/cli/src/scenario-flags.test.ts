/**
 * Scenario flags: PostgreSQL settings on the command line become the
 * simulator's scenario fields, in an order that lets a flag check the ones
 * it depends on.
 */
import { resolveScenario } from "@scanlab/simulator";
import { describe, expect, it } from "vitest";
import { formatAllocator, parseAllocator } from "./allocator-arg.js";
import { applyScenarioFlags, DEFAULT_SCENARIO, formatFlags, parseScenarioFlags } from "./scenario-flags.js";

const build = (raw: Record<string, string>) => applyScenarioFlags(DEFAULT_SCENARIO, parseScenarioFlags(raw));

describe("scenario flags", () => {
  it("map PostgreSQL settings onto the scenario", () => {
    const s = build({
      "table-size": "100GB",
      workers: "4",
      allocator: "pg14",
      os: "linux-5.4",
      device: "intel-ssd-320-120gb",
      "effective-io-concurrency": "16",
      "synchronize-seqscans": "off",
      "read-ahead-kb": "512",
    });
    const r = resolveScenario(s);
    // 100 GB of 8 kB blocks (binary units, as PostgreSQL's own settings): 13,107,200 blocks (apps/docs/src/reference/experiments.md#t2-chunk-size-cap-sweep).
    expect(r.tables[0]!.nblocks).toBe(13_107_200);
    expect(r.queries[0]!.spec).toMatchObject({
      workers: 4,
      allocator: { kind: "pg14" },
      effectiveIoConcurrency: 16,
      synchronizeSeqscans: false,
    });
    expect(r.scenario.machine.osOptions.readAheadKb).toBe(512);
    expect(r.scenario.machine.device).toBe("intel-ssd-320-120gb");
  });

  it("do not change the scenario they start from", () => {
    const before = JSON.stringify(DEFAULT_SCENARIO);
    build({ workers: "7", "table-size": "5GB" });
    expect(JSON.stringify(DEFAULT_SCENARIO)).toBe(before);
  });

  it("apply in dependency order whatever order they are given in", () => {
    // --chunk-cap needs the pg14 allocator of --pg 14; given first, it still sees --pg.
    const a = applyScenarioFlags(DEFAULT_SCENARIO, [
      ...parseScenarioFlags({ "chunk-cap": "none" }),
      ...parseScenarioFlags({ pg: "17" }),
    ]);
    expect(a.queries[0]!.allocator).toEqual({ kind: "pg14", maxChunkBlocks: null });
    expect(() => build({ pg: "13", "chunk-cap": "4096" })).toThrow(/pg11 allocator/);
  });

  it("a bitmap scan from --dataset and --selectivity", () => {
    const s = build({ dataset: "random-32", selectivity: "25%" });
    expect(s.queries[0]).toMatchObject({
      kind: "bitmap",
      bitmap: { dataset: "random-32", selectivity: 0.25 },
    });
    expect(build({ workload: "bitmap" }).queries[0]!.bitmap).toEqual({
      dataset: "random",
      selectivity: 0.05,
    });
    expect(() => build({ dataset: "pgbench", selectivity: "0.1" })).toThrow(/--selectivity/);
  });

  it("refuse conflicting pairs", () => {
    expect(() => parseScenarioFlags({ "table-size": "1GB", "table-blocks": "10" })).toThrow(
      /cannot be given together/,
    );
    expect(() => parseScenarioFlags({ runs: "2", duration: "10s" })).toThrow(/cannot be given together/);
  });

  it("print back as a command line", () => {
    expect(
      formatFlags(parseScenarioFlags({ workers: "4", "synchronize-seqscans": "false", "chunk-cap": "none" })),
    ).toBe("--workers 4 --chunk-cap none --synchronize-seqscans off");
  });
});

describe("--allocator", () => {
  it.each([
    ["pg96", { kind: "pg96" }],
    ["pg11", { kind: "pg11" }],
    // apps/docs/src/reference/experiments.md#t4-allocator-lock-contention-at-72-processes: the 2017 batching patch grabbed 10 blocks.
    ["batch", { kind: "batch", blocksPerClaim: 10 }],
    ["batch:32", { kind: "batch", blocksPerClaim: 32 }],
    ["munro2020", { kind: "munro2020" }],
    ["pg14", { kind: "pg14" }],
    ["pg14:none", { kind: "pg14", maxChunkBlocks: null }],
    ["PG14:65536", { kind: "pg14", maxChunkBlocks: 65536 }],
  ])("%s", (text, policy) => {
    expect(parseAllocator(text)).toEqual(policy);
    expect(parseAllocator(formatAllocator(parseAllocator(text)))).toEqual(policy);
  });
  it.each(["pg12", "pg11:4", "batch:0", "batch:x", "pg14:1:2", ""])("refuses %j", (text) => {
    expect(() => parseAllocator(text)).toThrow(/--allocator/);
  });
});
