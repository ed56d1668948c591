/**
 * Expiry of everything scanlab writes in Redis.
 *
 * BullMQ removes a finished job past its age (`removeOnComplete`) only when
 * another job of its queue finishes, and it never gives a key of its own an
 * expiry: the last results of a queue, its lists, counters and event stream
 * would stay in Redis for ever. So each writer gives what it wrote an expiry
 * right after writing it:
 *
 * - a sweep gives the cells it adds `CELL_TTL_S` (a cell waits that
 *   long at most), and when it ends, every cell of the sweep
 *   {@link RESULT_TTL_S} from then (a result is kept that long after its
 *   sweep last used it);
 * - a worker gives each cell it finished (stored or failed)
 *   {@link RESULT_TTL_S};
 * - both give every key of the queue itself {@link RESULT_TTL_S} each time,
 *   so the queue outlives its last cell and then goes too.
 *
 * No key of the queue is ever written without an expiry of at most
 * {@link RESULT_TTL_S} following within one round trip; a key that a writer
 * made without one (BullMQ's Lua scripts) gets it from the same writer.
 */
import type { Redis } from "ioredis";
import { RESULT_TTL_S } from "./settings.js";

/** What BullMQ gives of a queue, a worker or a sweep's queue: its keys and a client. */
export interface QueueKeys {
  /** The queue's own keys (lists, sets, counters, its event stream, its meta data). */
  readonly keys: Record<string, string>;
  /** The key of a job, by its id. */
  toKey(type: string): string;
}

/**
 * Keys of the queue that BullMQ writes with a short expiry of their own, left
 * alone: the guard of the stalled-cell check (one check per interval among
 * all workers, which a longer expiry would stop) and the rate limiter.
 */
const OWN_EXPIRY = new Set(["stalled-check", "limiter"]);

/**
 * Sets the keys of the cells `jobIds` (their hashes, and their logs when
 * they have any) to expire `ttlS` seconds from now, and every key of the
 * queue {@link RESULT_TTL_S} from now, in one round trip. A cell's claim
 * (its lock) keeps its own short expiry.
 */
export async function expireKeys(
  client: Redis,
  queue: QueueKeys,
  jobIds: readonly string[],
  ttlS: number,
): Promise<void> {
  const pipeline = client.pipeline();
  for (const [name, key] of Object.entries(queue.keys))
    if (!OWN_EXPIRY.has(name)) pipeline.expire(key, RESULT_TTL_S);
  for (const id of jobIds) {
    const job = queue.toKey(id);
    pipeline.expire(job, ttlS);
    pipeline.expire(`${job}:logs`, ttlS);
  }
  const answers = (await pipeline.exec()) ?? [];
  for (const [error] of answers) if (error) throw error;
}
