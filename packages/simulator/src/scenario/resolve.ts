/**
 * From a scenario as written (units, defaults, version names) to the numbers
 * the engine runs on. Validation reports every problem at once, each with its
 * field's path, in one ScenarioError whose message is one line: first every
 * problem the schema finds (types, unknown keys, bounds, units), then, when
 * the fields are sound, every problem between fields (shared_buffers within
 * RAM, names defined twice, a query on a missing table).
 */
import type * as z from "zod/mini";
import { pgbenchAccountsBlocks } from "../engine/seam/bitmap-adapters.js";
import { ScenarioError, type ScenarioProblem } from "../errors.js";
import { BLOCK_BYTES, parseBytes, parseDurationUs } from "../units.js";
import { scenarioSchema } from "./schema.js";
import type { Query, Scenario, ScenarioInput } from "./types.js";

/** The most blocks a table can have: MaxBlockNumber (0xFFFFFFFE, src/include/storage/block.h). */
const MAX_TABLE_BLOCKS = 0xfffffffe;

/** pgbench_accounts at scale 3000, as in Vondra's 2022 benchmark (pgsql-hackers, “Re: effective_io_concurrency and NVMe devices”) (apps/docs/src/reference/experiments.md#t7-b-pgbench-accounts-range). */
const PGBENCH_2022_BLOCKS = pgbenchAccountsBlocks(3000);

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
    /** Position in `tables` of the table's btree index (from `indexBlocks`), or null. */
    indexRelation: number | null;
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
 * quantities; bad fields throw one {@link ScenarioError} naming every one
 * (its `problems` list them with their paths).
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
  const parsed = scenarioSchema.safeParse(input);
  if (!parsed.success)
    throw problemsError(
      source,
      parsed.error.issues.map((i) => issueProblem(i, input)),
    );
  const problems: ScenarioProblem[] = [];
  const resolved = resolveFrom(parsed.data, problems);
  if (problems.length > 0) throw problemsError(source, problems);
  return resolved;
}

/** At most this many problems are spelled out in the message (all are in `problems`). */
const PROBLEMS_SHOWN = 8;

function problemsError(source: string, problems: ScenarioProblem[]): ScenarioError {
  const sentence = (p: ScenarioProblem) => `field "${p.field}": ${p.message}`;
  const first = problems[0]!;
  if (problems.length === 1) {
    return new ScenarioError(`${source}: ${sentence(first)}.`, {
      field: first.field,
      problems,
      ...(first.code === undefined ? {} : { code: first.code }),
    });
  }
  const shown = problems.slice(0, PROBLEMS_SHOWN).map(sentence).join("; ");
  const more = problems.length > PROBLEMS_SHOWN ? `; and ${problems.length - PROBLEMS_SHOWN} more` : "";
  return new ScenarioError(`${source}: ${problems.length} problems: ${shown}${more}.`, {
    field: first.field,
    problems,
  });
}

