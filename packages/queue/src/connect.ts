/**
 * Reaching the queue's Redis, with one sentence for each way it fails.
 *
 * A command line should not hang on a wrong address, so before any queue is
 * opened one short-lived connection is made without retries: refused,
 * unknown host, time-out, wrong password and a server that is not a Redis
 * are told apart and reported at once. The long-lived connections opened
 * after it reconnect by themselves (ioredis's back-off), which is what lets
 * a sweep or a worker ride out a Redis restart.
 */
import { errorClause } from "@scanlab/core";
import { Redis, type RedisOptions } from "ioredis";
import { QueueError } from "./errors.js";
import { RECONNECT_MAX_MS, SOCKET_TIMEOUT_MS } from "./settings.js";
import { type QueueConnection, redactUrls } from "./url.js";

/** How long the first connection may take: 5 s, generous for a remote Redis, short for a person waiting. */
const CONNECT_TIMEOUT_MS = 5_000;

/** The error's own code (ECONNREFUSED) or the first word of a Redis error reply (WRONGPASS). */
function errorCode(e: unknown): string {
  const code = (e as { code?: unknown }).code;
  if (typeof code === "string") return code;
  return /^([A-Z][A-Z_-]+)\b/.exec(errorClause(e))?.[1] ?? "";
}

/** The sentence for a failure to reach or use the queue at `conn`. */
export function describeFailure(conn: QueueConnection, e: unknown): QueueError {
  const code = errorCode(e);
  const clause = redactUrls(errorClause(e), conn.secrets);
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS_CERT/.test(code))
    return new QueueError(
      `The queue at ${conn.display} presented a TLS certificate that cannot be verified (${clause}): trust the certificate authority that signed it with NODE_EXTRA_CA_CERTS=FILE, and use the host name the certificate names.`,
      { code: "QUEUE_TLS", cause: e },
    );
  if (["WRONGPASS", "NOAUTH", "NOPERM"].includes(code) || /AUTH|password/i.test(clause))
    return new QueueError(
      `The queue at ${conn.display} refused the user or password (${clause}): check the URL's user:password.`,
      { code: "QUEUE_AUTH", cause: e },
    );
  if (/DB index is out of range/i.test(clause))
    return new QueueError(`The queue at ${conn.display} has no such database (${clause}).`, {
      code: "QUEUE_BAD_URL",
      cause: e,
    });
  if (
    /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ECONNRESET|EPIPE)$/.test(code) ||
    /connect|closed|timeout/i.test(clause)
  )
    return new QueueError(
      `Cannot reach the queue at ${conn.display} (${clause}): is redis-server running there and reachable?`,
      { code: "QUEUE_UNREACHABLE", runtime: true, cause: e },
    );
  return new QueueError(`The queue at ${conn.display} failed (${clause}).`, {
    code: "QUEUE_SERVER",
    runtime: true,
    cause: e,
  });
}

/**
 * Connects once, without retries, and asks the server for PING and its
 * version: resolves when the queue can be used.
 *
 * @throws QueueError naming the failure (unreachable, refused password, not a Redis)
 */
export async function probe(conn: QueueConnection): Promise<void> {
  const client = new Redis({
    ...conn.redis,
    lazyConnect: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
    reconnectOnError: () => false,
  });
  let lastError: unknown = null;
  client.on("error", (e: unknown) => {
    lastError = e;
  });
  try {
    await client.connect();
    const pong = await client.ping();
    if (pong !== "PONG") throw new Error(`PING answered ${String(pong)}`);
  } catch (e) {
    // The connection's own error event may say more (WRONGPASS, a certificate) than the rejected call (Connection is closed).
    throw describeFailure(conn, pickTelling(e, lastError) ?? e);
  } finally {
    client.disconnect();
  }
}

/** Of two errors of one failed connection, the one that speaks of authentication, or else of a certificate, if any. */
function pickTelling(a: unknown, b: unknown): unknown {
  for (const e of [a, b]) if (/WRONGPASS|NOAUTH|NOPERM|AUTH/.test(errorClause(e))) return e;
  for (const e of [a, b]) if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(errorCode(e))) return e;
  return undefined;
}

/**
 * Options of a long-lived connection: it reconnects for ever, at most
 * {@link RECONNECT_MAX_MS} apart, and keeps its commands meanwhile (BullMQ
 * requires `maxRetriesPerRequest: null`); a connection that waits
 * {@link SOCKET_TIMEOUT_MS} for an answer is dropped and made again. The
 * waits of the sweep and the worker above it are bounded on their own.
 */
export function lastingOptions(conn: QueueConnection): RedisOptions {
  return {
    ...conn.redis,
    maxRetriesPerRequest: null,
    connectTimeout: CONNECT_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
    retryStrategy: (attempt: number) => Math.min(100 * attempt, RECONNECT_MAX_MS),
  };
}
