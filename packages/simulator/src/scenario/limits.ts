/**
 * The range of every number a scenario can hold, with where it comes from.
 *
 * The problem: a scenario file is typed by hand or generated, and a value no
 * PostgreSQL or machine can have (291.5 tuples on a page, a million cores,
 * `shared_buffers` of an exabyte, a start time 1e300 seconds away) either
 * runs to a meaningless result or never finishes. The schema (schema.ts) and
 * the command-line flags take their bounds from this one table, so a value
 * refused in a file is refused as a flag too, with the same figures.
 *
 * The rule: where PostgreSQL or the kernel has a limit, it is that limit,
 * cited by file and constant; where neither has one, the bound is physical
 * sense, and the reason is written beside it. Integers are integers where
 * PostgreSQL or the kernel counts in integers (tuples, workers, blocks,
 * kilobytes of readahead).
 */

import { BLCKSZ } from "@scanlab/core";

/** A closed range of allowed values. */
export interface ScenarioRange {
  /** Smallest allowed value. */
  readonly min: number;
  /** Largest allowed value. */
  readonly max: number;
  /** Whether only whole numbers are allowed. */
  readonly integer: boolean;
  /** Where the bounds come from, in a few words (shown in error messages). */
  readonly source: string;
}

const range = (min: number, max: number, integer: boolean, source: string): ScenarioRange =>
  Object.freeze({ min, max, integer, source });

/** BLCKSZ. */
const BLOCK_BYTES = BLCKSZ;
/** INT_MAX of C. */
const INT_MAX = 2 ** 31 - 1;

/**
 * Largest time the engine keeps exactly: its clock counts microseconds in a
 * double, exact for whole numbers up to 2^53 (about 285 years of simulated time).
 */
export const MAX_SIMULATED_US = Number.MAX_SAFE_INTEGER;

/**
 * Largest memory any machine has: x86-64 and arm64 physical addresses are at
 * most 52 bits (MAXPHYADDR, Intel SDM vol. 3A section 4.1.4; Arm ARMv8.2-LPA),
 * so 2^52 bytes (4 PiB). Also the bound of every other byte size that lives
 * in memory (a readahead window, a FreeBSD cluster, a Windows cache view).
 */
export const MAX_MEMORY_BYTES = 2 ** 52;

