/**
 * What one measured run reports, read from EXPLAIN (ANALYZE, BUFFERS,
 * TIMING OFF, FORMAT JSON).
 *
 * Choices.
 * - Time is the server's "Execution Time": the executor from start to end,
 *   without psql's start, connection and planning, which a client-side clock
 *   would add (it is recorded too, as `clientMs`). TIMING OFF drops the
 *   per-row clock reads that EXPLAIN ANALYZE otherwise makes
 *   (src/backend/commands/explain.c, `es->timing`); rows are still counted.
 * - Buffers are the top plan node's "Shared Hit Blocks" and "Shared Read
 *   Blocks": EXPLAIN reports them inclusive of the node's children and of
 *   parallel workers (InstrAggNode, src/backend/executor/instrument.c).
 * - The plan's node types are kept so the runner can check that the planner
 *   chose the scan the cell asked for.
 */

/** One run's figures from EXPLAIN. */
export interface ExplainFigures {
  /** "Execution Time", ms. */
  readonly executionMs: number;
  /** Shared buffer hits of the whole plan. */
  readonly sharedHitBlocks: number;
  /** Shared buffer reads (misses) of the whole plan. */
  readonly sharedReadBlocks: number;
  /** Every node type in the plan, depth first. */
  readonly nodeTypes: readonly string[];
  /** Workers launched by Gather nodes (0 when serial). */
  readonly workersLaunched: number;
}

interface PlanNode {
  "Node Type"?: string;
  "Shared Hit Blocks"?: number;
  "Shared Read Blocks"?: number;
  "Workers Launched"?: number;
  Plans?: PlanNode[];
}

/** Parses psql's output of `EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON) ...`. */
export function parseExplain(text: string): ExplainFigures {
  const start = text.indexOf("[");
  if (start < 0) throw new Error(`EXPLAIN printed no JSON: ${text.slice(0, 200)}`);
  const doc = JSON.parse(text.slice(start)) as { Plan: PlanNode; "Execution Time": number }[];
  const top = doc[0];
  if (top === undefined || typeof top["Execution Time"] !== "number") {
    throw new Error(`EXPLAIN JSON has no Execution Time: ${text.slice(0, 200)}`);
  }
  const nodeTypes: string[] = [];
  let workersLaunched = 0;
  const walk = (n: PlanNode) => {
    if (n["Node Type"] !== undefined) nodeTypes.push(n["Node Type"]);
    workersLaunched += n["Workers Launched"] ?? 0;
    for (const c of n.Plans ?? []) walk(c);
  };
  walk(top.Plan);
  return {
    executionMs: top["Execution Time"],
    sharedHitBlocks: top.Plan["Shared Hit Blocks"] ?? 0,
    sharedReadBlocks: top.Plan["Shared Read Blocks"] ?? 0,
    nodeTypes,
    workersLaunched,
  };
}
