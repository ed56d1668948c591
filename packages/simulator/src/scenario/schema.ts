/**
 * The scenario file: one machine, its tables, and the queries that run on it.
 *
 * A scenario says what a DBA would say about an experiment: "a 100 GB table
 * on an Intel 320 under Linux 5.4 with 128 kB readahead, shared_buffers
 * 128 MB, four workers on PostgreSQL 14". Quantities take units (`"100GB"`,
 * `"3h"`) or plain numbers (bytes, seconds). Everything a run depends on is in
 * the file, including the seed, so a scenario file is a complete, repeatable
 * experiment.
 *
 * Fields named after PostgreSQL settings keep PostgreSQL's names in camelCase
 * (`effectiveIoConcurrency`, `ioCombineLimit`, `synchronizeSeqscans`,
 * `parallelLeaderParticipation`).
 */
import * as z from "zod/mini";
import { parseBytes, parseDurationUs } from "../units.js";
import { limitProblem, SCENARIO_LIMITS, type ScenarioLimitName } from "./limits.js";
import { acceptedOsNames, isOsName } from "./os-model.js";
import { PG_VERSIONS } from "./pg-model.js";
import type { Machine, OsName, PgVersion, Query, Scenario, ScenarioInput, Table } from "./types.js";

/*
 * Strictness, everywhere: every object is strict (an unknown key, `__proto__`
 * and `constructor` included, is an error naming its path: JSON.parse keeps
 * `"__proto__"` as an own key, and a strict object lists own keys), every
 * number is checked against its bound in limits.ts (with the bound's source in
 * the message), integers are whole numbers, and quantities with units are
 * resolved here, so a size or a duration that is not one is reported with the
 * other problems instead of after them.
 */

/** A number within a named bound of limits.ts. */
const bounded = (name: ScenarioLimitName) => {
  const limit = SCENARIO_LIMITS[name];
  return z.number().check(
    z.superRefine((v, ctx) => {
      const problem = limitProblem(limit, v);
      if (problem !== null) ctx.addIssue({ code: "custom", message: problem });
    }),
    // The same range in the JSON Schema (z.toJSONSchema), so editors and generators see it.
    z.meta({ minimum: limit.min, maximum: limit.max, ...(limit.integer ? { type: "integer" } : {}) }),
  );
};

/** The sentence of a unit parser's error, without the field name it starts with. */
function unitProblem(e: unknown): string {
  return (e as Error).message.replace(/^\S+ /, "").replace(/\.$/, "");
}

/** A size (bytes, or a string with a unit) within a named bound, in bytes. */
const size = (name: ScenarioLimitName) =>
  z.union([z.number(), z.string()]).check(
    z.superRefine((v, ctx) => {
      let bytes: number;
      try {
        bytes = parseBytes(v, "size");
      } catch (e) {
        ctx.addIssue({ code: "custom", message: unitProblem(e), params: { code: "SCENARIO_BAD_SIZE" } });
        return;
      }
      const { min, max, source } = SCENARIO_LIMITS[name];
      if (bytes < min || bytes > max) {
        ctx.addIssue({
          code: "custom",
          message: `must be from ${min} to ${max} bytes (${source}), got ${bytes} bytes`,
          params: { code: "SCENARIO_BAD_SIZE" },
        });
      }
    }),
  );

/** A duration (seconds, or a string with a unit) within the engine's clock; `zero` says why 0 is refused. */
const duration = (zero?: string) =>
  z.union([z.number(), z.string()]).check(
    z.superRefine((v, ctx) => {
      let us: number;
      try {
        us = parseDurationUs(v, "duration");
      } catch (e) {
        ctx.addIssue({ code: "custom", message: unitProblem(e), params: { code: "SCENARIO_BAD_DURATION" } });
        return;
      }
      if (zero !== undefined && us === 0) ctx.addIssue({ code: "custom", message: zero });
    }),
  );

/** A string that is not empty. */
const text = () => z.string().check(z.minLength(1, "must not be empty"));

/** The problem with an OS name that is not accepted. */
function osProblem(input: unknown): string {
  return `${JSON.stringify(input)} is not an OS this simulator models; use ${acceptedOsNames()}`;
}

/** An OS name os-model.ts accepts (a pattern in the JSON Schema, the full check here). */
const osName = z.string().check(
  z.superRefine((v, ctx) => {
    if (!isOsName(v)) ctx.addIssue({ code: "custom", message: osProblem(v) });
  }),
  z.meta({ pattern: "^(linux-\\d+\\.\\d+|freebsd-\\d+|windows|none)$" }),
) as unknown as z.ZodMiniType<OsName, OsName>;

/** The OS names offered in help and menus, one per readahead model (os-model.ts accepts other versions too). */
export const OS_NAMES: readonly OsName[] = [
  "linux-5.4",
  "linux-6.10",
  "freebsd-12",
  "freebsd-13",
  "windows",
  "none",
];

const allocatorSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("pg96") }),
  z.strictObject({ kind: z.literal("pg11") }),
  z.strictObject({ kind: z.literal("batch"), blocksPerClaim: bounded("claimBlocks") }),
  z.strictObject({ kind: z.literal("munro2020"), maxChunkBlocks: z.optional(bounded("claimBlocks")) }),
  z.strictObject({
    kind: z.literal("pg14"),
    nchunks: z.optional(bounded("chunkCount")),
    rampdownChunks: z.optional(bounded("chunkCount")),
    /** null: uncapped, as the allocator's policy has it (`--chunk-cap none`). */
    maxChunkBlocks: z.optional(z.nullable(bounded("claimBlocks"))),
  }),
]);

/** CPU costs of the modelled machine; every one is documented where it is used (engine/pg/cpu-costs.ts). */
const cpuSchema = z.strictObject({
  perPageUs: z.optional(bounded("cpuUs")),
  perTupleUs: z.optional(bounded("cpuUs")),
  bitmapTupleUs: z.optional(bounded("cpuUs")),
  readSyscallUs: z.optional(bounded("cpuUs")),
  copyBytesPerUs: z.optional(bounded("copyBytesPerUs")),
  bufferFirstUseUs: z.optional(bounded("cpuUs")),
  wakeUpUs: z.optional(bounded("cpuUs")),
  fadviseUs: z.optional(bounded("cpuUs")),
  fillUsPerPage: z.optional(bounded("cpuUs")),
  spinlockHoldUs: z.optional(bounded("cpuUs")),
  atomicOpUs: z.optional(bounded("cpuUs")),
  sharedBufferHitUs: z.optional(bounded("cpuUs")),
  jitter: z.optional(bounded("cpuJitter")),
  workerForkUs: z.optional(bounded("cpuUs")),
  workerInitUs: z.optional(bounded("cpuUs")),
});

const osOptionsSchema = z.strictObject({
  readAheadKb: z.optional(bounded("readAheadKb")),
  maxSectorsKb: z.optional(bounded("maxSectorsKb")),
  /** posix_fadvise PostgreSQL never issues on relation files, for what-if runs. */
  fadvise: z.optional(z.enum(["normal", "sequential", "random"])),
  freebsd: z.optional(
    z.strictObject({
      bsizeBytes: z.optional(
        bounded("freebsdBsizeBytes").check(
          z.refine((v) => (v & (v - 1)) === 0, "must be a power of two (a UFS block size)"),
        ),
      ),
      maxphysBytes: z.optional(bounded("freebsdMaxphysBytes")),
      readMax: z.optional(bounded("freebsdReadMax")),
    }),
  ),
  windows: z.optional(
    z.strictObject({
      granularityBytes: z.optional(bounded("windowsBytes")),
      demandClusterBytes: z.optional(bounded("windowsBytes")),
      viewBytes: z.optional(bounded("windowsBytes")),
      sequentialScan: z.optional(z.boolean()),
    }),
  ),
});

/** An inline device profile: an object passed through as written (own keys and all) to the profile schema. */
const inlineProfile = z
  .custom<Record<string, unknown>>(
    (v) => typeof v === "object" && v !== null && !Array.isArray(v),
    "must be a built-in profile name or a profile object",
  )
  // What the scenario's JSON Schema says of it; the profile's own fields are checked by @scanlab/device-profiles.
  .check(
    z.meta({
      type: "object",
      description: "A device profile (@scanlab/device-profiles), as `scanlab calibrate` writes one.",
    }),
  );

const machineSchema = z.strictObject({
  cores: bounded("cores"),
  ram: size("ramBytes"),
  sharedBuffers: z._default(size("sharedBuffersBytes"), "128MB"),
  maxConnections: z._default(bounded("maxConnections"), 100),
  os: osName,
  osOptions: z._default(osOptionsSchema, {}),
  /** A built-in device profile name, or an inline profile (see @scanlab/device-profiles). */
  device: z.union([text(), inlineProfile]),
  cpu: z._default(cpuSchema, {}),
});

const tableSchema = z
  .strictObject({
    name: text().check(
      z.refine(
        (v) => new TextEncoder().encode(v).length <= SCENARIO_LIMITS.tableNameBytes.max,
        `must be at most ${SCENARIO_LIMITS.tableNameBytes.max} bytes (${SCENARIO_LIMITS.tableNameBytes.source})`,
      ),
    ),
    /** Size as bytes or with a unit ("100GB"); or give `blocks`. */
    size: z.optional(size("sizeBytes")),
    blocks: z.optional(bounded("tableBlocks")),
    tuplesPerPage: bounded("tuplesPerPage"),
    /** RELSEG_SIZE: blocks per segment file, 131072 (1 GB) by default. */
    segmentBlocks: z._default(bounded("segmentBlocks"), 131072),
    temp: z._default(z.boolean(), false),
    /** Where the table is at the start: nowhere (cold, after dropping caches) or in the OS page cache. */
    cached: z._default(z.enum(["none", "os"]), "none"),
    /**
     * The btree index a bitmap query on this table scans, in 8 kB blocks (its
     * pg_relation_size / 8192); a serial bitmap heap scan then reads the
     * matched share of its leaf pages first. Without it those reads are not
     * modelled.
     */
    indexBlocks: z.optional(bounded("tableBlocks")),
  })
  .check(
    z.refine((t) => (t.size === undefined) !== (t.blocks === undefined), {
      message: "give exactly one of size and blocks",
    }),
  );