/** Every bound a scenario's numbers are checked against. */
export const SCENARIO_LIMITS = Object.freeze({
  /** machine.cores. */
  cores: range(
    1,
    8192,
    true,
    "NR_CPUS_RANGE_END with MAXSMP in the kernel's arch/x86/Kconfig: the most CPUs Linux can be built for",
  ),
  /** A size in bytes with no other bound (a table's size, whose blocks are checked across fields). */
  sizeBytes: range(0, Number.MAX_SAFE_INTEGER, true, "a count of bytes is exact up to 2^53 - 1, 8 PiB"),
  /** machine.ram, bytes (at least shared_buffers plus one byte: checked across fields). */
  ramBytes: range(1, MAX_MEMORY_BYTES, true, "52-bit physical addresses, MAXPHYADDR: 4 PiB"),
  /** machine.sharedBuffers, bytes. */
  sharedBuffersBytes: range(
    16 * BLOCK_BYTES,
    Math.floor(INT_MAX / 2) * BLOCK_BYTES,
    true,
    "shared_buffers in guc_tables.c: 16 to INT_MAX / 2 buffers of 8 kB",
  ),
  /** machine.maxConnections. */
  maxConnections: range(
    1,
    0x3ffff,
    true,
    "max_connections in guc_tables.c: 1 to MAX_BACKENDS, 0x3FFFF in src/include/postmaster/postmaster.h",
  ),
  /** machine.osOptions.readAheadKb (also at most machine.ram: checked across fields). */
  readAheadKb: range(
    0,
    (2 ** 32 - 1) * 4,
    true,
    "struct file_ra_state in include/linux/fs.h counts readahead in unsigned int pages of 4 kB",
  ),
  /** machine.osOptions.maxSectorsKb. */
  maxSectorsKb: range(
    4,
    Math.floor(((2 ** 32 - 1) * 512) / 1024),
    true,
    "queue_max_sectors_store in block/blk-sysfs.c refuses less than one 4 kB page; max_hw_sectors is an unsigned int of 512-byte sectors",
  ),
  /** machine.osOptions.freebsd.bsizeBytes (a power of two). */
  freebsdBsizeBytes: range(
    4096,
    65536,
    true,
    "UFS block size: MINBSIZE 4096 in sys/ufs/ffs/fs.h to MAXBSIZE 65536 in sys/sys/param.h",
  ),
  /** machine.osOptions.freebsd.maxphysBytes (also at most machine.ram). */
  freebsdMaxphysBytes: range(
    4096,
    MAX_MEMORY_BYTES,
    true,
    "at least one 4 kB page; one I/O cannot be larger than memory",
  ),
  /** machine.osOptions.freebsd.readMax. */
  freebsdReadMax: range(1, INT_MAX, true, "vfs.read_max is a SYSCTL_INT in sys/kern/vfs_cluster.c"),
  /** machine.osOptions.windows sizes, bytes (also at most machine.ram). */
  windowsBytes: range(1, MAX_MEMORY_BYTES, true, "a cache-manager size cannot be larger than memory"),
  /** machine.cpu times per operation, microseconds. */
  cpuUs: range(
    0,
    1e6,
    false,
    "physical sense: one second per page, tuple, system call or worker start is beyond the slowest real machine, and larger values only overflow run times",
  ),
  /** machine.cpu.copyBytesPerUs. */
  copyBytesPerUs: range(
    1,
    1e7,
    false,
    "physical sense: 1 MB/s, a 1980s machine, to 10 TB/s, above any memory bandwidth: HBM3 gives about 3 TB/s per package",
  ),
  /** machine.cpu.jitter. */
  cpuJitter: range(0, 0.9, false, "a relative spread of CPU time below 90%, cpu-jitter.ts"),
  /** tables[].name, bytes of UTF-8. */
  tableNameBytes: range(
    1,
    63,
    true,
    "NAMEDATALEN - 1 in src/include/pg_config_manual.h: PostgreSQL cuts longer names",
  ),
  /** tables[].blocks (and size in blocks: checked across fields). */
  tableBlocks: range(
    0,
    0xfffffffe,
    true,
    "BlockNumber is 32-bit and MaxBlockNumber is 0xFFFFFFFE, src/include/storage/block.h",
  ),
  /** tables[].tuplesPerPage. */
  tuplesPerPage: range(
    1,
    291,
    true,
    "MaxHeapTuplesPerPage at BLCKSZ 8192, src/include/access/htup_details.h",
  ),
  /** tables[].segmentBlocks. */
  segmentBlocks: range(
    1,
    0xffffffff,
    true,
    "RELSEG_SIZE is stored as the uint32 relseg_size of pg_control, src/include/catalog/pg_control.h",
  ),
  /** queries[].clients. */
  clients: range(
    1,
    0x3ffff,
    true,
    "each client is a backend: MAX_BACKENDS, src/include/postmaster/postmaster.h",
  ),
  /** queries[].runs. */
  runs: range(1, INT_MAX, true, "pgbench -t is the int nxacts of src/bin/pgbench/pgbench.c"),
  /** queries[].workers. */
  workers: range(
    0,
    1024,
    true,
    "max_parallel_workers_per_gather in guc_tables.c: 0 to MAX_PARALLEL_WORKER_LIMIT, 1024 in src/include/postmaster/bgworker.h",
  ),
  /** queries[].effectiveIoConcurrency. */
  effectiveIoConcurrency: range(
    0,
    1000,
    true,
    "effective_io_concurrency in guc_tables.c: 0 to MAX_IO_CONCURRENCY, 1000 in src/include/storage/bufmgr.h",
  ),
  /** queries[].ioCombineLimit, blocks. */
  ioCombineLimit: range(
    1,
    128,
    true,
    "io_combine_limit in guc_tables.c: 1 to MAX_IO_COMBINE_LIMIT, 128 blocks in PG18's src/include/storage/bufmgr.h",
  ),
  /** queries[].file.adviseDistance, blocks (also checked against the table's size). */
  adviseDistance: range(
    0,
    0xfffffffe,
    true,
    "a distance in blocks within one file of at most MaxBlockNumber blocks, src/include/storage/block.h",
  ),
  /** Allocator claim and chunk sizes, blocks. */
  claimBlocks: range(
    1,
    0x80000000,
    true,
    "a chunk size is the uint32 phsw_chunk_size of src/backend/access/table/tableam.c",
  ),
  /** Allocator chunk counts. */
  chunkCount: range(1, 0xffffffff, true, "a count of chunks of a table of at most 2^32 - 1 blocks"),
  /** Seeds (scenario and bitmap data set). */
  seed: range(
    0,
    INT_MAX,
    true,
    "the seeded generators take 32 bits, cpu-jitter.ts, as the CLI's --seed does",
  ),
} satisfies Record<string, ScenarioRange>);

/** The name of a bound in {@link SCENARIO_LIMITS}. */
export type ScenarioLimitName = keyof typeof SCENARIO_LIMITS;

/**
 * The problem with `value` against a bound, as the end of a sentence
 * ("must be a whole number from 1 to 291 (MaxHeapTuplesPerPage ...), got 292"),
 * or null when it is within it.
 *
 * @example
 * ```ts
 * import { limitProblem, SCENARIO_LIMITS } from "@scanlab/simulator";
 * limitProblem(SCENARIO_LIMITS.tuplesPerPage, 292); // "must be a whole number from 1 to 291 (...), got 292"
 * ```
 */
export function limitProblem(limit: ScenarioRange, value: number): string | null {
  const ok =
    Number.isFinite(value) &&
    value >= limit.min &&
    value <= limit.max &&
    (!limit.integer || Number.isSafeInteger(value));
  if (ok) return null;
  const what = limit.integer ? "a whole number" : "a number";
  return `must be ${what} from ${limit.min} to ${limit.max} (${limit.source}), got ${value}`;
}
