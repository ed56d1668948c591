/**
 * Scenario flags: the simulator's scenario fields as command-line flags named
 * after the PostgreSQL settings (and plain quantities) a DBA would name.
 *
 * One table drives `simulate` (flags alone, or flags over a scenario file),
 * `sweep --vary NAME=...` (any flag below is a NAME), and `advise`. Flags
 * are applied in the order of {@link SCENARIO_FLAGS}, so a flag can check the
 * ones it depends on (`--chunk-cap` needs the PG14+ allocator, `--read-ahead-kb`
 * needs Linux). Table flags apply to every table of the scenario, query flags
 * to every query, which is what a what-if on a scenario file means.
 *
 * Defaults of a scenario built from flags alone ({@link DEFAULT_SCENARIO}):
 * a 1 GB table of 226 int rows per page (the single-int-column table of
 * apps/docs/src/reference/experiments.md#t1-freebsd-ufs-striding-and-64-block-chunks), PostgreSQL 14, 2 workers (PostgreSQL's default
 * max_parallel_workers_per_gather), shared_buffers 128MB (PostgreSQL's
 * default), Linux 5.4 with its default 128 kB readahead, an 8-core 16 GB
 * machine with a Samsung 990 PRO (a current NVMe drive from the built-in
 * datasheet profiles).
 */

import { BLCKSZ, formatSettingSize } from "@scanlab/core";
import {
  acceptedOsNames,
  defaultAllocator,
  isOsName,
  type OsName,
  PG_VERSIONS,
  SCENARIO_LIMITS,
  type ScenarioInput,
  type ScenarioRange,
} from "@scanlab/simulator";
import { formatAllocator, parseAllocator } from "./allocator-arg.js";
import { resolveDeviceArg } from "./device-arg.js";
import { CliError } from "./errors.js";
import {
  parseChoice,
  parseDurationFlag,
  parseFraction,
  parseIntFlag,
  parseOnOff,
  parseSettingFlag,
  parseSizeFlag,
  type SettingUnit,
} from "./options.js";

/** A scenario being assembled from a file and flags (loosely typed: the simulator validates it). */
export interface ScenarioDraft {
  /** Scenario name. */
  name: string;
  /** Seed. */
  seed?: number;
  /** The machine, with its OS options (fields as in the simulator's MachineInput). */
  machine: Record<string, unknown> & MachineDraftOs;
  /** Tables (fields as in TableInput). */
  tables: Record<string, unknown>[];
  /** Queries (fields as in QueryInput). */
  queries: Record<string, unknown>[];
  /** Any other scenario field, passed through. */
  [field: string]: unknown;
}

/** The OS options of a draft machine. */
export interface MachineDraftOs {
  /** OS options (fields as in the simulator's OsOptions). */
  osOptions?: Record<string, unknown>;
}

/** One scenario flag. */
export interface ScenarioFlag {
  /** Flag name without dashes (`table-size`). */
  name: string;
  /** Argument placeholder for help (`SIZE`). */
  arg: string;
  /** Help text, naming the PostgreSQL setting when there is one. */
  help: string;
  /** Other names a DBA would type for it (PostgreSQL settings named otherwise), accepted as flags and in `--vary`. */
  aliases?: readonly string[];
  /** Parses a raw value (throws a one-sentence CliError). */
  parse(raw: string): unknown;
  /** Applies a parsed value to the draft (throws CliError on a conflict with the draft). */
  apply(draft: ScenarioDraft, value: unknown): void;
  /** The value as a table header or a command line writes it. */
  format(value: unknown): string;
}

/*
 * Ranges: a flag takes the bounds the scenario schema has for its field
 * (SCENARIO_LIMITS of @scanlab/simulator, each with its PostgreSQL, kernel or
 * physical source), so a value refused in a file is refused as a flag with
 * the same figures, and the scenario the flags build is then checked by that
 * schema as a whole. A few flags are narrower than the schema; they say so.
 */
