/**
 * A throwaway PostgreSQL cluster: initdb into a fresh temporary directory,
 * start it listening only on a unix socket in that directory (no TCP), run
 * SQL through psql, restart it (to empty shared buffers), and always clean up:
 * `stop()` stops the server and removes the directory, and a process `exit`
 * hook does the same if a test runner dies before calling it.
 *
 * PostgreSQL refuses to run as root. When this process is root, initdb and
 * pg_ctl run as an unprivileged user: `options.user`, `$SCANLAB_PG_USER`, the
 * `postgres` user if it exists, else `nobody`, else a `scanlab` system user
 * created with useradd. psql (a client) runs as the current user and connects
 * as the cluster's superuser `postgres` over the socket with trust auth.
 */
import { type SpawnOptions, spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { liveGate } from "./prerequisites.js";

/** Options of {@link startCluster}. */
export interface ClusterOptions {
  /** PostgreSQL major version to use (default: the newest installed). */
  pgMajor?: number;
  /** Directory of postgres / initdb / pg_ctl / psql (default: found by {@link liveGate}). */
  pgBin?: string;
  /** postgresql.conf settings added to (and overriding) the defaults below. */
  settings?: Record<string, string | number | boolean>;
  /** OS user to run the server as when this process is root. */
  user?: string;
  /** Directory under which the temporary cluster directory is made (default: os.tmpdir()). */
  parentDir?: string;
}

/**
 * Settings every harness cluster gets (before `options.settings`): no TCP, a
 * socket in the cluster's own directory, no durability work (throwaway data),
 * no autovacuum or JIT (nothing runs behind the test's back).
 */
export const DEFAULT_SETTINGS: Readonly<Record<string, string | number | boolean>> = {
  listen_addresses: "",
  port: 5432,
  max_connections: 20,
  fsync: false,
  synchronous_commit: false,
  full_page_writes: false,
  autovacuum: false,
  jit: false,
};

/** A running throwaway cluster. */
export interface Cluster {
  /** The temporary directory holding everything (removed by stop()). */
  readonly dir: string;
  /** PGDATA (real path, as the kernel and strace report it). */
  readonly dataDir: string;
  /** Directory of the unix socket (psql -h). */
  readonly socketDir: string;
  /** Port number in the socket's name. */
  readonly port: number;
  /** Directory of the server binaries. */
  readonly pgBin: string;
  /** OS user running the server. */
  readonly osUser: string;
  /** The postmaster's process id (changes on restart). */
  postmasterPid(): number;
  /**
   * Runs SQL through `psql -X -q -A -t -v ON_ERROR_STOP=1` (statements one by
   * one, so VACUUM works) and returns its standard output, trimmed.
   * Rejects with psql's error output if a statement fails.
   */
  psql(sql: string, options?: { database?: string }): Promise<string>;
  /** Stops and starts the server (pg_ctl restart -m fast): shared buffers are empty afterwards. */
  restart(): Promise<void>;
  /** The server log so far. */
  log(): string;
  /** Stops the server and removes the directory. Safe to call more than once. */
  stop(): Promise<void>;
}

interface OsUser {
  name: string;
  uid: number;
  gid: number;
}

function lookupUser(name: string): OsUser | null {
  if (!existsSync("/etc/passwd")) return null;
  for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
    const f = line.split(":");
    if (f[0] === name && f.length >= 4) return { name, uid: Number(f[2]), gid: Number(f[3]) };
  }
  return null;
}

