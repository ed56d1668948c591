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
import { z } from "zod";
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
  return (
    z
      .number()
      .superRefine((v, ctx) => {
        const problem = limitProblem(limit, v);
        if (problem !== null) ctx.addIssue({ code: "custom", message: problem });
      })
      // The same range in the JSON Schema (z.toJSONSchema), so editors and generators see it.
      .meta({ minimum: limit.min, maximum: limit.max, ...(limit.integer ? { type: "integer" } : {}) })
  );
};

/** The sentence of a unit parser's error, without the field name it starts with. */
function unitProblem(e: unknown): string {
  return (e as Error).message.replace(/^\S+ /, "").replace(/\.$/, "");
}

/** A size (bytes, or a string with a unit) within a named bound, in bytes. */
const size = (name: ScenarioLimitName) =>
  z.union([z.number(), z.string()]).superRefine((v, ctx) => {
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
  });

/** A duration (seconds, or a string with a unit) within the engine's clock; `zero` says why 0 is refused. */
const duration = (zero?: string) =>
  z.union([z.number(), z.string()]).superRefine((v, ctx) => {
    let us: number;
    try {
      us = parseDurationUs(v, "duration");
    } catch (e) {
      ctx.addIssue({ code: "custom", message: unitProblem(e), params: { code: "SCENARIO_BAD_DURATION" } });
      return;
    }
    if (zero !== undefined && us === 0) ctx.addIssue({ code: "custom", message: zero });
  });

/** A string that is not empty. */
const text = () => z.string().min(1, "must not be empty");

/** The problem with an OS name that is not accepted. */
function osProblem(input: unknown): string {
  return `${JSON.stringify(input)} is not an OS this simulator models; use ${acceptedOsNames()}`;
}

/** An OS name os-model.ts accepts (a pattern in the JSON Schema, the full check here). */
const osName = z
  .string()
  .superRefine((v, ctx) => {
    if (!isOsName(v)) ctx.addIssue({ code: "custom", message: osProblem(v) });
  })
  .meta({ pattern: "^(linux-\\d+\\.\\d+|freebsd-\\d+|windows|none)$" }) as unknown as z.ZodType<
  OsName,
  OsName
>;

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
  z.strictObject({ kind: z.literal("munro2020"), maxChunkBlocks: bounded("claimBlocks").optional() }),
  z.strictObject({
    kind: z.literal("pg14"),
    nchunks: bounded("chunkCount").optional(),
    rampdownChunks: bounded("chunkCount").optional(),
    /** null: uncapped, as the allocator's policy has it (`--chunk-cap none`). */
    maxChunkBlocks: bounded("claimBlocks").nullable().optional(),
  }),
]);

/** CPU costs of the modelled machine; every one is documented where it is used (engine/pg/cpu-costs.ts). */
const cpuSchema = z.strictObject({
  perPageUs: bounded("cpuUs").optional(),
  perTupleUs: bounded("cpuUs").optional(),
  readSyscallUs: bounded("cpuUs").optional(),
  copyBytesPerUs: bounded("copyBytesPerUs").optional(),
  fadviseUs: bounded("cpuUs").optional(),
  spinlockHoldUs: bounded("cpuUs").optional(),
  atomicOpUs: bounded("cpuUs").optional(),
  sharedBufferHitUs: bounded("cpuUs").optional(),
  jitter: bounded("cpuJitter").optional(),
  workerForkUs: bounded("cpuUs").optional(),
  workerInitUs: bounded("cpuUs").optional(),
});

const osOptionsSchema = z.strictObject({
  readAheadKb: bounded("readAheadKb").optional(),
  maxSectorsKb: bounded("maxSectorsKb").optional(),
  /** posix_fadvise PostgreSQL never issues on relation files, for what-if runs. */
  fadvise: z.enum(["normal", "sequential", "random"]).optional(),
  freebsd: z
    .strictObject({
      bsizeBytes: bounded("freebsdBsizeBytes")
        .refine((v) => (v & (v - 1)) === 0, "must be a power of two (a UFS block size)")
        .optional(),
      maxphysBytes: bounded("freebsdMaxphysBytes").optional(),
      readMax: bounded("freebsdReadMax").optional(),
    })
    .optional(),
  windows: z
    .strictObject({
      granularityBytes: bounded("windowsBytes").optional(),
      demandClusterBytes: bounded("windowsBytes").optional(),
      viewBytes: bounded("windowsBytes").optional(),
      sequentialScan: z.boolean().optional(),
    })
    .optional(),
});

/** An inline device profile: an object passed through as written (own keys and all) to the profile schema. */
const inlineProfile = z
  .custom<Record<string, unknown>>(
    (v) => typeof v === "object" && v !== null && !Array.isArray(v),
    "must be a built-in profile name or a profile object",
  )
  // What the scenario's JSON Schema says of it; the profile's own fields are checked by @scanlab/device-profiles.
  .meta({
    type: "object",
    description: "A device profile (@scanlab/device-profiles), as `scanlab calibrate` writes one.",
  });

