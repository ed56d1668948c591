/**
 * The modelled machine after a scenario is resolved: tables laid out as
 * segment files on one device, the CPU costs, shared buffers and the OS.
 */

import type { SharedBuffers } from "../seam/buffer-manager.js";
import type { OsPort, SyncScanPort } from "../seam/ports.js";
import type { CpuCosts } from "./cpu-costs.js";

/** OS pages per 8 kB PostgreSQL block (4 kB pages, apps/docs/src/reference/os-readahead-policies.md#readahead-units units). */
export const PAGES_PER_BLOCK = 2;
/** A table's file ids: table index x this + segment number. */
export const FILE_ID_STRIDE = 1 << 16;

/** A table as the engine sees it. */
export interface TableRt {
  index: number;
  name: string;
  nblocks: number;
  tuplesPerPage: number;
  segmentBlocks: number;
  temp: boolean;
  /** Syncscan key (the relfilenode identity). */
  syncKey: number;
  /** The table's btree index, a relation of its own (bitmap-index-scan.ts), or null. */
  indexRelation: TableRt | null;
}

/** The file id of segment `segment` of the table with index `tableIndex`. */
export function segmentFileId(tableIndex: number, segment: number): number {
  return tableIndex * FILE_ID_STRIDE + segment;
}

/** The file id of segment `segment` of table `table`. */
export function fileIdOf(table: TableRt, segment: number): number {
  return segmentFileId(table.index, segment);
}

/** Everything the participants share. */
export interface MachineRt {
  cores: number;
  cpu: CpuCosts;
  /** CPU time of one posix_fadvise call of a plain-file reader (seam/device.ts `fileAdviceCallUs`). */
  fileAdviceCallUs: number;
  nbuffers: number;
  maxConnections: number;
  sharedBuffers: SharedBuffers;
  os: OsPort;
  syncscan: SyncScanPort;
  tables: TableRt[];
}
