/** Messages between a queue worker and its cell threads (cell-thread.ts). */
import type { WireMetrics } from "./cell.js";

/** Worker -> thread: one cell to run. */
export interface ThreadTask {
  id: number;
  /** The scenario as read from the queue: not yet checked. */
  scenario: unknown;
  /** The hash the cell claims for its scenario: checked before anything runs. */
  hash: string;
  /** The sweep waived the work budget. */
  overBudget: boolean;
}

/** Thread -> worker: the cell's metrics, or why it failed (`invalid`: the scenario's fault, never retried). */
export type ThreadAnswer =
  | { id: number; ok: true; metrics: WireMetrics }
  | { id: number; ok: false; invalid: boolean; message: string };
