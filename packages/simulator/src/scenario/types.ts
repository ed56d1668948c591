/**
 * The scenario file's shape, as documented TypeScript types: `ScenarioInput`
 * is what you write (quantities may carry units, most fields have defaults),
 * `Scenario` is the same after validation with every default filled in. The
 * zod schema in schema.ts is checked against both at compile time.
 */
import type { AllocatorPolicy } from "@scanlab/block-allocator";
import type { CpuCosts } from "../engine/pg/cpu-costs.js";

/** A size or duration: a number (bytes or seconds) or a string with a unit ("100GB", "8kB", "3h", "250ms"). */
export type Quantity = number | string;

/** PostgreSQL versions the simulator accepts; pg-model.ts says which model runs for each, per mechanism. */
export type PgVersion = "9.6" | "10" | "11" | "12" | "13" | "14" | "15" | "16" | "17" | "18" | "19";

/**
 * Operating systems and versions: `linux-M.N` (4.20 to 6.18), `freebsd-N` (11 to 14), `windows`, `none`
 * (direct I/O). os-model.ts says which readahead model runs for each.
 */
export type OsName = `linux-${number}.${number}` | `freebsd-${number}` | "windows" | "none";

/**
 * Which parallel block allocator a query uses: @scanlab/block-allocator's
 * policies (pg96, pg11, batch, munro2020, pg14 with its constants). By
 * default PostgreSQL's for the version: pg96 for 9.6 and 10, pg11 for 11-13,
 * pg14 from 14 on (pg-model.ts).
 */
export type AllocatorSpec = AllocatorPolicy;

/**
 * The pgbench bitmap: the pgbench_accounts query of the 2022 eic benchmark.
 * `"seed004"` is its deprecated name, still accepted so existing scenario files keep working.
 */
export type PgbenchBitmap = "bitmap-2022" | "seed004";

/** The bitmap a bitmap heap scan reads (@scanlab/bitmap-prefetch data sets). */
export type BitmapSpec =
  | {
      /** The synthetic table layout of Vondra's 2022 benchmark (pgsql-hackers, “Re: effective_io_concurrency and NVMe devices”): every page random, runs of 8 or 32 pages, or 1000 sequential runs. */
      dataset: "random" | "random-8" | "random-32" | "sequential";
      /** Fraction of the table's pages the query matches (0..1]. */
      selectivity: number;
      /** Seed of the data set and the query range (default 4). */
      seed?: number;
    }
  | {
      /** The pgbench query of Vondra's 2022 benchmark on pgbench_accounts at scale 3000 right after pgbench -i. */
      pgbench: PgbenchBitmap;
    };

/**
 * The plain-file reader of a `kind: "file"` query: one process reads every
 * 8 kB block of the table's file once, one `pread` per block, in `pattern`
 * order, and before reading the i-th block advises (posix_fadvise WILLNEED)
 * the (i + adviseDistance)-th (the first `adviseDistance` blocks are advised
 * before the first read). No shared buffers, no page or tuple work.
 */
export interface FileReadSpec {
  /** Block order: 0, 1, 2, ...; the last block first; or a seeded random permutation. */
  pattern: "forward" | "backward" | "random";
  /** How many reads ahead each block is advised (default 0: no advice). */
  adviseDistance?: number;
  /** Seed of the random permutation (default 1; the same seed as `scanlab scan --pattern random --seed` gives the same order). */
  seed?: number;
}

/** What the OS model is told beyond its version. */
export interface OsOptions {
  /**
   * Linux read_ahead_kb (default: the device's; on linux-6.10 max(2 x io_opt, 128 kB), on linux-5.4
   * 128 kB except an md RAID0's max(2 x io_opt, 128 kB); apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0).
   */
  readAheadKb?: number;
  /** Linux max_sectors_kb (default: the device's largest I/O). */
  maxSectorsKb?: number;
  /** A posix_fadvise PostgreSQL never issues on relation files, for what-if runs. */
  fadvise?: "normal" | "sequential" | "random";
  /** FreeBSD UFS parameters (apps/docs/src/reference/freebsd-ufs-clustering.md#ufs-parameters). */
  freebsd?: {
    /** File system block size (default 32 kB). */
    bsizeBytes?: number;
    /** MAXPHYS (default 128 kB up to 12, 1 MB from 13). */
    maxphysBytes?: number;
    /** vfs.read_max in blocks (default 64). */
    readMax?: number;
  };
  /** The Windows cache-manager model's unknown sizes (apps/docs/src/reference/windows-cache-manager.md#inferred-model; low confidence). */
  windows?: {
    /** Read-ahead granularity G (default 64 kB). */
    granularityBytes?: number;
    /** Size C of a synchronous demand-miss read. */
    demandClusterBytes?: number;
    /** Cache view size V (default 256 kB). */
    viewBytes?: number;
    /** FILE_FLAG_SEQUENTIAL_SCAN (doubles read-ahead). */
    sequentialScan?: boolean;
  };
}

/** The modelled machine, as written. */
export interface MachineInput {
  /** CPU cores; processes beyond them share. */
  cores: number;
  /** RAM: the OS page cache gets RAM minus shared_buffers. */
  ram: Quantity;
  /** shared_buffers (default 128MB). */
  sharedBuffers?: Quantity;
  /** max_connections (default 100; sizes PG18's pin limit). */
  maxConnections?: number;
  /** Operating system and version. */
  os: OsName;
  /** OS parameters. */
  osOptions?: OsOptions;
  /** A built-in device profile name (`scanlab profiles`) or an inline profile (@scanlab/device-profiles schema). */
  device: string | Record<string, unknown>;
  /** CPU costs over the defaults (DEFAULT_CPU_COSTS). */
  cpu?: Partial<CpuCosts>;
}