const L = SCENARIO_LIMITS;
/** An integer flag within a scenario bound. */
const intIn = (raw: string, flag: string, r: ScenarioRange) => parseIntFlag(raw, flag, r.min, r.max);
/** A setting that counts its own unit (a bare number is in that unit, a size is converted). */
const settingIn = (raw: string, flag: string, unit: SettingUnit, r: ScenarioRange) =>
  parseSettingFlag(raw, flag, unit, r);
const PAGES: SettingUnit = { bytes: BLCKSZ, name: "pages of 8 kB", example: "128MB" };
const BLOCKS: SettingUnit = { bytes: BLCKSZ, name: "blocks of 8 kB", example: "128kB" };
const KB: SettingUnit = { bytes: 1024, name: "kB", example: "1MB" };
/** A size flag within a scenario bound in bytes. */
const sizeIn = (raw: string, flag: string, r: ScenarioRange, minBytes = r.min) => {
  parseSizeFlag(raw, flag, minBytes, { bytes: r.max, why: r.source });
  return raw.trim();
};
/** Bitmap defaults when only part of a bitmap is given: scattered pages, 5% of the table (apps/docs/src/reference/experiments.md#t7-c-synthetic-data-sets ranges over 1-50%). */
const DEFAULT_DATASET = "random";
const DEFAULT_SELECTIVITY = 0.05;

function forQueries(d: ScenarioDraft, f: (q: Record<string, unknown>, i: number) => void): void {
  d.queries.forEach(f);
}
function forTables(d: ScenarioDraft, f: (t: Record<string, unknown>) => void): void {
  d.tables.forEach(f);
}
function osOptions(d: ScenarioDraft): Record<string, unknown> {
  d.machine.osOptions ??= {};
  return d.machine.osOptions;
}
const str = (v: unknown) => String(v);
const onOff = (v: unknown) => (v ? "on" : "off");

/** Linux block-device settings: the simulator reads them only for a Linux OS, so elsewhere they would be ignored. */
function requireLinux(d: ScenarioDraft, flag: string): void {
  if (!String(d.machine.os).startsWith("linux")) {
    throw new CliError(
      "CLI_CONFLICT",
      `--${flag} is a Linux setting, but the scenario's OS is ${String(d.machine.os)}: use --os linux-M.N (e.g. linux-6.1), or drop it.`,
    );
  }
}

/**
 * `--os`: a name os-model.ts accepts (linux-M.N, freebsd-N, windows, none),
 * else one sentence listing them. A Linux release as `uname -r` prints it
 * (`linux-6.1.0-18-amd64`, `Linux 6.1.0`) is read as its M.N.
 */
function parseOs(raw: string): OsName {
  const lower = raw.trim().toLowerCase();
  const release = /^linux[\s-]+(\d+\.\d+)(?:[.-].*)?$/.exec(lower);
  const v = release === null ? lower.replace(/\s+/, "-") : `linux-${release[1]}`;
  if (!isOsName(v)) {
    throw new CliError(
      "CLI_UNKNOWN_NAME",
      `--os "${raw}" is not an OS scanlab models: use ${acceptedOsNames()}.`,
    );
  }
  return v;
}

/**
 * `--pg`: a major version (`16`, `9.6`), also as `SHOW server_version` or
 * `SELECT version()` names a release (`16.4`, `9.6.24`, `PostgreSQL 16.4`):
 * from PostgreSQL 10 the first number is the major version, before it the
 * first two.
 */
function parsePg(raw: string): (typeof PG_VERSIONS)[number] {
  const m = /^(?:postgresql|postgres|pg)?[\s-]*(\d+)(?:\.(\d+))?(?:\.\d+)?(?:\s.*)?$/i.exec(raw.trim());
  const major = m === null ? raw.trim() : Number(m[1]) >= 10 ? m[1]! : `${m[1]}.${m[2] ?? ""}`;
  return parseChoice(major, "pg", PG_VERSIONS, raw);
}

function bitmapOf(q: Record<string, unknown>): Record<string, unknown> {
  const b = q.bitmap as Record<string, unknown> | undefined;
  if (b === undefined || "pgbench" in b)
    return { dataset: DEFAULT_DATASET, selectivity: DEFAULT_SELECTIVITY };
  return { ...b };
}

