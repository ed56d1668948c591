/**
 * Messages between the CLI's main thread and its simulator worker threads.
 *
 * Simulations are synchronous and can run for seconds to minutes, so they run
 * in worker_threads: several at once on a multi-core machine (sweep points,
 * the rows of `reproduce`'s targets), and always off the main thread so that
 * Ctrl-C is heard while they run. The main thread shares one Int32Array stop
 * flag with every worker; a worker's simulation polls it (the simulator's
 * `shouldStop`, every 65,536 events).
 */
import type { RowMetrics, ScenarioInput, SimulationResult } from "@scanlab/simulator";

/** Run one scenario. */
export interface SimulateTask {
  kind: "simulate";
  scenario: ScenarioInput;
  /** Keep the full SimulationResult in the answer (simulate --json); sweeps only need the metrics. */
  full: boolean;
  /** Simulate every block: no warp over steady stretches (simulate --exact). */
  exact?: boolean;
  /** Where the worker reports its progress (PROGRESS_SLOT layout), when the main thread shows it. */
  progress?: Float64Array;
}

/** Layout of a task's progress slot: what SimulationProgress reports, in this order. */
export const PROGRESS_SLOT = { steps: 0, simulatedS: 1, blocks: 2, runsFinished: 3, length: 4 } as const;

/** A task for a worker. */
export type Task = SimulateTask;

/** The answer to a SimulateTask. */
export interface SimulateAnswer {
  kind: "simulate";
  metrics: RowMetrics;
  result: SimulationResult | null;
  /** The stop flag rose during the run: the figures are partial and must not be shown as a result. */
  interrupted: boolean;
  /** Wall time of the simulation in milliseconds. */
  wallMs: number;
}

/** An answer from a worker. */
export type Answer = SimulateAnswer;

/** An error crossing the thread boundary, with the user-error brand kept. */
export interface WireError {
  name: string;
  message: string;
  stack: string | undefined;
  userError: boolean;
  code: string | undefined;
}

/** Worker -> main. */
export type WorkerMessage =
  | { type: "done"; task: number; answer: Answer }
  | { type: "error"; task: number; error: WireError };

/** Main -> worker. */
export interface TaskMessage {
  task: number;
  payload: Task;
}
