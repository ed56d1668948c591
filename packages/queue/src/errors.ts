import { ScanlabError } from "@scanlab/core";

/** Stable codes of {@link QueueError}. */
export type QueueErrorCode =
  /** The queue URL is not a `redis://` or `rediss://` URL scanlab can use. */
  | "QUEUE_BAD_URL"
  /** `--sweep-id` is not a sweep id (letters, digits, `_` and `-`, 1 to 64 of them). */
  | "QUEUE_BAD_SWEEP_ID"
  /** Nothing answers at the queue's address. */
  | "QUEUE_UNREACHABLE"
  /** The queue's server refused the user name or password. */
  | "QUEUE_AUTH"
  /** The queue's TLS certificate is not trusted (or not for its host). */
  | "QUEUE_TLS"
  /** The queue's server answered, but not as a Redis that BullMQ can use. */
  | "QUEUE_SERVER"
  /** The queue was lost for longer than scanlab waits for it to come back. */
  | "QUEUE_LOST"
  /** A cell failed on a worker (an invalid scenario, or more crashes than its bounded retries). */
  | "QUEUE_CELL_FAILED";

/**
 * An error of the queue backend: one sentence in which a queue URL never
 * shows its password. `kind` is "user"; `runtime` is true when the failure
 * happened while running (nothing answers, a cell failed), not in what was
 * asked (a malformed URL), so a command line exits 1 rather than 2.
 */
export class QueueError extends ScanlabError {
  /** Stable machine-readable code. */
  declare readonly code: QueueErrorCode;
  /** The failure happened at run time, not in the arguments. */
  readonly runtime: boolean;
  /** The index of the failed cell in the list that was run, for `QUEUE_CELL_FAILED`. */
  readonly cell: number | undefined;
  /** Why the cell failed, as its worker said (without the cell's number), for `QUEUE_CELL_FAILED`. */
  readonly reason: string | undefined;

  /** @param message one sentence; @param options the code, whether it is a run-time failure, the failed cell. */
  constructor(
    message: string,
    options: { code: QueueErrorCode; runtime?: boolean; cell?: number; reason?: string; cause?: unknown },
  ) {
    super(message, { code: options.code, cause: options.cause });
    this.name = "QueueError";
    this.runtime = options.runtime ?? false;
    this.cell = options.cell;
    this.reason = options.reason;
  }
}