function requireBitmapWorkload(q: Record<string, unknown>, flag: string): void {
  if (q.kind === "seqscan" && q.__workloadGiven === true) {
    throw new CliError(
      "CLI_CONFLICT",
      `--${flag} describes a bitmap heap scan, but --workload is seqscan: drop one of them.`,
    );
  }
  q.kind = "bitmap";
}

/** Every scenario flag, in the order they are applied. */
export const SCENARIO_FLAGS: readonly ScenarioFlag[] = [
  {
    name: "os",
    arg: "NAME",
    help: `operating system and version: ${acceptedOsNames()}`,
    parse: parseOs,
    apply: (d, v) => {
      d.machine.os = v;
    },
    format: str,
  },
  {
    name: "device",
    arg: "NAME|FILE",
    help: "storage device: a built-in profile (scanlab profiles list) or a profile file (scanlab calibrate)",
    parse: (raw) => resolveDeviceArg(raw),
    apply: (d, v) => {
      d.machine.device = (v as ReturnType<typeof resolveDeviceArg>).device;
    },
    format: (v) => (v as ReturnType<typeof resolveDeviceArg>).label,
  },
  {
    name: "cores",
    arg: "N",
    help: "CPU cores of the machine",
    parse: (raw) => intIn(raw, "cores", L.cores),
    apply: (d, v) => {
      d.machine.cores = v;
    },
    format: str,
  },
  {
    name: "ram",
    arg: "SIZE",
    help: "memory of the machine (e.g. 64GB); the OS page cache gets what shared_buffers leaves",
    // 1 MB: a floor of the flag's (the schema asks only for more than shared_buffers).
    parse: (raw) => sizeIn(raw, "ram", L.ramBytes, 1 << 20),
    apply: (d, v) => {
      d.machine.ram = v;
    },
    format: str,
  },
  {
    name: "shared-buffers",
    arg: "SIZE",
    help: "shared_buffers: a size, or a bare number of 8 kB pages as in postgresql.conf (default 128MB)",
    parse: (raw) =>
      formatSettingSize(
        settingIn(raw, "shared-buffers", PAGES, {
          ...L.sharedBuffersBytes,
          min: L.sharedBuffersBytes.min / BLCKSZ,
          max: L.sharedBuffersBytes.max / BLCKSZ,
        }) * BLCKSZ,
      ),
    apply: (d, v) => {
      d.machine.sharedBuffers = v;
    },
    format: str,
  },
  {
    name: "max-connections",
    arg: "N",
    help: "max_connections (sizes PG17+'s bulk-read ring; default 100)",
    parse: (raw) => intIn(raw, "max-connections", L.maxConnections),
    apply: (d, v) => {
      d.machine.maxConnections = v;
    },
    format: str,
  },
  {
    name: "read-ahead-kb",
    arg: "KB",
    help: "Linux read_ahead_kb of the device: kB, or a size (default: the device's, 128 for one disk)",
    parse: (raw) => settingIn(raw, "read-ahead-kb", KB, L.readAheadKb),
    apply: (d, v) => {
      requireLinux(d, "read-ahead-kb");
      osOptions(d).readAheadKb = v;
    },
    format: str,
  },
  {
    name: "max-sectors-kb",
    arg: "KB",
    help: "Linux max_sectors_kb: the largest request the block layer sends (kB, or a size)",
    parse: (raw) => settingIn(raw, "max-sectors-kb", KB, L.maxSectorsKb),
    apply: (d, v) => {
      requireLinux(d, "max-sectors-kb");
      osOptions(d).maxSectorsKb = v;
    },
    format: str,
  },
  {
    name: "table-size",
    arg: "SIZE",
    help: "size of the table (e.g. 100GB; 8 kB blocks)",
    // At least one 8 kB block; the blocks it comes to are checked by the schema.
    parse: (raw) => sizeIn(raw, "table-size", L.sizeBytes, 8192),
    apply: (d, v) =>
      forTables(d, (t) => {
        delete t.blocks;
        t.size = v;
      }),
    format: str,
  },
  {
    name: "table-blocks",
    arg: "N",
    help: "size of the table in 8 kB blocks (instead of --table-size)",
    parse: (raw) => parseIntFlag(raw, "table-blocks", 1, L.tableBlocks.max),
    apply: (d, v) =>
      forTables(d, (t) => {
        delete t.size;
        t.blocks = v;
      }),
    format: str,
  },
  {
    name: "tuples-per-page",
    arg: "N",
    help: `heap tuples per 8 kB page (226 for one int column, ${L.tuplesPerPage.min} to ${L.tuplesPerPage.max}: MaxHeapTuplesPerPage)`,
    parse: (raw) => intIn(raw, "tuples-per-page", L.tuplesPerPage),
    apply: (d, v) =>
      forTables(d, (t) => {
        t.tuplesPerPage = v;
      }),
    format: str,
  },
  {
    name: "cache",
    arg: "cold|warm",
    help: "where the table starts: cold (caches dropped) or warm (in the OS page cache)",
    parse: (raw) => parseChoice(raw, "cache", ["cold", "warm"] as const),
    apply: (d, v) =>
      forTables(d, (t) => {
        t.cached = v === "warm" ? "os" : "none";
      }),
    format: str,
  },
  {
    name: "pg",
    arg: "VERSION",
    help: `PostgreSQL version (${PG_VERSIONS.join(", ")})`,
    parse: parsePg,
    apply: (d, v) =>
      forQueries(d, (q) => {
        q.pg = v;
      }),
    format: str,
  },
  {
    name: "workload",
    arg: "seqscan|bitmap",
    help: "a sequential scan, or a bitmap heap scan (see --dataset, --selectivity)",
    parse: (raw) => parseChoice(raw, "workload", ["seqscan", "bitmap"] as const),
    apply: (d, v) =>
      forQueries(d, (q) => {
        q.kind = v;
        q.__workloadGiven = true;
        if (v === "bitmap" && q.bitmap === undefined) q.bitmap = bitmapOf(q);
        if (v === "seqscan") delete q.bitmap;
      }),
    format: str,
  },
  {
    name: "dataset",
    arg: "NAME",
    help: "bitmap heap scan pages: the synthetic data sets of T7 c (random, random-8, random-32, sequential) or pgbench (T7 b)",
    parse: (raw) =>
      parseChoice(raw, "dataset", ["random", "random-8", "random-32", "sequential", "pgbench"] as const),
    apply: (d, v) =>
      forQueries(d, (q) => {
        requireBitmapWorkload(q, "dataset");
        q.bitmap = v === "pgbench" ? { pgbench: "bitmap-2022" } : { ...bitmapOf(q), dataset: v };
      }),
    format: str,
  },
  {
    name: "selectivity",
    arg: "FRACTION",
    help: "share of the table's pages a bitmap heap scan reads (0.05 or 5%)",
    parse: (raw) => parseFraction(raw, "selectivity"),
    apply: (d, v) =>
      forQueries(d, (q) => {
        requireBitmapWorkload(q, "selectivity");
        const b = q.bitmap as Record<string, unknown> | undefined;
        if (b !== undefined && "pgbench" in b) {
          throw new CliError(
            "CLI_CONFLICT",
            "--selectivity does not apply to --dataset pgbench (its query fixes the range): drop one of them.",
          );
        }
        q.bitmap = { ...bitmapOf(q), selectivity: v };
      }),
    format: (v) => `${+((v as number) * 100).toFixed(4)}%`,
  },
  {
    name: "workers",
    arg: "N",
    help: "parallel workers (max_parallel_workers_per_gather / parallel_workers); 0 = serial",
    aliases: ["max-parallel-workers-per-gather", "parallel-workers"],
    parse: (raw) => intIn(raw, "workers", L.workers),
    apply: (d, v) =>
      forQueries(d, (q) => {
        q.workers = v;
      }),
    format: str,
  },
  {
    name: "parallel-leader-participation",
    arg: "on|off",
    help: "parallel_leader_participation",
    parse: (raw) => parseOnOff(raw, "parallel-leader-participation"),
    apply: (d, v) =>
      forQueries(d, (q) => {
        q.parallelLeaderParticipation = v;
      }),
    format: onOff,
  },
  {
    name: "allocator",
    arg: "KIND",
    help: "parallel block allocator: pg96, pg11, batch[:N], munro2020[:N], pg14[:CAP|none] (default: the version's)",
    parse: (raw) => parseAllocator(raw),
    apply: (d, v) =>
      forQueries(d, (q) => {
        q.allocator = v;
      }),
    format: (v) => formatAllocator(v as ReturnType<typeof parseAllocator>),
  },
  {
    name: "chunk-cap",
    arg: "BLOCKS|none",
    help: "PARALLEL_SEQSCAN_MAX_CHUNK_SIZE of the PG14+ allocator (default 8192; none = uncapped)",
    parse: (raw) => (raw.trim().toLowerCase() === "none" ? null : parseIntFlag(raw, "chunk-cap", 1, 1 << 30)),
    apply: (d, v) =>
      forQueries(d, (q) => {
        const current =
          (q.allocator as { kind: string } | undefined) ??
          defaultAllocator((q.pg as (typeof PG_VERSIONS)[number] | undefined) ?? "14");
        if (current.kind !== "pg14") {
          throw new CliError(
            "CLI_CONFLICT",
            `--chunk-cap sets the PG14+ chunk allocator's cap, but the query uses the ${current.kind} allocator: use --pg 14 or later, or --allocator pg14.`,
          );
        }
        q.allocator = { ...current, kind: "pg14", maxChunkBlocks: v };
      }),
    format: (v) => (v === null ? "none" : String(v)),
  },
  {
    name: "synchronize-seqscans",
    arg: "on|off",
    help: "synchronize_seqscans (default on)",
    parse: (raw) => parseOnOff(raw, "synchronize-seqscans"),
    apply: (d, v) =>
      forQueries(d, (q) => {
        q.synchronizeSeqscans = v;
      }),
    format: onOff,
  },
  {
    name: "effective-io-concurrency",
    arg: "N",
    help: "effective_io_concurrency, 0 to 1000 (default 1; 16 from PG18)",
    parse: (raw) => intIn(raw, "effective-io-concurrency", L.effectiveIoConcurrency),
    apply: (d, v) =>
      forQueries(d, (q) => {
        q.effectiveIoConcurrency = v;
      }),
    format: str,
  },
  {
    name: "io-combine-limit",
    arg: "N|SIZE",
    help: "io_combine_limit, PG17+: 8 kB blocks, or a size as SHOW prints it (default 16 = 128kB)",
    parse: (raw) => settingIn(raw, "io-combine-limit", BLOCKS, L.ioCombineLimit),
    apply: (d, v) =>
      forQueries(d, (q) => {
        q.ioCombineLimit = v;
      }),
    format: str,
  },
  {
    name: "io-method",
    arg: "NAME",
    help: "io_method, PG18 (sync, worker, io_uring)",
    parse: (raw) => parseChoice(raw, "io-method", ["sync", "worker", "io_uring"] as const),
    apply: (d, v) =>
      forQueries(d, (q) => {
        q.ioMethod = v;
      }),
    format: str,
  },
  {
    name: "prefetch",
    arg: "NAME",
    help: "bitmap prefetcher: pg84, pg13, read-stream, adaptive (default: the version's)",
    parse: (raw) => parseChoice(raw, "prefetch", ["pg84", "pg13", "read-stream", "adaptive"] as const),
    apply: (d, v) =>
      forQueries(d, (q) => {
        q.prefetch = v;
      }),
    format: str,
  },
  {
    name: "clients",
    arg: "N",
    help: "identical concurrent clients running the query (pgbench -c)",
    // 10000: narrower than the schema's MAX_BACKENDS, a bound of the flag's.
    parse: (raw) => parseIntFlag(raw, "clients", 1, 10000),
    apply: (d, v) =>
      forQueries(d, (q) => {
        q.clients = v;
      }),
    format: str,
  },
  {
    name: "runs",
    arg: "N",
    help: "runs per client, back to back (pgbench -t)",
    // 1,000,000: narrower than the schema's INT_MAX, a bound of the flag's.
    parse: (raw) => parseIntFlag(raw, "runs", 1, 1_000_000),
    apply: (d, v) =>
      forQueries(d, (q) => {
        q.runs = v;
        delete q.duration;
      }),
    format: str,
  },
  {
    name: "duration",
    arg: "TIME",
    help: "run each client for this long instead of --runs (pgbench -T), e.g. 10min",
    parse: (raw) => parseDurationFlag(raw, "duration"),
    apply: (d, v) =>
      forQueries(d, (q) => {
        q.duration = v;
      }),
    format: str,
  },
  {
    name: "client-stagger",
    arg: "TIME",
    help: "delay between the clients' start times",
    parse: (raw) => parseDurationFlag(raw, "client-stagger"),
    apply: (d, v) =>
      forQueries(d, (q) => {
        q.clientStagger = v;
      }),
    format: str,
  },
];

