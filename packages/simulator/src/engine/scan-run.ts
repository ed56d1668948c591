/**
 * One execution of one query: its participants, its shared allocation state
 * and its contended cache line, and the statistics it collects.
 */
import type { MachineRt, TableRt } from "./machine.js";
import type { OsOpenFile } from "./ports.js";
import type { Scheduler } from "./scheduler.js";
import type { SharedLine } from "./shared-memory.js";

/** Counters of one run (one query execution). */
export class RunStats {
  blocks = 0;
  claims = 0;
  sharedHits = 0;
  /** Blocks requested from the OS (shared-buffer misses). */
  osBlocks = 0;
  /** Per participant: blocks and claims. */
  readonly perParticipant: { blocks: number; claims: number; role: "leader" | "worker" }[] = [];
}

/** What a participant needs from the run it belongs to. */
export interface ScanRunCtx {
  readonly machine: MachineRt;
  readonly table: TableRt;
  readonly scheduler: Scheduler;
  readonly line: SharedLine;
  /** Report handed-out blocks to syncscan (phs_syncscan / rs_syncscan). */
  readonly syncReport: boolean;
  /** BAS_BULKREAD ring size in buffers, or 0 for normal replacement. */
  readonly ringBuffers: number;
  readonly stats: RunStats;
  /** The scenario's seed (per-process random streams derive from it). */
  readonly seed: number;
  /** CPU slowdown when more processes are busy than there are cores. */
  cpuFactor(): number;
  /** Called once by each participant when it has nothing left to do. */
  participantDone(nowUs: number): void;
}

/** Files a process has open: segment number -> the OS's open-file state. */
export type OpenFiles = Map<number, OsOpenFile>;
