import { bitmap2022Query, bitmap2022Table } from "@scanlab/workloads";
import { describe, expect, it } from "vitest";
import {
  bitmapRange,
  type Cell,
  cellQuerySql,
  cellScenario,
  createTableSql,
  labTables,
  sessionSettingsSql,
  simulatorPg,
} from "./index.js";

const [narrow, bitmap] = labTables(true) as [
  ReturnType<typeof labTables>[0],
  ReturnType<typeof labTables>[0],
];

const cell: Cell = {
  id: "x",
  pg: 18,
  scan: "bitmap",
  table: bitmap.name,
  cache: "cold",
  workers: 0,
  clients: 1,
  synchronizeSeqscans: true,
  readAheadKb: null,
  eic: 16,
  selectivity: 0.1,
  ioMethod: "sync",
  ioCombineLimit: null,
  role: "predict",
};

describe("tables and queries", () => {
  it("queries the value range the simulator's bitmap matches (table seed 4, query seed 5)", () => {
    const t = bitmap2022Table({ layout: bitmap.layout!, seed: 4, tableBlocks: bitmap.blocks });
    const q = bitmap2022Query(t, { selectivity: 0.1, seed: 5 });
    expect(bitmapRange(bitmap, 0.1)).toEqual({ low: q.lowValue, high: q.highValue });
    expect(cellQuerySql(cell, bitmap)).toContain(`WHERE a BETWEEN ${q.lowValue} AND ${q.highValue}`);
    expect(cellQuerySql(cell, bitmap)).toMatch(
      /^EXPLAIN \(ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON\) SELECT count\(\*\)/,
    );
  });

  it("loads a bitmap table with 27 rows for each page value, in page order", () => {
    const sql = createTableSql(bitmap);
    const values = bitmap2022Table({
      layout: bitmap.layout!,
      seed: 4,
      tableBlocks: bitmap.blocks,
    }).pageValues;
    expect(sql).toContain(`'{${Array.from(values).join(",")}}'`);
    expect(sql).toContain("generate_series(1, 27) ORDER BY v.page");
    expect(createTableSql(narrow)).toContain(`generate_series(1, ${narrow.blocks * 226})`);
  });

  it("sets the cell's settings and forces its scan", () => {
    const s = sessionSettingsSql(cell);
    expect(s).toContain("SET effective_io_concurrency = 16;");
    expect(s).toContain("SET enable_seqscan = off;");
    expect(s).toContain("SET max_parallel_workers_per_gather = 0;");
    const seq = sessionSettingsSql({
      ...cell,
      scan: "seqscan",
      workers: 2,
      eic: null,
      synchronizeSeqscans: false,
    });
    expect(seq).toContain("SET enable_bitmapscan = off;");
    expect(seq).toContain("SET max_parallel_workers_per_gather = 2;");
    expect(seq).toContain("SET synchronize_seqscans = off;");
    expect(seq).toContain("SET parallel_setup_cost = 0;");
  });

  it("builds the simulator scenario with the same settings", () => {
    const machine = {
      cores: 2,
      ramBytes: 2 ** 34,
      sharedBuffersBytes: 32 << 20,
      maxConnections: 20,
      os: "linux-6.10",
      readAheadKb: 256,
      device: "samsung-990-pro-1tb",
    } as const;
    const s = cellScenario(cell, bitmap, machine, { perPageUs: 0.5 });
    const q = s.queries[0]!;
    expect(q).toMatchObject({ kind: "bitmap", pg: "18", effectiveIoConcurrency: 16, ioMethod: "sync" });
    expect(q.bitmap).toEqual({ dataset: bitmap.layout, selectivity: 0.1, seed: 4 });
    expect(s.tables[0]).toMatchObject({ blocks: bitmap.blocks, tuplesPerPage: 27, cached: "none" });
    expect(s.machine.osOptions).toEqual({ readAheadKb: 256 });
    expect(s.machine.cpu).toEqual({ perPageUs: 0.5 });
    const warm = cellScenario({ ...cell, cache: "warm", readAheadKb: 128 }, bitmap, machine);
    expect(warm.tables[0]!.cached).toBe("os");
    expect(warm.machine.osOptions).toEqual({ readAheadKb: 128 });
  });

  it("maps real majors to the simulator's versions", () => {
    expect([11, 13, 14, 15, 16, 17, 18].map(simulatorPg)).toEqual(["11", "13", "14", "14", "14", "17", "18"]);
  });
});
