/**
 * Processes beyond the core count share cores: with more processes on a CPU
 * than the machine has cores, each one's CPU time stretches by busy / cores
 * (the kernel's fair share, no process favoured). Counted over the whole
 * instance, so concurrent queries slow each other down.
 *
 * Two kinds of process are counted. Scanning processes (backends and
 * parallel workers) count from their start to their end. Helper processes,
 * io_method = worker's I/O workers (method_worker.c), count only while they
 * are on a CPU: from the moment the data of a read they perform is in the
 * page cache until its buffers are valid (the preadv's copy, the page-cache
 * fill, the buffers' first use). While they sleep on their latch or wait for
 * the device, they take no core from anyone. A scanning process counts while
 * it waits for a read too: the fair share is taken over its whole scan.
 */

/** The machine's cores and the processes busy on them. */
export class CpuShare {
  /** Processes scanning now. */
  active = 0;
  /** When each helper's current or last CPU work begins and ends, us. */
  private readonly from: number[] = [];
  private readonly to: number[] = [];
  /** The latest end of any helper's CPU work: from then on no helper is on a CPU. */
  private latestTo = 0;
  constructor(readonly cores: number) {}

  /** Registers a helper process (an I/O worker); returns its number. */
  addHelper(): number {
    this.from.push(0);
    this.to.push(0);
    return this.from.length - 1;
  }

  /** Helper `h` is on a CPU from `fromUs` to `toUs`. */
  busy(h: number, fromUs: number, toUs: number): void {
    this.from[h] = fromUs;
    this.to[h] = toUs;
    if (toUs > this.latestTo) this.latestTo = toUs;
  }

  /**
   * How much longer a process's CPU work takes at `nowUs` (1 while every
   * process has a core). Helpers count when `nowUs` is given and falls in
   * their CPU work; `extra` adds processes not counted yet (a helper asking
   * for its own share counts itself).
   */
  cpuFactor(nowUs?: number, extra = 0): number {
    let busy = this.active + extra;
    // Called for every block a read-stream scan consumes: no loop once the last helper is done.
    if (nowUs !== undefined && nowUs < this.latestTo)
      for (let h = 0; h < this.from.length; h++) if (this.from[h]! <= nowUs && nowUs < this.to[h]!) busy++;
    return busy > this.cores ? busy / this.cores : 1;
  }
}
