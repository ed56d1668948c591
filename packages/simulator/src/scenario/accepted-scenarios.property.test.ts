/**
 * Any scenario the schema accepts simulates without throwing: within the
 * work budget, or refused up front (estimateWork over the budget, or a
 * user error with one sentence, such as an allocator option the table
 * cannot take).
 *
 * The generator takes every range and every choice from the schema itself
 * (its JSON Schema: minimum, maximum, enum), intersected with small bounds
 * of ours that keep each simulation to milliseconds on a loaded 2-core
 * machine (tables of at most 16,384 blocks, three clients, three runs, two
 * seconds). When the schema tightens a range, the generator follows; a
 * candidate the schema rejects for a reason between fields is skipped, and
 * the test checks that most candidates are accepted, so it cannot pass by
 * testing nothing.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod/mini";
import type { SimulationProgress } from "../engine/loop/simulate.js";
import { estimateWork, overBudget, WORK_BUDGET_STEPS } from "../engine/loop/work-estimate.js";
import { simulateJson } from "../index.js";
import { resolveScenario } from "./resolve.js";
import { OS_NAMES, scenarioSchema } from "./schema.js";

type Json = { [k: string]: Json } & {
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  enum?: string[];
  type?: string;
  properties?: Record<string, Json>;
  items?: Json;
  anyOf?: Json[];
};

const schema = z.toJSONSchema(scenarioSchema, { io: "input", unrepresentable: "any" }) as unknown as Json;

/** The JSON Schema of a field, by path (arrays: their items). */
function field(path: string): Json {
  let node: Json = schema;
  for (const key of path.split(".")) {
    const props: Record<string, Json> | undefined = node.properties ?? node.items?.properties;
    const next = props?.[key];
    if (next === undefined) throw new Error(`the scenario schema has no field ${path}`);
    node = next;
  }
  return node;
}

/** The numeric variant of a field (a size or duration is a number or a string). */
function numeric(node: Json): Json {
  return node.anyOf?.find((v) => v.type === "number" || v.type === "integer") ?? node;
}

/** The schema's range of a numeric field, intersected with ours. */
function range(path: string, lo: number, hi: number): { min: number; max: number; integer: boolean } {
  const n = numeric(field(path));
  const integer = n.type === "integer";
  const step = integer ? 1 : 1e-6;
  const min = Math.max(lo, n.minimum ?? -Infinity, (n.exclusiveMinimum ?? -Infinity) + step);
  const max = Math.min(hi, n.maximum ?? Infinity, (n.exclusiveMaximum ?? Infinity) - step);
  return { min, max: Math.max(min, max), integer };
}

function num(path: string, lo: number, hi: number): fc.Arbitrary<number> {
  const r = range(path, lo, hi);
  return r.integer
    ? fc.integer({ min: Math.ceil(r.min), max: Math.floor(r.max) })
    : fc.double({ min: r.min, max: r.max, noNaN: true, noDefaultInfinity: true });
}

/**
 * A duration in the schema's range: the simulated clock counts whole
 * microseconds, so a duration is generated as a whole number of them and
 * written with its unit, as a user would write "250ms".
 */
function duration(path: string, loS: number, hiS: number): fc.Arbitrary<string> {
  const r = range(path, loS, hiS);
  return fc.integer({ min: Math.ceil(r.min * 1e6), max: Math.floor(r.max * 1e6) }).map((us) => `${us}us`);
}

function choice(path: string): fc.Arbitrary<string> {
  const values = field(path).enum;
  if (values === undefined || values.length === 0) throw new Error(`${path} has no choices in the schema`);
  return fc.constantFrom(...values);
}

const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
/** Drops undefined fields (an absent field, as a file would have it). */
const clean = <T extends object>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

const T = "tables";
const Q = "queries";
const allocator = fc.oneof(
  fc.constant({ kind: "pg96" }),
  fc.constant({ kind: "pg11" }),
  fc.record({ kind: fc.constant("batch"), blocksPerClaim: fc.integer({ min: 1, max: 64 }) }),
  fc
    .record({ kind: fc.constant("munro2020"), maxChunkBlocks: opt(fc.integer({ min: 1, max: 64 })) })
    .map(clean),
  fc
    .record({
      kind: fc.constant("pg14"),
      nchunks: opt(fc.integer({ min: 1, max: 4096 })),
      rampdownChunks: opt(fc.integer({ min: 1, max: 128 })),
      maxChunkBlocks: opt(fc.oneof(fc.constant(null), fc.integer({ min: 1, max: 8192 }))),
    })
    .map(clean),
);
const table = fc
  .record({
    blocks: num(`${T}.blocks`, 0, 16_384),
    tuplesPerPage: num(`${T}.tuplesPerPage`, 0, 400),
    segmentBlocks: opt(num(`${T}.segmentBlocks`, 1, 131_072)),
    temp: opt(fc.boolean()),
    cached: opt(choice(`${T}.cached`)),
  })
  .map(clean);
