/**
 * The queue's fixed settings, each a choice with its reason. They are the
 * same on every machine: a worker and a sweep of one scanlab version agree on
 * them without configuration.
 */
import { createRequire } from "node:module";

/**
 * The simulator's version. Cells go to a queue named after it: results are
 * the simulator's, so a worker runs only the cells of sweeps made by the same
 * simulator, and a worker of another version never sees them (it waits on a
 * queue of its own).
 */
export const SIMULATOR_VERSION: string = (
  createRequire(import.meta.url)("@scanlab/simulator/package.json") as { version: string }
).version;

/** The Redis key prefix of everything scanlab keeps (BullMQ's default is `bull`). */
export const KEY_PREFIX = "scanlab";

/** The BullMQ queue that holds the cells of this simulator version. */
export const QUEUE_NAME = `cells-${SIMULATOR_VERSION}`;

/**
 * How long a finished cell's result (or a failed cell's reason) is kept:
 * seven days, long enough to restart an interrupted sweep after a weekend,
 * short enough that a shared Redis does not fill with old sweeps.
 */
export const RESULT_TTL_S = 7 * 24 * 3600;

/**
 * How long a cell may wait on the queue before it is dropped unrun: seven
 * days as well. A sweep that nobody collects any more does not keep workers
 * busy forever; one that is started again puts its missing cells back.
 */
export const CELL_TTL_S = 7 * 24 * 3600;

/**
 * How long a worker's claim on a cell lasts without renewal (BullMQ's lock),
 * 15 s. The cell runs on a thread, so the worker's event loop renews the
 * claim every half of this however long the cell takes; a worker that dies
 * (SIGKILL, a lost machine) lets the claim lapse, and the cell is handed to
 * another worker after at most this plus two stall checks.
 */
export const LOCK_MS = 15_000;

/** How often workers look for cells whose claim lapsed (BullMQ's stalled-job check): every 5 s. */
export const STALL_CHECK_MS = 5_000;

/**
 * How often a cell may lose its worker and be handed to another: twice. A
 * third loss fails the cell, so a cell that kills every worker that runs it
 * (out of memory, say) is reported instead of taking the workers down one
 * after another forever.
 */
export const MAX_LOST = 2;

/**
 * How often a cell that failed with an error that is not the scenario's
 * (an internal error of the worker) is tried in all: three times. An invalid
 * scenario is never tried again: it would fail the same way.
 */
export const ATTEMPTS = 3;

/** The largest cell scanlab takes from the queue, as JSON: 1 MiB, far above any scenario (a few KiB) and a bound on what a worker parses. */
export const MAX_CELL_BYTES = 1024 * 1024;

/**
 * How long a sweep waits for a lost queue (Redis restarting, a network
 * blip) before it gives up: 60 s. The client reconnects by itself meanwhile.
 * A worker that is stopped while its queue is away waits as long for the
 * results of its last cells to be stored, then quits: those cells go back to
 * the queue when their claims lapse.
 */
export const OUTAGE_S = 60;

/**
 * The longest pause between two attempts to reconnect to a lost queue: 2 s.
 * Attempts start 100 ms apart and slow down to this, so a Redis that is back
 * is found again within 2 s however long it was away (BullMQ's own default
 * slows down to 20 s, a third of {@link OUTAGE_S}).
 */
export const RECONNECT_MAX_MS = 2_000;

/**
 * How long a connection may wait for an answer that does not come before it
 * is dropped and made again: 30 s. A connection whose peer vanished without
 * closing it (a machine lost, a network cut) would otherwise wait for ever;
 * the longest wait scanlab asks of Redis, a worker's blocking wait for a
 * cell, is 10 s (BullMQ's longest block).
 */
export const SOCKET_TIMEOUT_MS = 30_000;

/**
 * How often a worker tries again to store a result or take a cell after an
 * error of its connection: every second (BullMQ's default waits 15 s).
 */
export const RETRY_MS = 1_000;