const machineSchema = z.strictObject({
  cores: bounded("cores"),
  ram: size("ramBytes"),
  sharedBuffers: size("sharedBuffersBytes").default("128MB"),
  maxConnections: bounded("maxConnections").default(100),
  os: osName,
  osOptions: osOptionsSchema.default({}),
  /** A built-in device profile name, or an inline profile (see @scanlab/device-profiles). */
  device: z.union([text(), inlineProfile]),
  cpu: cpuSchema.default({}),
});

const tableSchema = z
  .strictObject({
    name: text().refine(
      (v) => new TextEncoder().encode(v).length <= SCENARIO_LIMITS.tableNameBytes.max,
      `must be at most ${SCENARIO_LIMITS.tableNameBytes.max} bytes (${SCENARIO_LIMITS.tableNameBytes.source})`,
    ),
    /** Size as bytes or with a unit ("100GB"); or give `blocks`. */
    size: size("sizeBytes").optional(),
    blocks: bounded("tableBlocks").optional(),
    tuplesPerPage: bounded("tuplesPerPage"),
    /** RELSEG_SIZE: blocks per segment file, 131072 (1 GB) by default. */
    segmentBlocks: bounded("segmentBlocks").default(131072),
    temp: z.boolean().default(false),
    /** Where the table is at the start: nowhere (cold, after dropping caches) or in the OS page cache. */
    cached: z.enum(["none", "os"]).default("none"),
  })
  .refine((t) => (t.size === undefined) !== (t.blocks === undefined), {
    message: "give exactly one of size and blocks",
  });

const bitmapSchema = z.union([
  z.strictObject({
    dataset: z.enum(["random", "random-8", "random-32", "sequential"]),
    selectivity: z.number().positive("must be above 0").max(1, "must be at most 1 (all of the table)"),
    seed: bounded("seed").optional(),
  }),
  // "seed004" is the deprecated name of "bitmap-2022", still accepted so no scenario file breaks.
  z.strictObject({ pgbench: z.enum(["bitmap-2022", "seed004"]) }),
]);

const querySchema = z.strictObject({
  name: text(),
  table: text(),
  kind: z.enum(["seqscan", "bitmap"]).default("seqscan"),
  /** When the first run starts. */
  start: duration().default(0),
  /** Identical concurrent clients running this query (pgbench -c). */
  clients: bounded("clients").default(1),
  /** Runs per client, back to back (pgbench -t); or give `duration` (pgbench -T). */
  runs: bounded("runs").default(1),
  duration: duration(
    "a duration of 0 runs nothing; give a positive duration (pgbench -T) or leave it out and use runs",
  ).optional(),
  /** Stagger between client start times. */
  clientStagger: duration().default(0),
  pg: z.enum(PG_VERSIONS as [PgVersion, ...PgVersion[]]).default("14"),
  workers: bounded("workers").default(0),
  parallelLeaderParticipation: z.boolean().default(true),
  allocator: allocatorSchema.optional(),
  synchronizeSeqscans: z.boolean().default(true),
  effectiveIoConcurrency: bounded("effectiveIoConcurrency").optional(),
  ioCombineLimit: bounded("ioCombineLimit").optional(),
  ioMethod: z.enum(["sync", "worker", "io_uring"]).optional(),
  prefetch: z.enum(["pg13", "read-stream", "adaptive", "pg84"]).optional(),
  bitmap: bitmapSchema.optional(),
  /** Fraction of tuples that reach the query's output (work per tuple beyond the scan); informational. */
  note: z.string().optional(),
});

const scenarioSchemaImpl = z.strictObject({
  $schema: z.string().optional(),
  name: text(),
  description: z.string().optional(),
  // The seeded generators take 32 bits (engine/pg/cpu-jitter.ts); 0 to 2^31 - 1 keeps every seed distinct and
  // matches the CLI's --seed.
  seed: bounded("seed").default(1),
  machine: machineSchema,
  tables: z.array(tableSchema).min(1, "must list at least one table"),
  queries: z.array(querySchema).min(1, "must list at least one query"),
  /** Stop the simulation at this simulated time (e.g. pgbench -T); runs still in progress are reported unfinished. */
  until: duration("a stop at time 0 runs nothing; give a positive time or leave it out").optional(),
  /** Sample interval for the time series in the result. */
  sampleEvery: duration("a sample interval of 0 never advances; give a positive interval").optional(),
});

/**
 * The zod schema of a scenario file: `scenarioSchema.parse(json)` validates
 * a {@link ScenarioInput} and fills in defaults, giving a {@link Scenario}
 * (resolveScenario does that and turns units into numbers).
 */
export const scenarioSchema: z.ZodType<Scenario, ScenarioInput> = scenarioSchemaImpl;

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
