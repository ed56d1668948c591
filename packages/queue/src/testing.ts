/**
 * A real Redis for tests and benches: `redis-server` started on a free
 * loopback port in a temporary directory, with nothing saved to disk, and
 * stopped (its directory removed) by `stop`. No mock: BullMQ's Lua scripts,
 * locks and stalled-job checks run as they do in production.
 *
 * Kept off the main entry: it starts processes and is for tests only.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
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
  /** `redis://127.0.0.1:PORT/0`, with the password when one was set. */
  readonly url: string;
  /** The process. */
  readonly process: ChildProcess;
  /** Stops the server (SIGTERM, then SIGKILL after 10 s) and removes its directory. */
  stop(): Promise<void>;
}

/** Options of {@link startRedis}. */
export interface StartRedisOptions {
  /** Require this password (`requirepass`). */
  password?: string;
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
 * directory, without persistence, and resolves once it accepts connections.
 * A port taken between the pick and the start is tried again, three times.
 */
export async function startRedis(options: StartRedisOptions = {}): Promise<TestRedis> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(options);
    } catch (e) {
      lastError = e;
    }
  }
  throw lastError;
}

async function startOnce(options: StartRedisOptions): Promise<TestRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "scanlab-redis-"));
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--dir",
    dir,
    "--save",
    "",
    "--appendonly",
    "no",
    "--daemonize",
    "no",
    "--loglevel",
    "notice",
    ...(options.password === undefined ? [] : ["--requirepass", options.password]),
  ];
  const child = spawn(options.binary ?? "redis-server", args, {
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
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
    await stop();
    throw e;
  }
  // Keep draining its log so the pipe never fills.
  child.stdout!.resume();
  child.stderr!.resume();
  const auth = options.password === undefined ? "" : `:${encodeURIComponent(options.password)}@`;
  return { port, url: `redis://${auth}127.0.0.1:${port}/0`, process: child, stop };
}

/**
 * The queue of cells at `url`, opened with BullMQ for a test to look at or
 * tamper with (counts, a job's data). Close it when done.
 */
export function cellsQueue(url: string): Queue<CellJobData> {
  const conn = parseQueueUrl(url);
  return new Queue<CellJobData>(QUEUE_NAME, { connection: lastingOptions(conn), prefix: KEY_PREFIX });
}
