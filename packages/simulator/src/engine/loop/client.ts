/**
 * A client's run lifecycle, as pgbench's: a query has `clients` identical
 * clients (pgbench -c); each runs the query `runs` times back to back
 * (pgbench -t), or until `duration` has passed (pgbench -T).
 *
 * A client is an entity of the loop that wakes when it connects and then
 * each time its run ends. At each wake-up it decides whether another run is
 * due, records the run in the query's results, has PostgreSQL start it
 * (pg/run-start.ts), and tells its observers (run-observer.ts) the moments
 * of its life; it knows nothing of what they do with them.
 *
 * Times it reports (a run's start and duration, and the `duration` test) are
 * reported times: the loop's clock plus what the warp skipped
 * (loop/scheduler.ts `reportedUs`), so a warped run lasts as long as the
 * exact one would.
 */
import { ScenarioError } from "../../errors.js";
import type { ResolvedScenario } from "../../scenario/resolve.js";
import type { TableRt } from "../pg/machine.js";
import { type PgInstance, type ScanStrategy, startRun } from "../pg/run-start.js";
import { type OpenFiles, RunStats } from "../pg/scan-run.js";
import { SharedLine } from "../pg/shared-memory.js";
import type { RunInFlight, RunObserver } from "./run-observer.js";
import type { Entity } from "./scheduler.js";
import type { QueryResult, RunResult } from "./simulate.js";

/** The query a client runs, and where its runs are recorded. */
export interface ClientQuery {
  readonly query: ResolvedScenario["queries"][number];
  /** Its index in the scenario (for error paths). */
  readonly index: number;
  readonly table: TableRt;
  readonly strategy: ScanStrategy;
  /** Its results: every run of every client, in the order they started. */
  readonly result: QueryResult;
}

/** One pgbench-like client (see the header). */
export class Client implements Entity {
  private readonly id: number;
  /** The backend's open files, kept across runs. */
  private readonly leaderOpens: OpenFiles = new Map();
  private runIndex = 0;

  constructor(
    private readonly pg: PgInstance,
    private readonly observers: readonly RunObserver[],
    /** Every run's allocation cache line, for the results. */
    private readonly lines: SharedLine[],
    private readonly q: ClientQuery,
    /** Which client of the query (0-based). */
    private readonly client: number,
    /** When it connects, loop time. */
    private readonly startUs: number,
  ) {
    for (const o of observers) o.clientAdded?.(this.leaderOpens, q.table);
    this.id = pg.scheduler.add(this);
    pg.scheduler.schedule(this.id, startUs);
  }

  fire(nowUs: number): void {
    const { query } = this.q;
    const spec = query.spec;
    const scheduler = this.pg.scheduler;
    if (this.runIndex === 0) for (const o of this.observers) o.clientStarted?.();
    if (this.runIndex >= spec.runs && query.durationUs === null) return;
    if (query.durationUs !== null && scheduler.reportedUs(nowUs) >= this.startUs + query.durationUs) return;
    for (const o of this.observers) o.runStarting?.(nowUs);
    const stats = new RunStats();
    const cpu = this.pg.machine.cpu;
    const line = new SharedLine(cpu.spinlockHoldUs, cpu.atomicOpUs);
    this.lines.push(line);
    const record: RunResult = {
      client: this.client,
      run: this.runIndex++,
      startS: scheduler.reportedUs(nowUs) / 1e6,
      durationS: 0,
      finished: false,
      blocks: 0,
      claims: 0,
      sharedHits: 0,
      startBlock: 0,
      participants: stats.perParticipant,
    };
    this.q.result.runs.push(record);
    let run: RunInFlight | null = null;
    const started = startRun(
      this.pg,
      {
        spec,
        table: this.q.table,
        strategy: this.q.strategy,
        leaderOpens: this.leaderOpens,
        stats,
        line,
        onStartBlock: (block) => {
          record.startBlock = block;
        },
        onEnd: (t) => {
          // Processes start by scheduling their first wake-up, so none ends inside startRun.
          if (run === null) throw new Error("a run ended before its processes started");
          this.ended(run, record, t);
        },
      },
      nowUs,
    );
    run = { table: this.q.table, stats, line, ...started };
    for (const o of this.observers) o.runStarted?.(run);
  }

  /** The run's last process finished at `t`: record it, tell the observers, wake for the next one. */
  private ended(run: RunInFlight, record: RunResult, t: number): void {
    for (const o of this.observers) o.runEnded?.(run);
    record.durationS = this.pg.scheduler.reportedUs(t) / 1e6 - record.startS;
    // pgbench -T repeats a run until its time is up: a run that takes no simulated time
    // (nothing to read: an empty table, an empty bitmap) would repeat forever at one instant.
    if (this.q.query.durationUs !== null && !(record.durationS > 0)) {
      throw new ScenarioError(
        `query "${this.q.query.spec.name}": a run takes no simulated time (it has nothing to read), so its duration is never reached; give it runs instead of a duration.`,
        { field: `queries.${this.q.index}.duration` },
      );
    }
    record.finished = true;
    record.blocks = run.stats.blocks;
    record.claims = run.stats.claims;
    record.sharedHits = run.stats.sharedHits;
    if (this.q.query.spec.kind === "file") record.adviceCalls = run.stats.adviceCalls;
    this.pg.scheduler.schedule(this.id, t);
  }
}
