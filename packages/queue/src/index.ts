/**
 * @packageDocumentation
 * scanlab's simulation cells on a job queue: BullMQ on Redis. A sweep puts
 * its cells (complete scenarios, seeds included) on the queue under its id
 * and their hashes ({@link runSweepOnQueue}); workers on any number of
 * machines run them ({@link runWorker}); results stay on the queue, so a
 * sweep started again reuses what finished. A cell from the queue is
 * validated like a user's scenario file and nothing else in it is run.
 * Queue URLs may carry passwords: every message and log line shows them
 * redacted ({@link redactUrls}). Node-only.
 */

export {
  type CellJobData,
  canonicalJson,
  cellHash,
  cellJobId,
  checkSweepId,
  decodeMetrics,
  defaultSweepId,
  encodeMetrics,
  type SpecialNumber,
  type WireMetrics,
} from "./cell.js";
export { QueueError, type QueueErrorCode } from "./errors.js";
export {
  ATTEMPTS,
  CELL_TTL_S,
  KEY_PREFIX,
  LOCK_MS,
  MAX_CELL_BYTES,
  MAX_LOST,
  OUTAGE_S,
  QUEUE_NAME,
  RESULT_TTL_S,
  SIMULATOR_VERSION,
  STALL_CHECK_MS,
} from "./settings.js";
export { runSweepOnQueue, type SweepOptions, type SweepProgress, type SweepRun } from "./sweep.js";
export { parseQueueUrl, type QueueConnection, type RedisTarget, redactUrls } from "./url.js";
export { checkCell, INVALID_CELL, runWorker, type WorkerOptions, type WorkerSummary } from "./worker.js";
