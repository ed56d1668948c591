/**
 * Tracing system calls of a process tree with strace: attach to a running
 * process (typically the postmaster) with `-f`, so every backend and parallel
 * worker it forks afterwards is traced too; one output file per process
 * (`-ff`, so no process's line is ever broken by another's);
 * absolute timestamps (`-ttt`, to order events across processes); file
 * descriptors decoded to paths (`-y`); no buffer contents (`-s 0`).
 *
 * The lines are read by `@scanlab/host`'s strace parser.
 *
 * Attaching needs ptrace permission: root, or the same user with
 * kernel.yama.ptrace_scope <= 1. Each traced call costs two ptrace stops,
 * tens of microseconds, so trace only the calls you need.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseStraceLine as parseLine } from "@scanlab/host";
import { which } from "./prerequisites.js";

/** One completed system call. */
export interface SyscallEvent {
  /** Process (thread) id. */
  pid: number;
  /** Unix time in seconds, microsecond resolution. */
  timeS: number;
  /** System call name, e.g. "pread64". */
  syscall: string;
  /** First argument when it is a file descriptor. */
  fd: number;
  /** Path of that descriptor as strace -y decoded it, or null. */
  path: string | null;
  /** The remaining arguments, one per argument, as strace printed them. */
  rest: string[];
  /** Return value (negative for errors). */
  result: number;
}

/** A running trace. */
export interface SyscallTrace {
  /** Detaches strace and returns every completed call, ordered by time. */
  stop(): Promise<SyscallEvent[]>;
}

/** Options of {@link traceSyscalls}. */
export interface TraceOptions {
  /** System calls to trace (strace -e trace=...). */
  syscalls: readonly string[];
  /** strace binary (default: found on PATH). */
  strace?: string;
  /** Milliseconds to wait for strace to attach (default 10000). */
  attachTimeoutMs?: number;
}

/**
 * The event of one line of process `pid`'s `strace -ttt -y` file (`-ff`
 * writes one per process, its lines without a pid): a completed call whose
 * first argument is a file descriptor, with its `-ttt` timestamp and a
 * result; null for any other line (signals, exits, calls that did not
 * return, calls without a descriptor, lines of a shared `-f` log).
 */
export function parseStraceLine(pid: number, line: string): SyscallEvent | null {
  const call = parseLine(line);
  if (
    call?.kind !== "call" ||
    call.pid !== null ||
    call.time?.form !== "seconds" ||
    call.fd === null ||
    call.result === null
  ) {
    return null;
  }
  return {
    pid,
    timeS: call.time.seconds,
    syscall: call.syscall,
    fd: call.fd,
    path: call.path,
    rest: call.args.slice(1),
    result: call.result,
  };
}

/**
 * Attaches strace to `pid` (or each of several pids: processes forked before
 * the trace began, such as PostgreSQL 18's I/O workers) and their future
 * children. Resolves once strace has attached to all; call `stop()` to detach
 * and collect the calls.
 *
 * @example
 * ```ts
 * const trace = await traceSyscalls(pg.postmasterPid(), { syscalls: ["pread64"] });
 * await pg.psql("select count(*) from t");
 * const events = await trace.stop();
 * ```
 */
export async function traceSyscalls(
  pid: number | readonly number[],
  options: TraceOptions,
): Promise<SyscallTrace> {
  const pids = typeof pid === "number" ? [pid] : [...pid];
  const strace = options.strace ?? which("strace");
  if (strace === null) throw new Error("pg-harness: strace is not installed (Debian package strace).");
  const dir = mkdtempSync(join(tmpdir(), "scanlab-strace-"));
  const prefix = join(dir, "trace");
  const child: ChildProcess = spawn(
    strace,
    [
      "-ff",
      "-ttt",
      "-y",
      "-s",
      "0",
      "-e",
      `trace=${options.syscalls.join(",")}`,
      "-e",
      "signal=none",
      ...pids.flatMap((p) => ["-p", String(p)]),
      "-o",
      prefix,
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`pg-harness: strace did not attach to ${pids.join(", ")}: ${stderr.trim()}`)),
        options.attachTimeoutMs ?? 10_000,
      );
      child.stderr!.setEncoding("utf8").on("data", (d: string) => {
        stderr += d;
        if (pids.every((p) => stderr.includes(`Process ${p} attached`))) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.on("error", (e) => {
        clearTimeout(timer);
        reject(e);
      });
      exited.then((code) => {
        clearTimeout(timer);
        reject(
          new Error(
            `pg-harness: strace exited (${code}) before attaching to ${pids.join(", ")}: ${stderr.trim()}`,
          ),
        );
      });
    });
  } catch (e) {
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    async stop() {
      child.kill("SIGINT");
      await exited;
      try {
        const events: SyscallEvent[] = [];
        for (const name of readdirSync(dir)) {
          const tracedPid = Number(name.slice(name.lastIndexOf(".") + 1));
          for (const line of readFileSync(join(dir, name), "utf8").split("\n")) {
            const e = parseStraceLine(tracedPid, line);
            if (e !== null) events.push(e);
          }
        }
        return events.sort((a, b) => a.timeS - b.timeS);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * Traces `pid` (or several, as {@link traceSyscalls}) while `fn` runs and
 * returns what `fn` returned with every completed call, ordered by time. The
 * trace is stopped whether `fn` resolves or throws.
 *
 * @example
 * ```ts
 * const { result, events } = await traceSyscallsDuring(pg.postmasterPid(), { syscalls: ["pread64"] }, () =>
 *   pg.psql("select count(*) from t"),
 * );
 * ```
 */
export async function traceSyscallsDuring<T>(
  pid: number | readonly number[],
  options: TraceOptions,
  fn: () => Promise<T>,
): Promise<{ result: T; events: SyscallEvent[] }> {
  const trace = await traceSyscalls(pid, options);
  let result: T;
  try {
    result = await fn();
  } catch (e) {
    await trace.stop();
    throw e;
  }
  return { result, events: await trace.stop() };
}