/** Pairs of flags that cannot be given together. */
export const CONFLICTING_FLAGS: readonly [string, string][] = [
  ["table-size", "table-blocks"],
  ["runs", "duration"],
];

/** A scenario flag by name (without dashes), or undefined. */
export function scenarioFlag(name: string): ScenarioFlag | undefined {
  const n = name.toLowerCase().replace(/_/g, "-");
  return SCENARIO_FLAGS.find((f) => f.name === n || f.aliases?.includes(n) === true);
}

/** The scenario `simulate` starts from when no file is given (see the file header). */
export const DEFAULT_SCENARIO: ScenarioDraft = {
  name: "scanlab simulate",
  seed: 1,
  machine: { cores: 8, ram: "16GB", sharedBuffers: "128MB", os: "linux-5.4", device: "samsung-990-pro-1tb" },
  tables: [{ name: "t", size: "1GB", tuplesPerPage: 226 }],
  queries: [{ name: "scan", table: "t", pg: "14", workers: 2 }],
};

/** Parsed flag values, in application order. */
export type ParsedFlags = ParsedFlag[];

/** One flag as given on the command line and parsed. */
export interface ParsedFlag {
  /** Which flag. */
  flag: ScenarioFlag;
  /** The text given. */
  raw: string;
  /** The parsed value. */
  value: unknown;
}

