/**
 * A real Redis for tests and benches: `redis-server` started on a free
 * loopback port in a temporary directory, and stopped (its directory
 * removed) by `stop`. No mock: BullMQ's Lua scripts, locks and stalled-job
 * checks run as they do in production. Options give it a password, an ACL
 * user, TLS (with a throwaway certificate authority made by `openssl`) and
 * persistence, and `restart` stops and starts it again on the same port and
 * data, as a Redis restarted under its clients.
 *
 * Kept off the main entry: it starts processes and is for tests only.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue } from "bullmq";
import type { CellJobData } from "./cell.js";
import { lastingOptions } from "./connect.js";
import { KEY_PREFIX, QUEUE_NAME } from "./settings.js";
import { parseQueueUrl } from "./url.js";

/** A running redis-server of {@link startRedis}. */
export interface TestRedis {
  /** Its port on 127.0.0.1. */
  readonly port: number;
  /**
   * `redis://127.0.0.1:PORT/0` with the user and password when set, or
   * `rediss://localhost:PORT/0` with TLS (the certificate names `localhost`
   * and 127.0.0.1).
   */
  readonly url: string;
  /** The certificate authority that signed the server's certificate (PEM file), with TLS. */
  readonly caFile: string | undefined;
  /** The process (a new one after `restart`). */
  readonly process: ChildProcess;
  /** Stops the server (SIGTERM: with persistence its data is on disk), keeping its port and directory for `up`. */
  down(): Promise<void>;
  /** Starts a stopped server again on the same port and directory; resolves once it accepts connections. */
  up(): Promise<void>;
  /** `down`, a pause of `downMs` (default 0), then `up`: Redis restarted under its clients. */
  restart(downMs?: number): Promise<void>;
  /** Stops the server (SIGTERM, then SIGKILL after 10 s) and removes its directory. */
  stop(): Promise<void>;
}

/** Options of {@link startRedis}. */
export interface StartRedisOptions {
  /** Require this password (`requirepass`, or the ACL user's password with `user`). */
  password?: string;
  /** An ACL user with every command on scanlab's keys (`~scanlab:*`), and this password; the default user is then switched off. */
  user?: string;
  /** Speak TLS only, with a certificate for `localhost` from a throwaway certificate authority (`caFile`). */
  tls?: boolean;
  /** Keep the data across `restart` (an append-only file, written on every command). */
  persist?: boolean;
  /** The redis-server executable (default: `redis-server` on the PATH). */
  binary?: string;
}

/** True when `redis-server` (or `binary`) can be run. */
export function redisAvailable(binary = "redis-server"): boolean {
  return spawnSync(binary, ["--version"], { stdio: "ignore" }).status === 0;
}

/** A port that was free on 127.0.0.1 a moment ago (the kernel's pick). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** How long redis-server may take to say it is ready: 30 s, for a loaded machine (it needs well under one alone). */
const READY_MS = 30_000;

/**
 * Starts redis-server on a free loopback port in a fresh temporary
 * directory and resolves once it accepts connections. Without `persist` it
 * keeps nothing on disk. A port taken between the pick and the start is
 * tried again, three times.
 */
export async function startRedis(options: StartRedisOptions = {}): Promise<TestRedis> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const dir = mkdtempSync(join(tmpdir(), "scanlab-redis-"));
    try {
      return await startIn(dir, await freePort(), options);
    } catch (e) {
      rmSync(dir, { recursive: true, force: true });
      lastError = e;
    }
  }
  throw lastError;
}

