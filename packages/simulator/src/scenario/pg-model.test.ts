import { describe, expect, it } from "vitest";
import { testScenario } from "../../test/scenario-builder.js";
import { simulateWith } from "../engine/loop/simulate.js";
import { realModels } from "../engine/seam/adapters.js";
import { describePgModel, PG_MECHANISMS, PG_MODEL_TABLE, PG_VERSIONS, pgModel } from "./pg-model.js";
import { resolveScenario } from "./resolve.js";
import type { PgVersion } from "./types.js";

describe("PostgreSQL version -> model per mechanism", () => {
  it("the versions between modelled ones run the models of the last change before them", () => {
    expect(pgModel("10")).toEqual({ ...pgModel("9.6"), requested: "10" });
    expect(pgModel("15")).toEqual({ ...pgModel("14"), requested: "15" });
    expect(pgModel("16")).toEqual({ ...pgModel("14"), requested: "16" });
    // 12 keeps 11's atomic allocator but prefetches on the exhausted iteration (12's tableam rewrite).
    expect(pgModel("12")).toMatchObject({ allocator: "pg11", bitmapPrefetch: "pg12" });
    // 19: 19's read streams, everything else as 18.
    expect(pgModel("19")).toEqual({ ...pgModel("18"), requested: "19", readStreams: "pg19" });
  });

  it("a model never goes back to an older one as versions rise", () => {
    for (const m of PG_MECHANISMS) {
      const seen: string[] = [];
      for (const v of PG_VERSIONS) {
        const model = PG_MODEL_TABLE[v][m];
        if (seen.at(-1) !== model) {
          expect(seen, `${m} returns to ${model} at PG${v}`).not.toContain(model);
          seen.push(model);
        }
      }
    }
  });

  it("syncscan reports at the look-ahead exactly where seq scans run on read streams (the engine couples them)", () => {
    for (const v of PG_VERSIONS) {
      const m = pgModel(v);
      expect(m.syncscan === "pg17", `PG${v}`).toBe(m.readStreams !== "none");
    }
  });

  it("prints the mapping per mechanism with the span of versions and the evidence", () => {
    expect(describePgModel("16")).toBe(
      "PG16: allocator as PG14-19; syncscan as PG9.6-16; bitmap prefetch as PG13-17; ring as PG9.6-17; no read streams (PG17+); held against a real PostgreSQL 16 (conformance matrix)",
    );
    expect(describePgModel("12")).toContain("bitmap prefetch as PG12;");
    expect(describePgModel("12")).toMatch(/no real server tested$/);
    expect(describePgModel("10")).toBe(
      "PG10: allocator as PG9.6-10; syncscan as PG9.6-16; bitmap prefetch as PG9.6-11; ring as PG9.6-17; no read streams (PG17+); no real server tested",
    );
    expect(describePgModel("19")).toContain("read streams/io as PG19");
    expect(describePgModel("19")).toContain("no real server tested (no PostgreSQL 19 build to test against)");
  });
});

describe("a newly accepted version simulates as the version whose models it runs", () => {
  // Small scenarios: a parallel seq scan (allocator, syncscan, ring) and a serial bitmap scan (prefetch).
  const seq = (pg: PgVersion) =>
    simulateWith(
      resolveScenario(testScenario({ table: { blocks: 4000 }, query: { pg, workers: 2 } })),
      realModels,
      {},
    );
  const bitmap = (pg: PgVersion) =>
    simulateWith(
      resolveScenario(
        testScenario({
          table: { blocks: 4000 },
          query: {
            pg,
            kind: "bitmap",
            effectiveIoConcurrency: 8,
            bitmap: { dataset: "random", selectivity: 0.05 },
          },
        }),
      ),
      realModels,
      {},
    );
  const figures = (r: ReturnType<typeof seq>) => ({
    device: r.device,
    queries: r.queries,
    allocator: r.allocator,
  });

  it("16 and 15 as 14, 10 as 9.6", () => {
    expect(figures(seq("16"))).toEqual(figures(seq("14")));
    expect(figures(seq("15"))).toEqual(figures(seq("14")));
    expect(figures(seq("10"))).toEqual(figures(seq("9.6")));
  });

  it("12's bitmap scan keeps the spindle formula of effective_io_concurrency: at 8 it runs as 11, not as 13", () => {
    const d12 = figures(bitmap("12")).device;
    expect(d12).toEqual(figures(bitmap("11")).device);
    expect(d12).not.toEqual(figures(bitmap("13")).device);
  });

  it("19's seq scan runs 19's read stream, not 18's", () => {
    expect(figures(seq("19"))).not.toEqual(figures(seq("18")));
  });
});
