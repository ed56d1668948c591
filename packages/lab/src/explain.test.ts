import { describe, expect, it } from "vitest";
import { parseExplain } from "./explain.js";

// psql -A -t output of EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON) of a parallel count(*) (PostgreSQL 15).
const PARALLEL = `[
  {
    "Plan": {
      "Node Type": "Aggregate",
      "Strategy": "Plain",
      "Shared Hit Blocks": 96,
      "Shared Read Blocks": 16288,
      "Plans": [
        {
          "Node Type": "Gather",
          "Workers Planned": 2,
          "Workers Launched": 2,
          "Shared Hit Blocks": 96,
          "Shared Read Blocks": 16288,
          "Plans": [
            { "Node Type": "Aggregate", "Plans": [ { "Node Type": "Seq Scan", "Relation Name": "narrow" } ] }
          ]
        }
      ]
    },
    "Planning": { "Shared Hit Blocks": 3 },
    "Planning Time": 0.101,
    "Triggers": [],
    "Execution Time": 412.377
  }
]`;

describe("parseExplain", () => {
  it("reads execution time, the top node's buffers, node types and launched workers", () => {
    const f = parseExplain(PARALLEL);
    expect(f.executionMs).toBe(412.377);
    expect(f.sharedHitBlocks).toBe(96);
    expect(f.sharedReadBlocks).toBe(16288);
    expect(f.nodeTypes).toEqual(["Aggregate", "Gather", "Aggregate", "Seq Scan"]);
    expect(f.workersLaunched).toBe(2);
  });
  it("throws on output without a plan", () => {
    expect(() => parseExplain("ERROR: relation does not exist")).toThrow(/no JSON/);
  });
});
