/**
 * From a scenario as written (units, defaults, version names) to the numbers
 * the engine runs on. Validation errors name the field and say what is wrong
 * in one sentence (ScenarioError).
 */
import { pgbenchAccountsTableBlocks } from "@scanlab/bitmap-prefetch";
import { ScenarioError } from "../errors.js";
import { BLOCK_BYTES, parseBytes, parseDurationUs } from "../units.js";
import { scenarioSchema } from "./schema.js";
import type { Query, Scenario, ScenarioInput } from "./types.js";

/** The most blocks a table can have: MaxBlockNumber (0xFFFFFFFE, src/include/storage/block.h). */
const MAX_TABLE_BLOCKS = 0xfffffffe;

/** pgbench_accounts at seed 004's scale 3000 (targets.md T7 b). */
const PGBENCH_SEED004_BLOCKS = pgbenchAccountsTableBlocks(3000);

/** A validated scenario with every quantity in bytes, blocks or microseconds. */
export interface ResolvedScenario {
  /** The validated scenario with defaults filled in. */
  scenario: Scenario;
  /** machine.ram in bytes. */
  ramBytes: number;
  /** shared_buffers in bytes. */
  sharedBuffersBytes: number;
  /** NBuffers: shared_buffers in 8 kB buffers. */
  nbuffers: number;
  /** Tables with their size in blocks. */
  tables: {
    /** Name. */
    name: string;
    /** Size in blocks. */
    nblocks: number;
    /** Tuples per page. */
    tuplesPerPage: number;
    /** Blocks per segment file. */
    segmentBlocks: number;
    /** Temporary table. */
    temp: boolean;
    /** Initial cache state. */
    cached: "none" | "os";
  }[];
  /** Queries with their times in microseconds. */
  queries: {
    /** The query as validated. */
    spec: Query;
    /** Index of its table in `tables`. */
    tableIndex: number;
    /** First start, us. */
    startUs: number;
    /** pgbench -T duration, us, or null. */
    durationUs: number | null;
    /** Client stagger, us. */
    clientStaggerUs: number;
  }[];
  /** Stop time, us, or null. */
  untilUs: number | null;
  /** Sample interval, us, or null. */
  sampleEveryUs: number | null;
}

/**
 * Parses a scenario (an object, e.g. from JSON.parse) and resolves its
 * quantities; a bad field throws a {@link ScenarioError} naming it.
 *
 * @example
 * ```ts
 * import { resolveScenario } from "@scanlab/simulator";
 * const r = resolveScenario({
 *   name: "check",
 *   machine: { cores: 4, ram: "8GB", os: "linux-5.4", device: "intel-ssd-320-120gb" },
 *   tables: [{ name: "t", size: "1GB", tuplesPerPage: 226 }],
 *   queries: [{ name: "q", table: "t" }],
 * });
 * console.log(r.tables[0]!.nblocks, r.nbuffers); // 131072 16384
 * ```
 */
export function resolveScenario(input: ScenarioInput | unknown, source = "scenario"): ResolvedScenario {
  try {
    return resolveFrom(input, source);
  } catch (e) {
    // Sizes and durations are parsed by units.ts, which does not know the file: say which one.
    if (e instanceof ScenarioError && !e.message.startsWith(`${source}: `))
      throw new ScenarioError(`${source}: ${e.message}`, { code: e.code, field: e.field });
    throw e;
  }
}

