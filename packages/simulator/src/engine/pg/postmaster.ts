/**
 * Parallel workers are not there the moment a query starts. The leader asks
 * for background workers; the postmaster forks them one at a time from its
 * server loop; each worker then initialises (InitPostgres, attaching the
 * parallel DSM segment, restoring the leader's snapshot and settings) before
 * its first block request. The leader scans meanwhile (when it participates).
 *
 * The fork is the serial part, shared by every query on the instance: six
 * clients starting 10-worker queries together get their workers over about
 * 60 forks, so their queries start skewed by tens of milliseconds. That skew
 * is what lets synchronized scans of identical concurrent queries drift apart
 * (T3); with every query starting at the same microsecond they would stay in
 * lockstep forever.
 *
 * Constants [I], not measured here: a postmaster fork of a backend takes
 * ~0.3 ms (copying page tables of a small shared-memory mapping), worker
 * initialisation ~1.5 ms. Scenarios can override both (`cpu.workerForkUs`,
 * `cpu.workerInitUs`).
 */

/** The instance's postmaster, launching workers one fork at a time. */
export class Postmaster {
  private freeAtUs = 0;

  constructor(
    private readonly forkUs: number,
    private readonly initUs: number,
  ) {}

  /** When each of `workers` workers requested at `nowUs` makes its first block request. */
  launch(nowUs: number, workers: number): number[] {
    const starts: number[] = [];
    for (let i = 0; i < workers; i++) {
      const forkDone = (this.freeAtUs > nowUs ? this.freeAtUs : nowUs) + this.forkUs;
      this.freeAtUs = forkDone;
      starts.push(forkDone + this.initUs);
    }
    return starts;
  }
}
