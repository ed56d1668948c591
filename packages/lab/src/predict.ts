/**
 * The simulator's prediction of a cell: the same table, query and settings on
 * a modelled machine (the calibrated profile, or a default one).
 *
 * Choices.
 * - Machine: the measured machine's cores and RAM, the cluster's shared_buffers and
 *   max_connections, the kernel line (Linux <= 6.9 or >= 6.10, from
 *   os.release()), and the cell's read_ahead_kb (the device's own value when
 *   the cell keeps it).
 * - Warm cells start with the table in the OS page cache (`cached: "os"`) and
 *   empty shared buffers, which is what the runner does (the server is
 *   restarted before every run); cold cells start with nothing cached.
 * - PostgreSQL majors without their own scan behaviour in the simulator map to
 *   the version whose behaviour they share: 15 and 16 to 14 (chunked parallel
 *   allocation, PG13-style bitmap prefetch; the read stream arrived in 17 for
 *   seq scans and in 18 for bitmap heap scans).
 * - A bitmap cell's table carries its index's size as built, so the
 *   simulator reads the index's leaf pages before the heap.
 * - CPU: the per-page and per-tuple costs fitted from the version's fit cells
 *   when there is a fit (cpu-fit.ts), else the simulator's documented
 *   defaults; the result says which.
 */
import { release } from "node:os";
import {
  type CpuCosts,
  DEFAULT_CPU_COSTS,
  type PgVersion,
  type QueryInput,
  type ScenarioInput,
  simulate,
} from "@scanlab/simulator";
import type { Cell, LabTable } from "./cells.js";
import { BITMAP_TABLE_SEED } from "./tables.js";

/** The modelled machine a lab run predicts on. */
export interface LabMachine {
  /** CPU cores. */
  readonly cores: number;
  /** RAM in bytes. */
  readonly ramBytes: number;
  /** The clusters' shared_buffers in bytes. */
  readonly sharedBuffersBytes: number;
  /** The clusters' max_connections. */
  readonly maxConnections: number;
  /** Kernel line of the OS model. */
  readonly os: "linux-5.4" | "linux-6.10";
  /** read_ahead_kb of the device holding PGDATA (null: the model's default). */
  readonly readAheadKb: number | null;
  /** A built-in device profile name or a parsed profile (scanlab calibrate). */
  readonly device: string | Record<string, unknown>;
}

/** What the simulator predicts for a cell. */
export interface Prediction {
  /** Mean duration of a scan, ms. */
  readonly timeMs: number;
  /** Bytes read from the device. */
  readonly deviceBytes: number;
  /** Average device read, bytes (null when nothing was read). */
  readonly avgRequestBytes: number | null;
  /** Shared buffer hits and misses. */
  readonly sharedHitBlocks: number;
  /** Shared buffer misses. */
  readonly sharedReadBlocks: number;
}

/** The kernel line of a Linux release string ("6.1.0-18-amd64" -> linux-5.4 behaviour, 6.10+ -> linux-6.10). */
export function kernelLine(kernelRelease: string = release()): "linux-5.4" | "linux-6.10" {
  const m = /^(\d+)\.(\d+)/.exec(kernelRelease);
  if (!m) return "linux-5.4";
  const [maj, min] = [Number(m[1]), Number(m[2])];
  return maj > 6 || (maj === 6 && min >= 10) ? "linux-6.10" : "linux-5.4";
}

/** The simulator's PostgreSQL version for a real major. */
export function simulatorPg(major: number): PgVersion {
  if (major >= 18) return "18";
  if (major === 17) return "17";
  if (major >= 14) return "14";
  if (major === 13) return "13";
  return "11";
}

/** The scenario that predicts `cell`. */
export function cellScenario(
  cell: Cell,
  table: LabTable,
  machine: LabMachine,
  cpu: Partial<CpuCosts> = {},
): ScenarioInput {
  const readAheadKb = cell.readAheadKb ?? machine.readAheadKb;
  const query: QueryInput = {
    name: cell.id,
    table: table.name,
    kind: cell.scan,
    clients: cell.clients,
    pg: simulatorPg(cell.pg),
    workers: cell.workers,
    synchronizeSeqscans: cell.synchronizeSeqscans,
    ...(cell.eic === null ? {} : { effectiveIoConcurrency: cell.eic }),
    ...(cell.ioMethod === null ? {} : { ioMethod: cell.ioMethod }),
    ...(cell.ioCombineLimit === null ? {} : { ioCombineLimit: cell.ioCombineLimit }),
    ...(cell.scan === "bitmap"
      ? {
          bitmap: {
            dataset: table.layout ?? "random",
            selectivity: cell.selectivity ?? 0,
            seed: BITMAP_TABLE_SEED,
          },
        }
      : {}),
  };
  return {
    name: cell.id,
    seed: 1,
    machine: {
      cores: machine.cores,
      ram: machine.ramBytes,
      sharedBuffers: machine.sharedBuffersBytes,
      maxConnections: machine.maxConnections,
      os: machine.os,
      osOptions: readAheadKb === null ? {} : { readAheadKb },
      device: machine.device,
      cpu,
    },
    tables: [
      {
        name: table.name,
        blocks: table.blocks,
        tuplesPerPage: table.tuplesPerPage,
        cached: cell.cache === "warm" ? "os" : "none",
        ...(cell.scan === "bitmap" && table.indexBlocks !== undefined
          ? { indexBlocks: table.indexBlocks }
          : {}),
      },
    ],
    queries: [query],
  };
}

/** Simulates `cell` and returns the figures the lab compares. */
export function predictCell(
  cell: Cell,
  table: LabTable,
  machine: LabMachine,
  cpu: Partial<CpuCosts> = {},
): Prediction {
  const r = simulate(cellScenario(cell, table, machine, cpu));
  const q = r.queries[0]!;
  return {
    timeMs: q.meanDurationS * 1000,
    deviceBytes: r.device.bytes,
    avgRequestBytes: r.device.reads > 0 ? r.device.bytes / r.device.reads : null,
    sharedHitBlocks: r.sharedBuffers.hits,
    sharedReadBlocks: r.sharedBuffers.misses,
  };
}

/** The pread cost of one 8 kB block from the page cache under the default CPU costs, us. */
export function defaultPreadBlockUs(): number {
  return DEFAULT_CPU_COSTS.readSyscallUs + 8192 / DEFAULT_CPU_COSTS.copyBytesPerUs;
}