/** Parses raw flag values (name -> raw string) in the order of {@link SCENARIO_FLAGS}. */
export function parseScenarioFlags(raw: Readonly<Record<string, string | undefined>>): ParsedFlags {
  for (const [a, b] of CONFLICTING_FLAGS) {
    if (raw[a] !== undefined && raw[b] !== undefined) {
      throw new CliError("CLI_CONFLICT", `--${a} and --${b} cannot be given together: keep one of them.`);
    }
  }
  const out: ParsedFlags = [];
  for (const flag of SCENARIO_FLAGS) {
    const r = raw[flag.name];
    if (r !== undefined) out.push({ flag, raw: r, value: flag.parse(r) });
  }
  return out;
}

/** Applies parsed flags to a copy of `base` and returns it (the base is not changed). */
export function applyScenarioFlags(base: ScenarioDraft, flags: ParsedFlags, seed?: number): ScenarioInput {
  const draft = structuredClone(base) as ScenarioDraft;
  const order = new Map(SCENARIO_FLAGS.map((f, i) => [f.name, i]));
  const sorted = [...flags].sort((a, b) => order.get(a.flag.name)! - order.get(b.flag.name)!);
  for (const { flag, value } of sorted) flag.apply(draft, value);
  for (const q of draft.queries) delete q.__workloadGiven;
  if (seed !== undefined) draft.seed = seed;
  return draft as unknown as ScenarioInput;
}

/** A word as a POSIX shell reads it back: quoted when it holds anything but plain characters. */
function shellWord(word: string): string {
  return /^[\w.,:%/+=@-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The flags as a command line writes them (`--table-size 100GB --workers 4`), ready to run again. */
export function formatFlags(flags: ParsedFlags): string {
  return flags
    .map(({ flag, value }) => {
      // A profile file is given again as its file: its profile name is no built-in name.
      const file = flag.name === "device" ? (value as ReturnType<typeof resolveDeviceArg>).file : null;
      return `--${flag.name} ${shellWord(file ?? flag.format(value))}`;
    })
    .join(" ");
}
