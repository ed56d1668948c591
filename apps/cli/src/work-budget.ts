/**
 * The work budget of the commands that simulate (`simulate`, `sweep`,
 * `advise`): estimate before running, refuse what is over the budget unless
 * asked, and say how far a long run has come.
 *
 * The problem: a few flags can ask for hours of simulation (a thousand
 * clients, an hour of `--duration`, read streams over terabytes) or for
 * gigabytes of memory (a bitmap over a 16 TB table), and a run that goes
 * quiet for minutes looks hung.
 *
 * The insight: the simulator can say up front how many steps a scenario will
 * take and what memory grows with it (`estimateWork`, a pure function of the
 * scenario), and what would shrink it most. So the decision is made before
 * anything runs, with a sentence that names the estimate, the budget and the
 * flags to change.
 *
 * Choices:
 * - The budget is the simulator's documented one (WORK_BUDGET_STEPS,
 *   MEMORY_BUDGET_BYTES), for the whole command: a sweep's or advise's grid
 *   is summed (its cells share the machine), and its largest cell's memory
 *   counts.
 * - `--over-budget` runs it anyway: with progress, interruptible, Ctrl-C
 *   keeping what finished (as for any run).
 * - Refusal is a usage error (exit 2): nothing ran, and the command line is
 *   what must change.
 * - Progress is what the simulator reports: simulated time against the
 *   scenario's end for `--duration`/`until`, else blocks processed against
 *   every run's blocks.
 */
import {
  estimateWork,
  formatBytes,
  MEMORY_BUDGET_BYTES,
  PROGRESS_STEPS,
  resolveScenario,
  type ScenarioInput,
  STEP_US,
  WORK_BUDGET_STEPS,
  type WorkEstimate,
  type WorkLever,
} from "@scanlab/simulator";
import { CliError } from "./errors.js";
import { grouped, seconds } from "./output/format.js";
import { PROGRESS_SLOT } from "./workers/protocol.js";

/** The flag that runs a command over the budget anyway. */
export const OVER_BUDGET_FLAG = "--over-budget";

/** What the user can change, for each lever the simulator names. */
const ADVICE: Record<WorkLever, string> = {
  exact: "drop --exact (the warp skips the steady middle of long scans)",
  clients: "use fewer --clients",
  runs: "use fewer --runs",
  duration: "use a shorter --duration (or --runs)",
  until: "set an earlier until",
  "table-size": "use a smaller --table-size",
  "read-stream": "use a smaller --table-size (read streams, PG17+, are simulated block by block)",
  selectivity: "use a lower --selectivity",
  "shared-buffers": "use a smaller --shared-buffers",
};

/** The estimate of one scenario (validated before: resolveScenario does not throw here). */
export function estimateScenario(scenario: ScenarioInput, exact = false): WorkEstimate {
  return estimateWork(resolveScenario(scenario), { exact });
}

/** A number of steps in words ("140 million"). */
function steps(n: number): string {
  return n >= 1e9
    ? `${(n / 1e9).toFixed(1)} billion`
    : n >= 1e6
      ? `${(n / 1e6).toFixed(n >= 1e7 ? 0 : 1)} million`
      : grouped(n);
}

/** Wall time in words, from seconds ("about 9 min"). */
function about(s: number): string {
  if (s >= 7200) return `about ${(s / 3600).toFixed(0)} h`;
  if (s >= 120) return `about ${(s / 60).toFixed(0)} min`;
  return `about ${seconds(Math.max(1, s))}`;
}

