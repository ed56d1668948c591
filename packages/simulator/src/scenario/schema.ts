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
import type { Machine, OsName, PgVersion, Query, Scenario, ScenarioInput, Table } from "./types.js";

const size = z.union([z.number().nonnegative(), z.string()]);
const duration = z.union([z.number().nonnegative(), z.string()]);

/** PostgreSQL versions whose scan behaviour the simulator knows (postgres.md section 0). */
export const PG_VERSIONS: readonly PgVersion[] = ["9.6", "11", "13", "14", "17", "18"];
/** Operating systems and versions (readahead.md: Linux <=6.9 / >=6.10, FreeBSD <=12 / >=13, Windows). */
export const OS_NAMES: readonly OsName[] = [
  "linux-5.4",
  "linux-6.10",
  "freebsd-12",
  "freebsd-13",
  "windows",
  "none",
];

const allocatorSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("pg96") }),
  z.object({ kind: z.literal("pg11") }),
  z.object({ kind: z.literal("batch"), blocksPerClaim: z.number().int().positive() }),
  z.object({ kind: z.literal("munro2020"), maxChunkBlocks: z.number().int().positive().optional() }),
  z.object({
    kind: z.literal("pg14"),
    nchunks: z.number().int().positive().optional(),
    rampdownChunks: z.number().int().positive().optional(),
    maxChunkBlocks: z.number().int().positive().nullable().optional(),
  }),
]);

/** CPU costs of the modelled machine; every one is documented where it is used (engine/cpu-costs.ts). */
const cpuSchema = z
  .object({
    perPageUs: z.number().nonnegative().optional(),
    perTupleUs: z.number().nonnegative().optional(),
    readSyscallUs: z.number().nonnegative().optional(),
    copyBytesPerUs: z.number().positive().optional(),
    fadviseUs: z.number().nonnegative().optional(),
    spinlockHoldUs: z.number().nonnegative().optional(),
    atomicOpUs: z.number().nonnegative().optional(),
    sharedBufferHitUs: z.number().nonnegative().optional(),
    jitter: z.number().min(0).max(0.9).optional(),
    workerForkUs: z.number().nonnegative().optional(),
    workerInitUs: z.number().nonnegative().optional(),
  })
  .strict();

const osOptionsSchema = z
  .object({
    readAheadKb: z.number().int().nonnegative().optional(),
    maxSectorsKb: z.number().int().positive().optional(),
    /** posix_fadvise PostgreSQL never issues on relation files, for what-if runs. */
    fadvise: z.enum(["normal", "sequential", "random"]).optional(),
    freebsd: z
      .object({
        bsizeBytes: z.number().int().positive().optional(),
        maxphysBytes: z.number().int().positive().optional(),
        readMax: z.number().int().positive().optional(),
      })
      .strict()
      .optional(),
    windows: z
      .object({
        granularityBytes: z.number().int().positive().optional(),
        demandClusterBytes: z.number().int().positive().optional(),
        viewBytes: z.number().int().positive().optional(),
        sequentialScan: z.boolean().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

const machineSchema = z
  .object({
    cores: z.number().int().positive(),
    ram: size,
    sharedBuffers: size.default("128MB"),
    maxConnections: z.number().int().positive().default(100),
    os: z.enum(["linux-5.4", "linux-6.10", "freebsd-12", "freebsd-13", "windows", "none"]),
    osOptions: osOptionsSchema.default({}),
    /** A built-in device profile name, or an inline profile (see @scanlab/device-profiles). */
    device: z.union([z.string(), z.record(z.string(), z.unknown())]),
    cpu: cpuSchema.default({}),
  })
  .strict();

const tableSchema = z
  .object({
    name: z.string().min(1),
    /** Size as bytes or with a unit ("100GB"); or give `blocks`. */
    size: size.optional(),
    blocks: z.number().int().nonnegative().max(0xfffffffe).optional(),
    tuplesPerPage: z.number().positive(),
    /** RELSEG_SIZE: blocks per segment file, 131072 (1 GB) by default. */
    segmentBlocks: z.number().int().positive().default(131072),
    temp: z.boolean().default(false),
    /** Where the table is at the start: nowhere (cold, after dropping caches) or in the OS page cache. */
    cached: z.enum(["none", "os"]).default("none"),
  })
  .strict()
  .refine((t) => (t.size === undefined) !== (t.blocks === undefined), {
    message: "give exactly one of size and blocks",
  });

const bitmapSchema = z.union([
  z
    .object({
      dataset: z.enum(["random", "random-8", "random-32", "sequential"]),
      selectivity: z.number().positive().max(1),
      seed: z.number().int().optional(),
    })
    .strict(),
  z.object({ pgbench: z.literal("seed004") }).strict(),
]);

const querySchema = z
  .object({
    name: z.string().min(1),
    table: z.string().min(1),
    kind: z.enum(["seqscan", "bitmap"]).default("seqscan"),
    /** When the first run starts. */
    start: duration.default(0),
    /** Identical concurrent clients running this query (pgbench -c). */
    clients: z.number().int().positive().default(1),
    /** Runs per client, back to back (pgbench -t); or give `duration` (pgbench -T). */
    runs: z.number().int().positive().default(1),
    duration: duration.optional(),
    /** Stagger between client start times. */
    clientStagger: duration.default(0),
    pg: z.enum(["9.6", "11", "13", "14", "17", "18"]).default("14"),
    workers: z.number().int().nonnegative().default(0),
    parallelLeaderParticipation: z.boolean().default(true),
    allocator: allocatorSchema.optional(),
    synchronizeSeqscans: z.boolean().default(true),
    effectiveIoConcurrency: z.number().int().min(0).max(1000).optional(),
    ioCombineLimit: z.number().int().min(1).max(128).optional(),
    ioMethod: z.enum(["sync", "worker", "io_uring"]).optional(),
    prefetch: z.enum(["pg13", "read-stream", "adaptive", "pg84"]).optional(),
    bitmap: bitmapSchema.optional(),
    /** Fraction of tuples that reach the query's output (work per tuple beyond the scan); informational. */
    note: z.string().optional(),
  })
  .strict();

const scenarioSchemaImpl = z
  .object({
    name: z.string().min(1),
    description: z.string().optional(),
    // The seeded generators take 32 bits (cpu-jitter.ts); 0 to 2^31 - 1 keeps every seed distinct and
    // matches the CLI's --seed.
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 31 - 1)
      .default(1),
    machine: machineSchema,
    tables: z.array(tableSchema).min(1),
    queries: z.array(querySchema).min(1),
    /** Stop the simulation at this simulated time (e.g. pgbench -T); runs still in progress are reported unfinished. */
    until: duration.optional(),
    /** Sample interval for the time series in the result. */
    sampleEvery: duration.optional(),
  })
  .strict();

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