const query = fc
  .record({
    kind: opt(choice(`${Q}.kind`)),
    start: opt(duration(`${Q}.start`, 0, 1)),
    clients: opt(num(`${Q}.clients`, 1, 3)),
    runs: opt(num(`${Q}.runs`, 1, 3)),
    duration: opt(duration(`${Q}.duration`, 0.01, 2)),
    clientStagger: opt(duration(`${Q}.clientStagger`, 0, 0.5)),
    pg: opt(choice(`${Q}.pg`)),
    workers: opt(num(`${Q}.workers`, 0, 4)),
    parallelLeaderParticipation: opt(fc.boolean()),
    allocator: opt(allocator),
    synchronizeSeqscans: opt(fc.boolean()),
    effectiveIoConcurrency: opt(num(`${Q}.effectiveIoConcurrency`, 0, 64)),
    ioCombineLimit: opt(num(`${Q}.ioCombineLimit`, 1, 32)),
    ioMethod: opt(choice(`${Q}.ioMethod`)),
    prefetch: opt(choice(`${Q}.prefetch`)),
    bitmap: opt(
      fc.record({
        dataset: fc.constantFrom("random", "random-8", "random-32", "sequential"),
        selectivity: fc.double({ min: 0.001, max: 1, noNaN: true }),
      }),
    ),
    file: fc
      .record({
        pattern: fc.constantFrom("forward", "backward", "random"),
        adviseDistance: opt(num(`${Q}.file.adviseDistance`, 0, 16)),
      })
      .map(clean),
  })
  // A plain-file reader is one process with a reader; other kinds have none.
  .map((q) => (q.kind === "file" ? { ...q, workers: undefined } : { ...q, file: undefined }))
  .map(clean);
const scenarioArb = fc
  .record({
    seed: opt(num("seed", 0, 1000)),
    cores: num("machine.cores", 1, 16),
    ram: fc.constantFrom("256MB", "1GB", "4GB"),
    sharedBuffers: opt(fc.constantFrom("1MB", "16MB", "128MB")),
    maxConnections: opt(num("machine.maxConnections", 1, 200)),
    // machine.os is a grammar (os-model.ts), not an enum: each preset's name plus other accepted versions.
    os: fc.constantFrom(...OS_NAMES, "linux-4.20", "linux-5.15", "linux-6.1", "linux-6.18", "freebsd-14"),
    readAheadKb: opt(num("machine.osOptions.readAheadKb", 0, 2048)),
    device: fc.constantFrom(
      "samsung-990-pro-1tb",
      "intel-ssd-320-120gb",
      "hdd-7200rpm",
      "raid0-6x-intel-s3600-100gb",
    ),
    perPageUs: opt(num("machine.cpu.perPageUs", 0, 20)),
    jitter: opt(num("machine.cpu.jitter", 0, 1)),
    tables: fc.array(table, { minLength: 1, maxLength: 2 }),
    queries: fc.array(query, { minLength: 1, maxLength: 2 }),
    until: opt(duration("until", 0.01, 3)),
  })
  .map((g) => ({
    name: "generated",
    ...(g.seed === undefined ? {} : { seed: g.seed }),
    machine: clean({
      cores: g.cores,
      ram: g.ram,
      sharedBuffers: g.sharedBuffers,
      maxConnections: g.maxConnections,
      os: g.os,
      osOptions:
        g.readAheadKb === undefined || !g.os.startsWith("linux") ? undefined : { readAheadKb: g.readAheadKb },
      device: g.device,
      cpu: clean({ perPageUs: g.perPageUs, jitter: g.jitter }),
    }),
    tables: g.tables.map((t, i) => ({ name: `t${i}`, ...t })),
    queries: g.queries.map((q, i) => ({ name: `q${i}`, table: `t${i % g.tables.length}`, ...q })),
    ...(g.until === undefined ? {} : { until: g.until }),
  }));

/** A refusal: an error the user caused, with one sentence. */
function isRefusal(e: unknown): boolean {
  const err = e as { userError?: unknown; message?: unknown };
  return err.userError === true && typeof err.message === "string" && !err.message.includes("\n");
}

describe("any scenario the schema accepts simulates within the budget, or is refused", () => {
  // A hundred small simulations, each milliseconds to a second on a loaded 2-core machine.
  it("holds for generated scenarios", () => {
    let accepted = 0;
    let simulated = 0;
    let candidates = 0;
    fc.assert(
      fc.property(scenarioArb, (s) => {
        candidates++;
        let resolved: ReturnType<typeof resolveScenario>;
        try {
          resolved = resolveScenario(s);
        } catch (e) {
          // Rejected by the schema (a rule between fields): not an accepted value.
          if (isRefusal(e)) return;
          throw e;
        }
        accepted++;
        const estimate = estimateWork(resolved);
        expect(estimate.steps).toBeGreaterThanOrEqual(0);
        if (overBudget(estimate) !== null) {
          expect(estimate.levers.length).toBeGreaterThan(0);
          return;
        }
        let steps = 0;
        try {
          simulateJson(s, {
            onProgress: (p: SimulationProgress) => (steps = p.steps),
            shouldStop: () => steps > WORK_BUDGET_STEPS,
          });
        } catch (e) {
          if (isRefusal(e)) return;
          throw e;
        }
        simulated++;
        expect(steps).toBeLessThanOrEqual(WORK_BUDGET_STEPS);
      }),
      { numRuns: 100, seed: 20_261_202 },
    );
    expect(accepted).toBeGreaterThan(candidates / 2);
    expect(simulated).toBeGreaterThan(accepted / 2);
  }, 600_000);
});
