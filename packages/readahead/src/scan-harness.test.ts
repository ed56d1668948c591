/**
 * The apps/docs/src/reference/readahead-predictions.md#simulation-assumptions harness: deterministic, its fast path changes nothing, and it
 * reproduces the prediction tables of apps/docs/src/reference/readahead-predictions.md#linux-predictions (Linux) and apps/docs/src/reference/readahead-predictions.md#freebsd-ufs-predictions
 * (FreeBSD UFS) within 10%, except the one cell where the reference
 * simulation departed from its own rule (KNOWN_DIVERGENCES says why).
 */
import { describe, expect, it } from "vitest";
import { freebsdUfsReadahead } from "./freebsd-ufs.js";
import { linuxReadahead } from "./linux.js";
import { KNOWN_DIVERGENCES, PREDICTION_TABLES, reproducePredictionTables } from "./prediction-tables.js";
import { type ScanPattern, simulateScan } from "./scan-harness.js";
import { windowsReadahead } from "./windows.js";

describe("scan harness", () => {
  const patterns: ScanPattern[] = [
    { kind: "sequential" },
    { kind: "stride", processes: 4 },
    { kind: "chunk", processes: 4, chunkBlocks: 64 },
    { kind: "chunk", processes: 2, chunkBlocks: 1024 },
    { kind: "random", reads: 500 },
  ];
  const models = {
    linux: (c: Parameters<typeof linuxReadahead>[0]) => linuxReadahead(c, { version: ">=6.10" }),
    freebsd: (c: Parameters<typeof linuxReadahead>[0]) => freebsdUfsReadahead(c, { version: "<=12" }),
    windows: (c: Parameters<typeof linuxReadahead>[0]) => windowsReadahead(c),
  };

  it("gives the same answer with and without the quietRun fast path", () => {
    for (const model of Object.values(models)) {
      for (const p of patterns) {
        const slow = simulateScan(p, { model, blocks: 20_000, fastPath: false });
        const fast = simulateScan(p, { model, blocks: 20_000 });
        expect(fast).toEqual(slow);
      }
    }
  }, 600_000);

  it("is deterministic for a seed, and the seed matters", () => {
    const p: ScanPattern = { kind: "stride", processes: 4 };
    const a = simulateScan(p, { model: models.linux, blocks: 20_000, seed: 3 });
    expect(simulateScan(p, { model: models.linux, blocks: 20_000, seed: 3 })).toEqual(a);
    expect(simulateScan(p, { model: models.linux, blocks: 20_000, seed: 4 }).elapsedUs).not.toBe(a.elapsedUs);
  });
});

describe("apps/docs/src/reference/readahead-predictions.md#simulation-assumptions prediction tables", () => {
  const rows = reproducePredictionTables();

  it("covers every cell of apps/docs/src/reference/readahead-predictions.md#linux-predictions, apps/docs/src/reference/readahead-predictions.md#freebsd-ufs-predictions", () => {
    expect(rows.length).toBe(PREDICTION_TABLES.length);
    expect(rows.filter((r) => r.table === "5.1").length).toBe(32); // 16 patterns x 2 kernel lines
    expect(rows.filter((r) => r.table === "5.2").length).toBe(16);
  });

  it("average I/O size within 10% of the reference in every cell but the documented divergence", () => {
    const off = rows
      .filter(
        (r) =>
          !KNOWN_DIVERGENCES.some(
            (d) => d.table === r.table && d.model === r.model && d.pattern === r.pattern,
          ),
      )
      .filter((r) => Math.abs(r.gap) > 0.1)
      .map((r) => `${r.table} ${r.model} ${r.pattern}: ${r.simulatedKiB.toFixed(1)} vs ${r.expectedKiB}`);
    expect(off).toEqual([]);
  }, 300_000);

  it("the divergent cell gives what the source-faithful rule gives", () => {
    for (const d of KNOWN_DIVERGENCES) {
      const r = rows.find((x) => x.table === d.table && x.model === d.model && x.pattern === d.pattern)!;
      expect(Math.abs(r.simulatedKiB / d.ourKiB - 1)).toBeLessThan(0.05);
    }
  });

  it("sync shares: Linux <=6.9 striding pays some synchronous misses, >=6.10 none; FreeBSD striding is all synchronous", () => {
    const get = (model: string, pattern: string) =>
      rows.find((r) => r.model === model && r.pattern === pattern)!;
    // apps/docs/src/reference/readahead-predictions.md#linux-predictions: 12%, 11%, 9% sync on <=6.9 and 0% on >=6.10; apps/docs/src/reference/readahead-predictions.md#freebsd-ufs-predictions: 100% sync.
    for (const n of [2, 4, 8]) {
      const old = get("linux <=6.9", `stride N=${n}`).syncFraction;
      expect(old).toBeGreaterThan(0.05);
      expect(old).toBeLessThan(0.2);
      expect(get("linux >=6.10", `stride N=${n}`).syncFraction).toBeLessThan(0.005); // block 0 only
      expect(get("freebsd-ufs <=12", `stride N=${n}`).syncFraction).toBeGreaterThan(0.99); // all but block 0's cluster
    }
  });
});