/** Makes a certificate authority and a certificate for localhost and 127.0.0.1 signed by it, in `dir`. */
function makeCertificates(dir: string): { ca: string; cert: string; key: string } {
  const file = (name: string) => join(dir, name);
  writeFileSync(file("san.cnf"), "subjectAltName=DNS:localhost,IP:127.0.0.1\n");
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  const steps = [
    [
      "req",
      "-x509",
      ...ec,
      "-keyout",
      file("ca.key"),
      "-out",
      file("ca.crt"),
      "-days",
      "2",
      "-subj",
      "/CN=scanlab test CA",
    ],
    ["req", "-new", ...ec, "-keyout", file("redis.key"), "-out", file("redis.csr"), "-subj", "/CN=localhost"],
    [
      "x509",
      "-req",
      "-in",
      file("redis.csr"),
      "-CA",
      file("ca.crt"),
      "-CAkey",
      file("ca.key"),
      "-CAcreateserial",
    ].concat(["-out", file("redis.crt"), "-days", "2", "-extfile", file("san.cnf")]),
  ];
  for (const args of steps) {
    const r = spawnSync("openssl", args, { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`openssl ${args[0]} failed: ${(r.stderr ?? String(r.error)).trim()}`);
  }
  return { ca: file("ca.crt"), cert: file("redis.crt"), key: file("redis.key") };
}

/** The arguments of redis-server for `options` on `port` in `dir`. */
function serverArgs(
  port: number,
  dir: string,
  options: StartRedisOptions,
  certs: ReturnType<typeof makeCertificates> | null,
): string[] {
  const listen =
    certs === null
      ? ["--port", String(port)]
      : [
          "--port",
          "0",
          "--tls-port",
          String(port),
          "--tls-cert-file",
          certs.cert,
          "--tls-key-file",
          certs.key,
        ].concat(["--tls-ca-cert-file", certs.ca, "--tls-auth-clients", "no"]);
  const persistence =
    options.persist === true
      ? ["--save", "", "--appendonly", "yes", "--appendfsync", "always"]
      : ["--save", "", "--appendonly", "no"];
  let auth: string[] = [];
  if (options.user !== undefined)
    auth = [
      "--user",
      options.user,
      "on",
      `>${options.password ?? ""}`,
      `~${KEY_PREFIX}:*`,
      "&*",
      "+@all",
    ].concat(["--user", "default", "off"]);
  else if (options.password !== undefined) auth = ["--requirepass", options.password];
  return [
    ...listen,
    "--bind",
    "127.0.0.1",
    "--dir",
    dir,
    ...persistence,
    "--daemonize",
    "no",
    "--loglevel",
    "notice",
    ...auth,
  ];
}

/** A redis-server process, resolved once it is ready. */
async function spawnServer(args: string[], dir: string, binary: string): Promise<ChildProcess> {
  const child = spawn(binary, args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`redis-server did not start in ${READY_MS / 1000} s: ${output.trim()}`)),
        READY_MS,
      );
      const onData = (d: Buffer) => {
        output += d.toString();
        if (/Ready to accept connections/.test(output)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on("data", onData);
      child.stderr!.on("data", onData);
      child.once("error", (e) => {
        clearTimeout(timer);
        reject(e);
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(
          new Error(`redis-server exited (${code}) before it was ready: ${output.trim().split("\n").at(-1)}`),
        );
      });
    });
  } catch (e) {
    await kill(child);
    throw e;
  }
  // Keep draining its log so the pipe never fills.
  child.stdout!.resume();
  child.stderr!.resume();
  return child;
}

/** Stops `child` (SIGTERM, then SIGKILL after 10 s) and waits for its exit. */
async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

async function startIn(dir: string, port: number, options: StartRedisOptions): Promise<TestRedis> {
  const certs = options.tls === true ? makeCertificates(dir) : null;
  const args = serverArgs(port, dir, options, certs);
  const binary = options.binary ?? "redis-server";
  let child = await spawnServer(args, dir, binary);
  const user = options.user === undefined ? "" : encodeURIComponent(options.user);
  const password = options.password === undefined ? "" : `:${encodeURIComponent(options.password)}`;
  const auth = user === "" && password === "" ? "" : `${user}${password}@`;
  const url = certs === null ? `redis://${auth}127.0.0.1:${port}/0` : `rediss://${auth}localhost:${port}/0`;
  const down = () => kill(child);
  const up = async () => {
    if (child.exitCode === null && child.signalCode === null) return;
    child = await spawnServer(args, dir, binary);
  };
  return {
    port,
    url,
    caFile: certs?.ca,
    get process() {
      return child;
    },
    down,
    up,
    async restart(downMs = 0) {
      await down();
      if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
      await up();
    },
    async stop() {
      await kill(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The queue of cells at `url`, opened with BullMQ for a test to look at or
 * tamper with (counts, a job's data). Close it when done.
 */
export function cellsQueue(url: string): Queue<CellJobData> {
  const conn = parseQueueUrl(url);
  return new Queue<CellJobData>(QUEUE_NAME, { connection: lastingOptions(conn), prefix: KEY_PREFIX });
}