/** Summed work of several cells: steps add up, memory is the largest cell's. */
export function totalWork(estimates: readonly WorkEstimate[]): {
  steps: number;
  memoryBytes: number;
  levers: WorkLever[];
} {
  let total = 0;
  let memoryBytes = 0;
  const weight = new Map<WorkLever, number>();
  for (const e of estimates) {
    total += e.steps;
    memoryBytes = Math.max(memoryBytes, e.memoryBytes);
    e.levers.forEach((l, i) => {
      weight.set(l, (weight.get(l) ?? 0) + e.steps / (i + 1));
    });
  }
  const levers = [...weight].sort((a, b) => b[1] - a[1]).map(([l]) => l);
  // When memory is what is over, the lever of the cell over it comes first.
  const heavy = estimates.find((e) => e.memoryBytes > MEMORY_BUDGET_BYTES);
  if (heavy?.levers[0] !== undefined) levers.unshift(heavy.levers[0]);
  return { steps: total, memoryBytes, levers: [...new Set(levers)] };
}

/**
 * Refuses work over the budget with one sentence (exit 2), unless
 * `overBudget` is set. `what` names it ("This simulation", "This sweep of 12
 * points").
 */
export function checkBudget(
  what: string,
  estimates: readonly WorkEstimate[],
  overBudget: boolean,
  /** The flag that sets the simulated table's size, when not --table-size (advise: --sim-size). */
  tableSizeFlag = "--table-size",
): void {
  if (overBudget) return;
  const t = totalWork(estimates);
  // Read streams' advice is the table size's, with the reason.
  const levers = t.levers.includes("read-stream") ? t.levers.filter((l) => l !== "table-size") : t.levers;
  const advice = levers
    .slice(0, 3)
    .map((l) => ADVICE[l].replace("--table-size", tableSizeFlag))
    .join(", ");
  if (t.memoryBytes > MEMORY_BUDGET_BYTES) {
    throw new CliError(
      "CLI_OVER_BUDGET",
      `${what} needs about ${formatBytes(t.memoryBytes)} of memory for its bitmap data set and buffers, over scanlab's budget of ${formatBytes(MEMORY_BUDGET_BYTES)}: use ${advice}, or add ${OVER_BUDGET_FLAG} to run it anyway.`,
    );
  }
  if (!Number.isFinite(t.steps)) {
    throw new CliError(
      "CLI_OVER_BUDGET",
      `${what} never ends: a run of its query takes no simulated time (an empty table, or CPU costs of 0), so its --duration is never reached; give the table blocks or the CPU its costs, or use --runs instead.`,
    );
  }
  if (t.steps > WORK_BUDGET_STEPS) {
    throw new CliError(
      "CLI_OVER_BUDGET",
      `${what} is estimated at ${steps(t.steps)} simulation steps (${about((t.steps * STEP_US) / 1e6)}), over scanlab's budget of ${steps(WORK_BUDGET_STEPS)} (${about((WORK_BUDGET_STEPS * STEP_US) / 1e6)}): ${advice}, or add ${OVER_BUDGET_FLAG} to run it anyway with progress (Ctrl-C keeps what finished).`,
    );
  }
}

/** Whether the work is long enough to report progress off a terminal too. */
export function isLong(estimates: readonly WorkEstimate[]): boolean {
  return totalWork(estimates).steps > PROGRESS_STEPS;
}

/** How far one task is (0..1), from its progress slot and its estimate. */
export function fractionDone(estimate: WorkEstimate, slot: Float64Array): number {
  const total = estimate.progressTotal;
  const f =
    "simulatedS" in total
      ? total.simulatedS > 0
        ? slot[PROGRESS_SLOT.simulatedS]! / total.simulatedS
        : 0
      : total.blocks > 0
        ? slot[PROGRESS_SLOT.blocks]! / total.blocks
        : 0;
  return Math.min(1, Math.max(0, f));
}

/** One task's progress in words: simulated time of its end, or blocks of all its runs' blocks. */
export function progressDetail(estimate: WorkEstimate, slot: Float64Array): string {
  const total = estimate.progressTotal;
  if ("simulatedS" in total)
    return `simulated ${seconds(slot[PROGRESS_SLOT.simulatedS]!)} of ${seconds(total.simulatedS)}`;
  return `${formatBytes(slot[PROGRESS_SLOT.blocks]! * 8192)} of ${formatBytes(total.blocks * 8192)} scanned, ${grouped(slot[PROGRESS_SLOT.runsFinished]!)} run(s) done`;
}