/** A table, as written. Give exactly one of `size` and `blocks`. */
export interface TableInput {
  /** Name queries refer to. */
  name: string;
  /** Size with a unit ("100GB") or in bytes. */
  size?: Quantity;
  /** Size in 8 kB blocks. */
  blocks?: number;
  /** Heap tuples per page (226 for one int column). */
  tuplesPerPage: number;
  /** RELSEG_SIZE: blocks per segment file (default 131072, 1 GB). */
  segmentBlocks?: number;
  /** A temporary table: no ring, no synchronized scans (default false). */
  temp?: boolean;
  /** Where the table is at the start: nowhere (cold) or in the OS page cache (default "none"). */
  cached?: "none" | "os";
  /**
   * Size in 8 kB blocks of the btree index a bitmap query on this table scans
   * (pg_relation_size / 8192): a serial bitmap heap scan reads the matched
   * share of its leaf pages first. Without it those reads are not modelled.
   */
  indexBlocks?: number;
}

/** A query, as written: a sequential or bitmap heap scan of one table, run by one or more clients. */
export interface QueryInput {
  /** Name in the results. */
  name: string;
  /** The table it scans. */
  table: string;
  /** Sequential scan, bitmap heap scan, or a plain-file reader (default "seqscan"). */
  kind?: "seqscan" | "bitmap" | "file";
  /** When the first run starts (default 0). */
  start?: Quantity;
  /** Identical concurrent clients (pgbench -c, default 1). */
  clients?: number;
  /** Runs per client, back to back (pgbench -t, default 1). */
  runs?: number;
  /** Or keep running until this much time has passed (pgbench -T). */
  duration?: Quantity;
  /** Delay between the clients' start times (default 0). */
  clientStagger?: Quantity;
  /** PostgreSQL version (default "14"). */
  pg?: PgVersion;
  /** parallel_workers (default 0: a serial scan by the backend). */
  workers?: number;
  /** parallel_leader_participation (default true). */
  parallelLeaderParticipation?: boolean;
  /** The block allocator (default: the version's). */
  allocator?: AllocatorSpec;
  /** synchronize_seqscans (default true). */
  synchronizeSeqscans?: boolean;
  /** effective_io_concurrency, 0..1000 (default 1 up to PG17, 16 from PG18). */
  effectiveIoConcurrency?: number;
  /** io_combine_limit in blocks (PG17+, default 16). */
  ioCombineLimit?: number;
  /** io_method (PG18+, default "worker"). */
  ioMethod?: "sync" | "worker" | "io_uring";
  /** Bitmap prefetch policy (default: "pg84" up to PG12, "pg13" for PG13-17, "read-stream" from PG18; "adaptive" is scanlab's). */
  prefetch?: "pg13" | "read-stream" | "adaptive" | "pg84";
  /** The bitmap of a bitmap heap scan. */
  bitmap?: BitmapSpec;
  /** The reader of a `kind: "file"` query. */
  file?: FileReadSpec;
  /** Free text. */
  note?: string;
}

/** A scenario as written in a file or built in code. */
export interface ScenarioInput {
  /** The JSON Schema the file follows (`@scanlab/simulator/scenario.schema.json`), for editors; not read by the simulator. */
  $schema?: string;
  /** Name in the results. */
  name: string;
  /** Free text. */
  description?: string;
  /** Seed of every random choice (default 1): the same seed gives identical results. */
  seed?: number;
  /** The machine. */
  machine: MachineInput;
  /** Its tables. */
  tables: TableInput[];
  /** The queries that run on it. */
  queries: QueryInput[];
  /** Stop at this simulated time (runs in progress are reported unfinished). */
  until?: Quantity;
  /** Sample interval for time series. */
  sampleEvery?: Quantity;
}

/** The machine after validation, with defaults filled in. */
export interface Machine extends MachineInput {
  /** shared_buffers. */
  sharedBuffers: Quantity;
  /** max_connections. */
  maxConnections: number;
  /** OS parameters. */
  osOptions: OsOptions;
  /** CPU costs given (merged over DEFAULT_CPU_COSTS when the run starts). */
  cpu: Partial<CpuCosts>;
}

/** A table after validation, with defaults filled in. */
export interface Table extends TableInput {
  /** Blocks per segment file. */
  segmentBlocks: number;
  /** Temporary table. */
  temp: boolean;
  /** Initial cache state. */
  cached: "none" | "os";
}

/** A query after validation, with defaults filled in. */
export interface Query extends QueryInput {
  /** Scan kind. */
  kind: "seqscan" | "bitmap" | "file";
  /** First start. */
  start: Quantity;
  /** Clients. */
  clients: number;
  /** Runs per client. */
  runs: number;
  /** Client start stagger. */
  clientStagger: Quantity;
  /** PostgreSQL version. */
  pg: PgVersion;
  /** parallel_workers. */
  workers: number;
  /** parallel_leader_participation. */
  parallelLeaderParticipation: boolean;
  /** synchronize_seqscans. */
  synchronizeSeqscans: boolean;
}

/** A scenario after validation, with defaults filled in. */
export interface Scenario extends ScenarioInput {
  /** Seed. */
  seed: number;
  /** The machine. */
  machine: Machine;
  /** Its tables. */
  tables: Table[];
  /** Its queries. */
  queries: Query[];
}
