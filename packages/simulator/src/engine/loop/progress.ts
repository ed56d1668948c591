/**
 * The caller's watch on a running simulation: how far it has come
 * (`onProgress`), and whether to stop (`shouldStop`), asked every
 * {@link POLL_STEPS} steps.
 *
 * A run observer (run-observer.ts): it counts the runs that finished and the
 * blocks of those in flight, and rides on the loop's poll (every 1024 steps)
 * so that asking costs nothing measurable. A stop ends the loop at the
 * current instant (loop/scheduler.ts `stop`), between two steps, so the
 * partial results are those of a consistent machine.
 */
import type { RunStats } from "../pg/scan-run.js";
import type { RunInFlight, RunObserver } from "./run-observer.js";
import type { Scheduler } from "./scheduler.js";

/**
 * Steps between two polls of `shouldStop` and `onProgress`: a few tens of
 * milliseconds of wall time (steps cost about 1-40 us), so Ctrl-C is heard
 * promptly and a progress display moves, while the poll costs nothing
 * measurable (it rides on the loop's poll, every 1024 steps).
 */
export const POLL_STEPS = 65_536;

/** How far a running simulation has come (SimulateOptions.onProgress). */
export interface SimulationProgress {
  /** Steps taken so far: wake-ups plus in-wake-up stretches, the unit of {@link estimateWork}. */
  steps: number;
  /** Simulated time reached, seconds (what the warp skipped included). */
  simulatedS: number;
  /** Blocks processed by every run so far, finished or not (a bitmap scan: its pages; the warp's credit included). */
  blocks: number;
  /** Runs finished so far. */
  runsFinished: number;
}

/** The caller's callbacks. */
export interface ProgressCallbacks {
  /** Return true to stop early, between two steps. */
  shouldStop?: () => boolean;
  /** Told how far the simulation has come. */
  onProgress?: (progress: SimulationProgress) => void;
}

/** The caller's watch (see the header). */
export class ProgressWatch implements RunObserver {
  private readonly inFlight = new Set<RunStats>();
  private finishedRuns = 0;
  private finishedBlocks = 0;
  private polls = 0;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly callbacks: ProgressCallbacks,
  ) {}

  runStarted(run: RunInFlight): void {
    this.inFlight.add(run.stats);
  }

  runEnded(run: RunInFlight): void {
    this.inFlight.delete(run.stats);
    this.finishedRuns++;
    this.finishedBlocks += run.stats.blocks;
  }

  poll(): void {
    if (++this.polls < POLL_STEPS / 1024) return;
    this.polls = 0;
    this.report();
    if (this.callbacks.shouldStop?.() === true) this.scheduler.stop();
  }

  /** Tells the caller how far the simulation has come. */
  report(): void {
    this.callbacks.onProgress?.(this.progress());
  }

  private progress(): SimulationProgress {
    let blocks = this.finishedBlocks;
    for (const stats of this.inFlight) blocks += stats.blocks;
    return {
      steps: this.scheduler.stepCount,
      simulatedS: this.scheduler.reportedUs(this.scheduler.nowUs) / 1e6,
      blocks,
      runsFinished: this.finishedRuns,
    };
  }
}
