/**
 * Queue URLs: `redis://[user[:password]@]host[:port][/db]`, or `rediss://`
 * for TLS, the form Redis clients share (IANA's provisional `redis` and
 * `rediss` URI schemes). A URL may carry a password, so it is shown only
 * through {@link redactUrls}: the password becomes `***` in every message and
 * log line, including the message about a URL too broken to parse.
 */
import { isIP } from "node:net";
import { QueueError } from "./errors.js";

/** Where a queue is and how to log in: the connection options a Redis client takes. */
export interface RedisTarget {
  /** Host name or address (an IPv6 address without brackets). */
  host: string;
  /** TCP port. */
  port: number;
  /** Database number. */
  db: number;
  /** ACL user, when the URL names one. */
  username?: string;
  /** Password, when the URL has one. */
  password?: string;
  /**
   * TLS (a `rediss://` URL). The server's certificate is checked against the
   * URL's host and Node's trusted certificate authorities, to which
   * `NODE_EXTRA_CA_CERTS` adds a private one.
   */
  tls?: {
    /** The name sent to the server (SNI): the URL's host when it is a name, not an address. */
    servername?: string;
  };
}

/** A parsed queue URL. */
export interface QueueConnection {
  /** The URL with any password replaced by `***`: what messages and logs show. */
  readonly display: string;
  /** Connection options (host, port, db, username, password, TLS). */
  readonly redis: RedisTarget;
  /** Texts that must never be printed: the password as written and URL-decoded. */
  readonly secrets: readonly string[];
}

/** Redis's default port. */
const DEFAULT_PORT = 6379;

/** A password in a redis URL: after `scheme://user:` up to the last `@` of the authority. */
const URL_PASSWORD = /\b(rediss?:\/\/[^\s:@/]*:)[^\s/]*@/gi;

/**
 * `text` with the password of every `redis://` or `rediss://` URL in it, and
 * every one of `secrets`, replaced by `***`.
 *
 * @example
 * ```ts
 * import { redactUrls } from "@scanlab/queue";
 * redactUrls("cannot reach redis://ci:s3cret@queue.example:6379/2"); // "cannot reach redis://ci:***@queue.example:6379/2"
 * ```
 */
export function redactUrls(text: string, secrets: readonly string[] = []): string {
  let out = text.replace(URL_PASSWORD, "$1***@");
  for (const s of secrets) if (s.length > 0) out = out.split(s).join("***");
  return out;
}

/**
 * Parses a queue URL: `redis://` or `rediss://` (TLS), an optional ACL user
 * and password, a host, an optional port (6379) and an optional database
 * number (0).
 *
 * @throws QueueError (`QUEUE_BAD_URL`) naming what is wrong, with the password redacted
 * @example
 * ```ts
 * import { parseQueueUrl } from "@scanlab/queue";
 * const q = parseQueueUrl("rediss://ci:s3cret@queue.example:6380/2");
 * console.log(q.display, q.redis.port, q.redis.db); // rediss://ci:***@queue.example:6380/2 6380 2
 * ```
 */
export function parseQueueUrl(raw: string): QueueConnection {
  const shown = redactUrls(raw);
  const bad = (why: string): QueueError =>
    new QueueError(
      `--queue "${shown}" is not a queue URL: ${why} (e.g. redis://localhost:6379/0, or rediss://user:password@host:6380/1).`,
      { code: "QUEUE_BAD_URL" },
    );
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw bad("it does not parse as a URL");
  }
  const scheme = url.protocol.replace(/:$/, "").toLowerCase();
  if (scheme !== "redis" && scheme !== "rediss") throw bad(`its scheme is ${scheme}, not redis or rediss`);
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (host === "") throw bad("it names no host");
  let port = DEFAULT_PORT;
  if (url.port !== "") {
    port = Number(url.port);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw bad("its port is not from 1 to 65535");
  }
  const path = url.pathname.replace(/^\//, "");
  let db = 0;
  if (path !== "") {
    if (!/^\d{1,9}$/.test(path)) throw bad(`its path "/${path}" is not a database number`);
    db = Number(path);
  }
  if (url.search !== "" || url.hash !== "")
    throw bad("it has a query or fragment, which scanlab does not read");
  let username: string;
  let password: string;
  try {
    username = decodeURIComponent(url.username);
    password = decodeURIComponent(url.password);
  } catch {
    throw bad("its user or password is not valid percent-encoding");
  }
  const secrets = password === "" ? [] : [...new Set([password, url.password])];
  const redis: RedisTarget = {
    host,
    port,
    db,
    ...(username === "" ? {} : { username }),
    ...(password === "" ? {} : { password }),
    // SNI carries host names only (RFC 6066, section 3); an address is still checked against the certificate.
    ...(scheme === "rediss" ? { tls: isIP(host) === 0 ? { servername: host } : {} } : {}),
  };
  const auth = username === "" && password === "" ? "" : `${url.username}${password === "" ? "" : ":***"}@`;
  const display = `${scheme}://${auth}${url.host}/${db}`;
  return { display, redis, secrets };
}