function serverUser(requested: string | undefined): OsUser | null {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return null;
  const wanted = requested ?? process.env.SCANLAB_PG_USER;
  if (wanted) {
    const u = lookupUser(wanted);
    if (u === null) throw new Error(`pg-harness: OS user ${JSON.stringify(wanted)} does not exist.`);
    return u;
  }
  for (const name of ["postgres", "nobody"]) {
    const u = lookupUser(name);
    if (u !== null) return u;
  }
  const r = spawnSync("useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "scanlab"]);
  const u = lookupUser("scanlab");
  if (u === null)
    throw new Error(`pg-harness: no unprivileged user to run PostgreSQL as (useradd: ${r.stderr})`);
  return u;
}

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(
  command: string,
  args: string[],
  options: { as?: OsUser | null; input?: string; cwd?: string } = {},
) {
  return new Promise<RunResult>((resolve, reject) => {
    const spawnOptions: SpawnOptions = {
      cwd: options.cwd ?? "/",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C", LC_ALL: "C", TZ: "UTC" },
      stdio: ["pipe", "pipe", "pipe"],
    };
    if (options.as) {
      spawnOptions.uid = options.as.uid;
      spawnOptions.gid = options.as.gid;
    }
    const child = spawn(command, args, spawnOptions);
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    child.stderr!.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin!.end(options.input ?? "");
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > deadline) {
      process.kill(pid, "SIGKILL");
      return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

function confValue(value: string | number | boolean): string {
  if (typeof value === "boolean") return value ? "on" : "off";
  if (typeof value === "number") return String(value);
  return `'${value.replaceAll("'", "''")}'`;
}

/**
 * Starts a throwaway cluster. Always pair with `stop()` (or use {@link withCluster}).
 *
 * @example
 * ```ts
 * const pg = await startCluster({ pgMajor: 15, settings: { shared_buffers: "16MB" } });
 * try {
 *   console.log(await pg.psql("select version()"));
 * } finally {
 *   await pg.stop();
 * }
 * ```
 */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const gate = liveGate({ pgMajor: options.pgMajor, strace: false });
  const pgBin = options.pgBin ?? gate.pgBin;
  if (pgBin === null) throw new Error(`pg-harness: ${gate.reason}`);
  const psqlPath = existsSync(join(pgBin, "psql")) ? join(pgBin, "psql") : gate.psql;
  if (psqlPath === null) throw new Error("pg-harness: no psql client found.");
  const as = serverUser(options.user);
  const dir = realpathSync(mkdtempSync(join(options.parentDir ?? tmpdir(), "scanlab-pg-")));
  const dataDir = join(dir, "data");
  const logFile = join(dir, "server.log");
  let stopped = false;

  const cleanupSync = () => {
    if (stopped) return;
    stopped = true;
    spawnSync(join(pgBin, "pg_ctl"), ["-D", dataDir, "-m", "immediate", "-w", "stop"], {
      stdio: "ignore",
      ...(as ? { uid: as.uid, gid: as.gid } : {}),
    });
    rmSync(dir, { recursive: true, force: true });
  };
  process.once("exit", cleanupSync);

  try {
    chmodSync(dir, 0o700);
    if (as) chownSync(dir, as.uid, as.gid);
    const init = await run(
      join(pgBin, "initdb"),
      ["-D", dataDir, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"],
      { as, cwd: dir },
    );
    if (init.code !== 0) throw new Error(`pg-harness: initdb failed: ${init.stderr.trim()}`);
    const settings: Record<string, string | number | boolean> = {
      ...DEFAULT_SETTINGS,
      unix_socket_directories: dir,
      ...options.settings,
    };
    const conf = Object.entries(settings)
      .map(([k, v]) => `${k} = ${confValue(v)}`)
      .join("\n");
    writeFileSync(
      join(dataDir, "postgresql.conf"),
      `${readFileSync(join(dataDir, "postgresql.conf"), "utf8")}\n# scanlab pg-harness\n${conf}\n`,
    );
    const port = Number(settings.port);

    const pgCtl = async (...args: string[]) => {
      const r = await run(join(pgBin, "pg_ctl"), ["-D", dataDir, "-l", logFile, "-w", "-t", "60", ...args], {
        as,
        cwd: dir,
      });
      if (r.code !== 0) {
        const log = existsSync(logFile)
          ? readFileSync(logFile, "utf8").split("\n").slice(-15).join("\n")
          : "";
        throw new Error(`pg-harness: pg_ctl ${args.join(" ")} failed: ${r.stderr.trim()}\n${log}`);
      }
    };
    await pgCtl("start");

    const cluster: Cluster = {
      dir,
      dataDir,
      socketDir: dir,
      port,
      pgBin,
      osUser: as?.name ?? process.env.USER ?? "current user",
      postmasterPid() {
        return Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
      },
      async psql(sql, psqlOptions = {}) {
        const r = await run(
          psqlPath,
          [
            "-X",
            "-q",
            "-A",
            "-t",
            "-v",
            "ON_ERROR_STOP=1",
            "-h",
            dir,
            "-p",
            String(port),
            "-U",
            "postgres",
            "-d",
            psqlOptions.database ?? "postgres",
            "-f",
            "-",
          ],
          { input: sql },
        );
        if (r.code !== 0) throw new Error(`pg-harness: psql failed: ${r.stderr.trim()}`);
        return r.stdout.trim();
      },
      async restart() {
        await pgCtl("-m", "fast", "restart");
      },
      log() {
        return existsSync(logFile) ? readFileSync(logFile, "utf8") : "";
      },
      async stop() {
        if (stopped) return;
        try {
          const pid = existsSync(join(dataDir, "postmaster.pid")) ? cluster.postmasterPid() : 0;
          await run(join(pgBin, "pg_ctl"), ["-D", dataDir, "-m", "fast", "-w", "-t", "30", "stop"], {
            as,
            cwd: dir,
          });
          // pg_ctl returns when postmaster.pid is gone, a moment before the process itself ends.
          if (pid > 0) await waitForExit(pid, 10_000);
        } finally {
          cleanupSync();
          process.removeListener("exit", cleanupSync);
        }
      },
    };
    return cluster;
  } catch (e) {
    cleanupSync();
    process.removeListener("exit", cleanupSync);
    throw e;
  }
}

/**
 * Runs `fn` with a fresh cluster and always stops and removes it afterwards,
 * whether `fn` succeeds or throws.
 *
 * @example
 * ```ts
 * const version = await withCluster({ pgMajor: 15 }, (pg) => pg.psql("show server_version"));
 * ```
 */
export async function withCluster<T>(
  options: ClusterOptions,
  fn: (cluster: Cluster) => Promise<T>,
): Promise<T> {
  const cluster = await startCluster(options);
  try {
    return await fn(cluster);
  } finally {
    await cluster.stop();
  }
}
