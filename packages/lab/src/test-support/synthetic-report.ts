/**
 * Lab reports from synthetic runs, for tests that judge, report or replay a
 * run without PostgreSQL: every cell of a plan gets three runs whose time is
 * a fixed cost per block (one for warm cells, one for cold), scaled by the
 * given factors, and whose device bytes are the heap's when cold.
 */
import type { Cell, LabPlan } from "../cells.js";
import type { LabMachine } from "../predict.js";
import { assembleReport, type LabReport, type RunRecord } from "../run-lab.js";

/** How the synthetic runs and report are made. */
export interface SyntheticOptions {
  /** us per block of a warm cell and of a cold one. */
  readonly usPerBlock: { readonly warm: number; readonly cold: number };
  /** One run per factor, each the per-block cost times the factor. */
  readonly factors: readonly number[];
  /** Extra factor on the cells the report predicts (default 1). */
  readonly scalePredicted?: number;
  /** Notes on each cell (default none). */
  readonly notes?: (cell: Cell) => string[];
  /** The server version the report names. */
  readonly version: string;
}

/** Runs of `cell`, as {@link SyntheticOptions} say. */
export function syntheticRuns(plan: LabPlan, cell: Cell, o: SyntheticOptions, scale = 1): RunRecord[] {
  const blocks = plan.tables.find((t) => t.name === cell.table)!.blocks;
  const usPerBlock = (cell.cache === "warm" ? o.usPerBlock.warm : o.usPerBlock.cold) * scale;
  return o.factors.map((f) => ({
    executionMs: (blocks * usPerBlock * f) / 1000,
    clientMs: (blocks * usPerBlock * f) / 1000 + 20,
    deviceBytes: cell.cache === "warm" ? 0 : blocks * 8192,
    deviceReads: cell.cache === "warm" ? 0 : (blocks * 8192) / 131072,
    sharedHitBlocks: 0,
    sharedReadBlocks: blocks,
    residentBefore: cell.cache === "warm" ? 1 : 0,
    workersLaunched: cell.workers * cell.clients,
  }));
}

/** The report of a run of every cell of `plan` on `machine` (device named as built-in). */
export function syntheticReport(plan: LabPlan, machine: LabMachine, o: SyntheticOptions): LabReport {
  return assembleReport({
    startedAt: "2026-01-01T00:00:00.000Z",
    interrupted: false,
    quick: true,
    plan,
    tables: plan.tables,
    measured: plan.cells.map((cell) => ({
      cell,
      runs: syntheticRuns(plan, cell, o, cell.role === "predict" ? (o.scalePredicted ?? 1) : 1),
      notes: o.notes?.(cell) ?? [],
    })),
    servers: [{ pg: 15, bin: "/usr/lib/postgresql/15/bin", version: o.version }],
    machine,
    deviceLabel: `built-in ${machine.device}`,
    deviceName: "vda",
    coldMethod: "test",
    fit: true,
  });
}
