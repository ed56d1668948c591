/**
 * Scaling a scenario down so that advice on a large table stays quick.
 *
 * The problem: advice runs twenty-odd simulations; on a 100 GB table each
 * takes long enough that the whole advice would take minutes, and on 800 GB
 * far longer.
 *
 * The insight: what decides the comparisons advice makes is which caches the
 * table fits in and how many allocator chunks a scan has, not the absolute
 * size. Dividing the table, the RAM, shared_buffers and the PG14+ chunk cap
 * by one factor keeps every one of those ratios; times are then multiplied
 * back by the factor.
 *
 * Choices:
 * - The factor is the scanned table's size over the simulated size asked
 *   for, never below 1 (a table at or under it runs at full size).
 * - Every table of the scenario is divided by the factor, so the tables keep
 *   their share of the caches.
 * - shared_buffers keeps PostgreSQL's floor of 16 buffers (128 kB,
 *   `shared_buffers` min in src/backend/utils/misc/guc_tables.c) and at
 *   most half the scaled RAM, so the page cache keeps room.
 * - The chunk cap (PARALLEL_SEQSCAN_MAX_CHUNK_SIZE, 8192 blocks; tableam.c)
 *   is divided too, to at least one block: the scaled table then has as many
 *   capped chunks as the full one.
 */
import { PG14_MAX_CHUNK_BLOCKS } from "@scanlab/block-allocator";
import { BLOCK_BYTES, parseBytes, type ScenarioInput, type TableInput } from "@scanlab/simulator";

/** shared_buffers when a scenario does not set it: PostgreSQL's default (guc_tables.c). */
const DEFAULT_SHARED_BUFFERS = "128MB";
/** PostgreSQL's smallest shared_buffers: 16 buffers of 8 kB (guc_tables.c). */
const MIN_SHARED_BUFFERS_BYTES = 16 * 8192;

/** How a scenario was scaled down (null factor 1: not scaled). */
export interface AdviceScale {
  /** Full size / simulated size (above 1). */
  factor: number;
  /** The scanned table as simulated, in bytes. */
  simulatedTableBytes: number;
  /** The machine's RAM as simulated, in bytes. */
  simulatedRamBytes: number;
  /** shared_buffers as simulated, in bytes. */
  simulatedSharedBuffersBytes: number;
  /** The chunk cap as simulated, in blocks. */
  simulatedChunkCapBlocks: number;
}

/** A scenario scaled down for advice. */
export interface ScaledScenario {
  /** The scenario as simulated (a copy; the input is not changed). */
  scenario: ScenarioInput;
  /** Full size / simulated size: 1 when not scaled. */
  factor: number;
  /** Blocks of the scanned table at full size. */
  fullTableBlocks: number;
  /** PostgreSQL's chunk cap divided by the factor (8192 when not scaled). */
  chunkCapBlocks: number;
  /** What was scaled, or null when nothing was. */
  scale: AdviceScale | null;
}

/** Bytes of a table as written (size, or blocks of 8 kB). */
function tableBytes(t: TableInput): number {
  return t.blocks !== undefined ? t.blocks * BLOCK_BYTES : parseBytes(t.size ?? 0, "size");
}

/** The table the first query scans (the first table when the query names none that exists). */
function scannedTableIndex(s: ScenarioInput): number {
  const name = s.queries[0]?.table;
  return Math.max(
    0,
    s.tables.findIndex((t) => t.name === name),
  );
}

/**
 * Scales `scenario` down so that its scanned table is at most `simBytes`
 * (see the file header).
 *
 * @example
 * ```ts
 * import { scaleDown } from "@scanlab/advisor";
 * const s = scaleDown(
 *   {
 *     name: "big",
 *     machine: { cores: 8, ram: "64GB", os: "linux-6.1", device: "samsung-990-pro-1tb" },
 *     tables: [{ name: "t", size: "100GB", tuplesPerPage: 226 }],
 *     queries: [{ name: "scan", table: "t" }],
 *   },
 *   1024 ** 3,
 * );
 * console.log(s.factor, s.scale?.simulatedRamBytes); // 100 687194767
 * ```
 */
export function scaleDown(scenario: ScenarioInput, simBytes: number): ScaledScenario {
  const ti = scannedTableIndex(scenario);
  const bytes = tableBytes(scenario.tables[ti]!);
  const factor = Math.max(1, bytes / simBytes);
  const out = structuredClone(scenario);
  const chunkCapBlocks = Math.max(1, Math.round(PG14_MAX_CHUNK_BLOCKS / factor));
  let scale: AdviceScale | null = null;
  if (factor > 1) {
    const ram = parseBytes(scenario.machine.ram, "machine.ram") / factor;
    const sb = Math.max(
      MIN_SHARED_BUFFERS_BYTES,
      parseBytes(scenario.machine.sharedBuffers ?? DEFAULT_SHARED_BUFFERS, "machine.sharedBuffers") / factor,
    );
    out.machine.ram = Math.round(ram);
    out.machine.sharedBuffers = Math.round(Math.min(sb, ram / 2));
    out.tables = scenario.tables.map((t) => {
      const scaled: TableInput = { ...t, size: Math.round(tableBytes(t) / factor) };
      delete scaled.blocks;
      return scaled;
    });
    scale = {
      factor,
      simulatedTableBytes: out.tables[ti]!.size as number,
      simulatedRamBytes: out.machine.ram,
      simulatedSharedBuffersBytes: out.machine.sharedBuffers,
      simulatedChunkCapBlocks: chunkCapBlocks,
    };
  }
  return {
    scenario: out,
    factor,
    fullTableBlocks: Math.ceil(bytes / BLOCK_BYTES),
    chunkCapBlocks,
    scale,
  };
}
