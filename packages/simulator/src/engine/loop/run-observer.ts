/**
 * What the loop tells those who watch the runs: the warp (speedups/warp.ts),
 * which must know every run in flight and every open file to renumber them,
 * and the progress display (progress.ts), which counts blocks and runs.
 *
 * The problem: both need to hear of the same moments of a client's life (it
 * exists, it wakes for the first time, a run is about to start, has started,
 * has ended) and of the loop's poll. Threading each one's bookkeeping through
 * the client's code by hand ties the client to the warp's internals, and
 * every new watcher to the client.
 *
 * The insight: the moments are the client's and the loop's, not the
 * watchers'. So the loop names them once, here, and calls every observer it
 * was given at each; a watcher keeps its own books. Every method is
 * optional: an observer implements what it needs.
 *
 * Order: observers are called in the order they were given, the warp first,
 * so that a run that starts sees the whole table (the warp puts its cuts
 * back at `runStarting`) and a poll lets the warp measure before the
 * caller's progress callback may stop the loop.
 */
import type { TableRt } from "../pg/machine.js";
import type { RunProcesses } from "../pg/participants.js";
import type { OpenFiles, RunStats } from "../pg/scan-run.js";
import type { SerialAllocation } from "../pg/serial-allocation.js";
import type { SharedLine } from "../pg/shared-memory.js";
import type { ScanAllocation } from "../seam/ports.js";

/** A run in flight: one execution of a query, from its processes' start to the last one's end. */
export interface RunInFlight {
  readonly table: TableRt;
  readonly stats: RunStats;
  /** The run's contended allocation cache line. */
  readonly line: SharedLine;
  /** Its processes as the warp sees them (pg/participants.ts), or null when it cannot renumber them. */
  readonly processes: RunProcesses;
  /** A serial scan's block order, or null. */
  readonly serial: SerialAllocation | null;
  /** A parallel scan's shared allocation, or null. */
  readonly allocation: ScanAllocation | null;
  /** The open files of its parallel workers (new processes every run; the leader's are the client's). */
  readonly workerOpens: readonly OpenFiles[];
}

/** Someone the loop tells about clients, runs and polls (see the header). */
export interface RunObserver {
  /** A client exists, before its first wake-up; `leaderOpens` are its backend's open files, kept across runs. */
  clientAdded?(leaderOpens: OpenFiles, table: TableRt): void;
  /** A client woke for the first time (it starts its first run now, or has none to run). */
  clientStarted?(): void;
  /** A run is about to start at `nowUs` (before anything of it exists). */
  runStarting?(nowUs: number): void;
  /** A run's processes have started. */
  runStarted?(run: RunInFlight): void;
  /** A run's last process has finished. */
  runEnded?(run: RunInFlight): void;
  /** The loop's poll: every 1024 steps, between two steps (loop/scheduler.ts `onPoll`). */
  poll?(nowUs: number): void;
}