function resolveFrom(input: unknown, source: string): ResolvedScenario {
  const parsed = scenarioSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join(".") || "(top level)";
    throw new ScenarioError(`${source}: field "${field}": ${issue.message}.`, { field });
  }
  const s = parsed.data;
  const ramBytes = parseBytes(s.machine.ram, "machine.ram");
  const sharedBuffersBytes = parseBytes(s.machine.sharedBuffers, "machine.sharedBuffers");
  if (sharedBuffersBytes < 16 * BLOCK_BYTES) {
    throw new ScenarioError(
      `${source}: field "machine.sharedBuffers": must be at least 128kB (16 buffers).`,
      {
        field: "machine.sharedBuffers",
      },
    );
  }
  if (sharedBuffersBytes >= ramBytes) {
    throw new ScenarioError(`${source}: field "machine.sharedBuffers": must be smaller than machine.ram.`, {
      field: "machine.sharedBuffers",
    });
  }
  const names = new Set<string>();
  const tables = s.tables.map((t, i) => {
    if (names.has(t.name)) {
      throw new ScenarioError(`${source}: field "tables.${i}.name": table "${t.name}" is defined twice.`, {
        field: `tables.${i}.name`,
      });
    }
    names.add(t.name);
    const nblocks = t.blocks ?? Math.ceil(parseBytes(t.size!, `tables.${i}.size`) / BLOCK_BYTES);
    // PostgreSQL refuses to extend a relation that far: "cannot extend relation ... beyond
    // 4294967294 blocks" (bufmgr.c ExtendBufferedRelShared; md.c mdextend refuses block
    // InvalidBlockNumber), MaxBlockNumber = 0xFFFFFFFE (src/include/storage/block.h).
    if (nblocks > MAX_TABLE_BLOCKS) {
      throw new ScenarioError(
        `${source}: field "tables.${i}.size": PostgreSQL cannot extend a relation beyond ${MAX_TABLE_BLOCKS} blocks (MaxBlockNumber, src/include/storage/block.h: 32 TiB less 16 kB at 8 kB blocks), so no table is ${nblocks} blocks long.`,
        {
          field: `tables.${i}.size`,
        },
      );
    }
    return {
      name: t.name,
      nblocks,
      tuplesPerPage: t.tuplesPerPage,
      segmentBlocks: t.segmentBlocks,
      temp: t.temp,
      cached: t.cached,
    };
  });
  const tableNames = tables.map((t) => t.name);
  const queryNames = new Set<string>();
  const queries = s.queries.map((q, i) => {
    // Results and reports are keyed by query name.
    if (queryNames.has(q.name)) {
      throw new ScenarioError(`${source}: field "queries.${i}.name": query "${q.name}" is defined twice.`, {
        field: `queries.${i}.name`,
      });
    }
    queryNames.add(q.name);
    const tableIndex = tableNames.indexOf(q.table);
    if (tableIndex < 0) {
      throw new ScenarioError(
        `${source}: field "queries.${i}.table": no table named "${q.table}" (tables: ${tableNames.join(", ")}).`,
        { field: `queries.${i}.table` },
      );
    }
    if (q.kind === "bitmap" && q.bitmap === undefined) {
      throw new ScenarioError(
        `${source}: field "queries.${i}.bitmap": a bitmap query needs a bitmap (data set or pgbench).`,
        {
          field: `queries.${i}.bitmap`,
        },
      );
    }
    if (q.kind === "bitmap" && q.bitmap !== undefined && "pgbench" in q.bitmap) {
      const table = tables[tableIndex]!;
      if (table.nblocks !== PGBENCH_SEED004_BLOCKS) {
        throw new ScenarioError(
          `${source}: field "queries.${i}.bitmap": the seed-004 pgbench bitmap needs pgbench_accounts at scale 3000 (${PGBENCH_SEED004_BLOCKS} blocks), not table "${table.name}" of ${table.nblocks} blocks.`,
          { field: `queries.${i}.bitmap` },
        );
      }
    }
    const durationUs = q.duration === undefined ? null : parseDurationUs(q.duration, `queries.${i}.duration`);
    if (durationUs === 0) {
      throw new ScenarioError(
        `${source}: field "queries.${i}.duration": a duration of 0 runs nothing; give a positive duration (pgbench -T) or leave it out and use runs.`,
        { field: `queries.${i}.duration` },
      );
    }
    return {
      spec: q,
      tableIndex,
      startUs: parseDurationUs(q.start, `queries.${i}.start`),
      durationUs,
      clientStaggerUs: parseDurationUs(q.clientStagger, `queries.${i}.clientStagger`),
    };
  });
  return {
    scenario: s,
    ramBytes,
    sharedBuffersBytes,
    nbuffers: Math.floor(sharedBuffersBytes / BLOCK_BYTES),
    tables,
    queries,
    untilUs: s.until === undefined ? null : parseDurationUs(s.until, "until"),
    sampleEveryUs: s.sampleEvery === undefined ? null : parseDurationUs(s.sampleEvery, "sampleEvery"),
  };
}
