/**
 * Processes beyond the core count share cores: with more scanning processes
 * busy than the machine has cores, each one's CPU time stretches by
 * busy / cores (the kernel's fair share, no process favoured). Counted over
 * the whole instance, so concurrent queries slow each other down.
 */

/** The machine's cores and the processes busy on them. */
export class CpuShare {
  /** Processes scanning now. */
  active = 0;
  constructor(readonly cores: number) {}
  /** How much longer a process's CPU work takes now (1 while every process has a core). */
  cpuFactor(): number {
    return this.active > this.cores ? this.active / this.cores : 1;
  }
}
