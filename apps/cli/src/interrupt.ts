/**
 * Ctrl-C. A long command (`scan`, `sweep`, `reproduce`) installs a SIGINT
 * handler while it runs: the first Ctrl-C raises a stop flag (an AbortSignal
 * for file-scan, and a shared Int32Array that worker threads poll between
 * simulator events), so the command stops cleanly, prints what was finished
 * and exits 130. A second Ctrl-C quits at once, also with 130.
 */

/** The stop state of one command run. */
export class Interrupt {
  /** Aborted on the first Ctrl-C. */
  readonly controller = new AbortController();
  /** Element 0 becomes 1 on the first Ctrl-C (shared with worker threads). */
  readonly flag = new Int32Array(new SharedArrayBuffer(4));
  private installed = false;
  private readonly onSigint = (): void => {
    if (this.stopped) {
      process.stderr.write("\nscanlab: interrupted again; quitting now.\n");
      process.exit(130);
    }
    Atomics.store(this.flag, 0, 1);
    this.controller.abort();
    process.stderr.write(
      "\nscanlab: interrupted; finishing cleanly and printing what was done (Ctrl-C again to quit now).\n",
    );
  };

  /** True once Ctrl-C was pressed. */
  get stopped(): boolean {
    return Atomics.load(this.flag, 0) === 1;
  }

  /** The abort signal (for file-scan). */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Starts catching SIGINT. */
  catch(): void {
    if (this.installed) return;
    this.installed = true;
    process.on("SIGINT", this.onSigint);
  }

  /** Stops catching SIGINT. */
  release(): void {
    if (!this.installed) return;
    this.installed = false;
    process.off("SIGINT", this.onSigint);
  }
}