const bitmapSchema = z.union([
  z.strictObject({
    dataset: z.enum(["random", "random-8", "random-32", "sequential"]),
    selectivity: z
      .number()
      .check(z.positive("must be above 0"), z.maximum(1, "must be at most 1 (all of the table)")),
    seed: z.optional(bounded("seed")),
  }),
  // "seed004" is the deprecated name of "bitmap-2022", still accepted so no scenario file breaks.
  z.strictObject({ pgbench: z.enum(["bitmap-2022", "seed004"]) }),
]);

const fileReadSchema = z.strictObject({
  pattern: z.enum(["forward", "backward", "random"]),
  adviseDistance: z.optional(bounded("adviseDistance")),
  seed: z.optional(bounded("seed")),
});

const querySchema = z.strictObject({
  name: text(),
  table: text(),
  kind: z._default(z.enum(["seqscan", "bitmap", "file"]), "seqscan"),
  /** When the first run starts. */
  start: z._default(duration(), 0),
  /** Identical concurrent clients running this query (pgbench -c). */
  clients: z._default(bounded("clients"), 1),
  /** Runs per client, back to back (pgbench -t); or give `duration` (pgbench -T). */
  runs: z._default(bounded("runs"), 1),
  duration: z.optional(
    duration(
      "a duration of 0 runs nothing; give a positive duration (pgbench -T) or leave it out and use runs",
    ),
  ),
  /** Stagger between client start times. */
  clientStagger: z._default(duration(), 0),
  pg: z._default(z.enum(PG_VERSIONS as [PgVersion, ...PgVersion[]]), "14"),
  workers: z._default(bounded("workers"), 0),
  parallelLeaderParticipation: z._default(z.boolean(), true),
  allocator: z.optional(allocatorSchema),
  synchronizeSeqscans: z._default(z.boolean(), true),
  effectiveIoConcurrency: z.optional(bounded("effectiveIoConcurrency")),
  ioCombineLimit: z.optional(bounded("ioCombineLimit")),
  ioMethod: z.optional(z.enum(["sync", "worker", "io_uring"])),
  prefetch: z.optional(z.enum(["pg13", "read-stream", "adaptive", "pg84"])),
  bitmap: z.optional(bitmapSchema),
  file: z.optional(fileReadSchema),
  /** Fraction of tuples that reach the query's output (work per tuple beyond the scan); informational. */
  note: z.optional(z.string()),
});

const scenarioSchemaImpl = z.strictObject({
  $schema: z.optional(z.string()),
  name: text(),
  description: z.optional(z.string()),
  // The seeded generators take 32 bits (engine/pg/cpu-jitter.ts); 0 to 2^31 - 1 keeps every seed distinct and
  // matches the CLI's --seed.
  seed: z._default(bounded("seed"), 1),
  machine: machineSchema,
  tables: z.array(tableSchema).check(z.minLength(1, "must list at least one table")),
  queries: z.array(querySchema).check(z.minLength(1, "must list at least one query")),
  /** Stop the simulation at this simulated time (e.g. pgbench -T); runs still in progress are reported unfinished. */
  until: z.optional(duration("a stop at time 0 runs nothing; give a positive time or leave it out")),
  /** Sample interval for the time series in the result. */
  sampleEvery: z.optional(duration("a sample interval of 0 never advances; give a positive interval")),
});

/**
 * The zod schema of a scenario file: `scenarioSchema.parse(json)` validates
 * a {@link ScenarioInput} and fills in defaults, giving a {@link Scenario}
 * (resolveScenario does that and turns units into numbers).
 */
export const scenarioSchema: z.ZodMiniType<Scenario, ScenarioInput> = scenarioSchemaImpl;

/** A scenario as written (see scenario/types.ts for the documented shape). */
export type { Scenario, ScenarioInput } from "./types.js";
/** One query of a scenario. */
export type QuerySpec = Query;
/** One table of a scenario. */
export type TableSpec = Table;
/** The machine of a scenario. */
export type MachineSpec = Machine;
export type { AllocatorSpec } from "./types.js";

// The schema and the documented types must describe the same files.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const schemaMatchesInput: Same<z.input<typeof scenarioSchemaImpl>, ScenarioInput> = true;
const schemaMatchesOutput: Same<z.output<typeof scenarioSchemaImpl>, Scenario> = true;
void schemaMatchesInput;
void schemaMatchesOutput;