function show(value: unknown): string {
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const key of path) {
    if (typeof v !== "object" || v === null || !Object.hasOwn(v, key)) return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/** A zod issue as a field and the end of a sentence. */
function issueProblem(issue: z.core.$ZodIssue, input: unknown): ScenarioProblem {
  const path = issue.path.map(String).join(".");
  const value = valueAt(input, issue.path);
  switch (issue.code) {
    case "unrecognized_keys": {
      const keys = issue.keys.map((k) => (path === "" ? k : `${path}.${k}`));
      return {
        field: keys[0]!,
        message:
          keys.length === 1
            ? "is not a field of the scenario format (see the README for the fields)"
            : `is not a field of the scenario format, nor are ${keys.slice(1).join(", ")}`,
      };
    }
    case "invalid_type":
      return {
        field: path || "(top level)",
        message:
          value === undefined
            ? `is missing (${issue.expected === "int" ? "a whole number" : `a ${issue.expected}`})`
            : `must be ${/^[aeiou]/.test(issue.expected) ? "an" : "a"} ${issue.expected === "int" ? "integer" : issue.expected}, got ${show(value)}`,
      };
    case "invalid_value":
      return {
        field: path || "(top level)",
        message: `must be ${issue.values.length === 1 ? show(issue.values[0]) : `one of ${issue.values.map((v) => show(v)).join(", ")}`}, got ${show(value)}`,
      };
    case "invalid_union": {
      // A union of forms (a size: number or string; a bitmap: data set or pgbench): say what was there.
      return {
        field: path || "(top level)",
        message: `has none of the accepted forms, got ${show(value)}`,
      };
    }
    case "custom": {
      const code = (issue.params as { code?: string } | undefined)?.code;
      return {
        field: path || "(top level)",
        message: issue.message.replace(/\.$/, ""),
        ...(code === undefined ? {} : { code }),
      };
    }
    default:
      return { field: path || "(top level)", message: issue.message.replace(/\.$/, "") };
  }
}

function resolveFrom(s: Scenario, problems: ScenarioProblem[]): ResolvedScenario {
  const add = (field: string, message: string) => problems.push({ field, message });
  // Units were checked by the schema: these parse.
  const ramBytes = parseBytes(s.machine.ram, "machine.ram");
  const sharedBuffersBytes = parseBytes(s.machine.sharedBuffers, "machine.sharedBuffers");
  if (sharedBuffersBytes >= ramBytes) add("machine.sharedBuffers", "must be smaller than machine.ram");
  // Physical sense: what is read into memory cannot be larger than memory.
  const os = s.machine.osOptions;
  const inRam = (field: string, bytes: number | undefined) => {
    if (bytes !== undefined && bytes > ramBytes)
      add(field, `is ${bytes} bytes, more than machine.ram (${ramBytes} bytes) holds`);
  };
  inRam("machine.osOptions.readAheadKb", os.readAheadKb === undefined ? undefined : os.readAheadKb * 1024);
  inRam("machine.osOptions.freebsd.maxphysBytes", os.freebsd?.maxphysBytes);
  inRam("machine.osOptions.windows.granularityBytes", os.windows?.granularityBytes);
  inRam("machine.osOptions.windows.demandClusterBytes", os.windows?.demandClusterBytes);
  inRam("machine.osOptions.windows.viewBytes", os.windows?.viewBytes);
  const names = new Set<string>();
  const tables = s.tables.map((t, i) => {
    if (names.has(t.name)) add(`tables.${i}.name`, `table "${t.name}" is defined twice`);
    names.add(t.name);
    const nblocks = t.blocks ?? Math.ceil(parseBytes(t.size!, `tables.${i}.size`) / BLOCK_BYTES);
    // PostgreSQL refuses to extend a relation that far: "cannot extend relation ... beyond
    // 4294967294 blocks" (bufmgr.c ExtendBufferedRelShared; md.c mdextend refuses block
    // InvalidBlockNumber), MaxBlockNumber = 0xFFFFFFFE (src/include/storage/block.h).
    if (nblocks > MAX_TABLE_BLOCKS)
      add(
        `tables.${i}.size`,
        `PostgreSQL cannot extend a relation beyond ${MAX_TABLE_BLOCKS} blocks (MaxBlockNumber, src/include/storage/block.h: 32 TiB less 16 kB at 8 kB blocks), so no table is ${nblocks} blocks long`,
      );
    return {
      name: t.name,
      nblocks,
      tuplesPerPage: t.tuplesPerPage,
      segmentBlocks: t.segmentBlocks,
      temp: t.temp,
      cached: t.cached,
      indexRelation: null as number | null,
    };
  });
  // Each table's index is a relation of its own, after the tables: its own files, its own buffers.
  s.tables.forEach((t, i) => {
    if (t.indexBlocks === undefined) return;
    tables[i]!.indexRelation = tables.length;
    tables.push({
      name: `${t.name} (index)`,
      nblocks: t.indexBlocks,
      tuplesPerPage: t.tuplesPerPage,
      segmentBlocks: t.segmentBlocks,
      temp: t.temp,
      cached: t.cached,
      indexRelation: null,
    });
  });
  const tableNames = s.tables.map((t) => t.name);
  const queryNames = new Set<string>();
  const queries = s.queries.map((q, i) => {
    // Results and reports are keyed by query name.
    if (queryNames.has(q.name)) add(`queries.${i}.name`, `query "${q.name}" is defined twice`);
    queryNames.add(q.name);
    const tableIndex = tableNames.indexOf(q.table);
    if (tableIndex < 0) {
      add(`queries.${i}.table`, `no table named "${q.table}" (tables: ${tableNames.join(", ")})`);
    }
    if (q.kind === "bitmap" && q.bitmap === undefined) {
      add(`queries.${i}.bitmap`, "a bitmap query needs a bitmap (data set or pgbench)");
    }
    if (tableIndex >= 0 && q.kind === "bitmap" && q.bitmap !== undefined && "pgbench" in q.bitmap) {
      const table = tables[tableIndex]!;
      if (table.nblocks !== PGBENCH_2022_BLOCKS) {
        add(
          `queries.${i}.bitmap`,
          `the pgbench bitmap needs pgbench_accounts at scale 3000 (${PGBENCH_2022_BLOCKS} blocks), not table "${table.name}" of ${table.nblocks} blocks`,
        );
      }
    }
    if (q.kind === "file") {
      if (q.file === undefined)
        add(`queries.${i}.file`, "a file query needs a reader (pattern, adviseDistance)");
      if (q.workers !== 0)
        add(`queries.${i}.workers`, "a file query is one process reading the file; set workers to 0");
      const d = q.file?.adviseDistance ?? 0;
      if (tableIndex >= 0 && q.file !== undefined && d > 0 && d >= tables[tableIndex]!.nblocks) {
        const n = tables[tableIndex]!.nblocks;
        add(
          `queries.${i}.file.adviseDistance`,
          `the advise distance ${d} is beyond the file: table "${q.table}" has ${n} blocks, so the distance must be less than ${n}`,
        );
      }
    } else if (q.file !== undefined) {
      add(
        `queries.${i}.file`,
        `only a query of kind "file" reads with a plain-file reader (kind is ${q.kind})`,
      );
    }
    const durationUs = q.duration === undefined ? null : parseDurationUs(q.duration, `queries.${i}.duration`);
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
