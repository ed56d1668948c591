/**
 * Test helper: run the built CLI (dist/bin.js) in a child process, as a user
 * would, and collect its exit code and output.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The package directory (apps/cli). */
export const PKG = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The built executable. */
export const BIN = join(PKG, "dist", "bin.js");
/** Committed fixtures. */
export const FIXTURES = join(PKG, "test", "fixtures");

if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run the build first (turbo runs it before test)`);

/** What a run gave. */
export interface BinResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** True when the run was killed by the `timeoutMs` hang detector. */
  hung?: boolean;
  /** Wall time and peak resident set of the CLI process (with `measure`, when /usr/bin/time exists). */
  usage?: { wallS: number; peakRssKb: number };
}

/** Options of {@link runBin}. */
export interface RunBinOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Run as this user id (tests running as root use it to make a file unreadable). */
  uid?: number;
  /** Called once the child has started (for sending signals). */
  onSpawn?: (child: ChildProcess) => void;
  /** Send stdout or stderr to this file (e.g. /dev/full) instead of collecting it. */
  stdoutFile?: string;
  stderrFile?: string;
  /** Kill the run (SIGKILL) after this long and report it as `hung`. */
  timeoutMs?: number;
  /** Run under GNU time (/usr/bin/time) to report wall time and peak RSS in `usage`. */
  measure?: boolean;
}

/** GNU time, when the machine has it (Debian's `time` package). */
const GNU_TIME = "/usr/bin/time";

let runs = 0;

/** Runs `node dist/bin.js ...args` with colour settings and COLUMNS cleared unless given (so output is 80 columns wide). */
export function runBin(args: string[], options: RunBinOptions = {}): Promise<BinResult> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    NO_COLOR: undefined,
    FORCE_COLOR: undefined,
    COLUMNS: undefined,
    ...options.env,
  };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  const usageFile =
    options.measure && existsSync(GNU_TIME)
      ? join(tmpdir(), `scanlab-run-bin-${process.pid}-${++runs}.time`)
      : null;
  const [cmd, cmdArgs] =
    usageFile === null
      ? [process.execPath, [BIN, ...args]]
      : [GNU_TIME, ["-f", "%e %M", "-o", usageFile, process.execPath, BIN, ...args]];
  return new Promise((resolve, reject) => {
    const outFd = options.stdoutFile === undefined ? null : openSync(options.stdoutFile, "w");
    const errFd = options.stderrFile === undefined ? null : openSync(options.stderrFile, "w");
    const child = spawn(cmd, cmdArgs, {
      cwd: options.cwd ?? PKG,
      env: env as NodeJS.ProcessEnv,
      stdio: ["ignore", outFd ?? "pipe", errFd ?? "pipe"],
      ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.uid }),
      // Its own process group, so the hang detector can stop GNU time and the CLI under it together.
      ...(options.timeoutMs === undefined ? {} : { detached: true }),
    });
    for (const fd of [outFd, errFd]) if (fd !== null) closeSync(fd);
    let stdout = "";
    let stderr = "";
    child.stdout?.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    child.stderr?.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    let hung = false;
    const timer =
      options.timeoutMs === undefined
        ? null
        : setTimeout(() => {
            hung = true;
            // The whole group: GNU time and the CLI under it.
            if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
          }, options.timeoutMs);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      if (timer !== null) clearTimeout(timer);
      let usage: BinResult["usage"];
      if (usageFile !== null && existsSync(usageFile)) {
        const m = /([\d.]+) (\d+)\s*$/.exec(readFileSync(usageFile, "utf8"));
        if (m) usage = { wallS: Number(m[1]), peakRssKb: Number(m[2]) };
        rmSync(usageFile, { force: true });
      }
      resolve({ code, signal, stdout, stderr, ...(hung ? { hung } : {}), ...(usage ? { usage } : {}) });
    });
    options.onSpawn?.(child);
  });
}

/** `calibrate FILE` with the node method, short phases and no readahead pass, writing `out`. */
export const calibrateArgs = (data: string, out: string, phaseMs: number) => [
  "calibrate",
  data,
  "--method",
  "node",
  "--phase-ms",
  String(phaseMs),
  "--no-readahead",
  "--out",
  out,
];

/** A process as /proc shows it: its id and start time (so a reused id is not taken for it). */
export interface ProcessId {
  pid: number;
  /** Field 22 of /proc/PID/stat: start time in clock ticks since boot. */
  startTicks: number;
  /** Its command name. */
  comm: string;
}

function statOf(pid: number): { state: string; ppid: number; startTicks: number; comm: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = stat.lastIndexOf(")");
    const rest = stat.slice(close + 2).split(" ");
    // After "pid (comm) ": state ppid ... ; starttime is field 22 overall, index 19 here.
    return {
      state: rest[0] ?? "",
      ppid: Number(rest[1]),
      startTicks: Number(rest[19]),
      comm: stat.slice(stat.indexOf("(") + 1, close),
    };
  } catch {
    return null;
  }
}

/** Every live descendant process of `pid` (children, their children, ...), from /proc. */
export function descendants(pid: number): ProcessId[] {
  const children = new Map<number, ProcessId[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const st = statOf(Number(name));
    if (st === null) continue;
    const list = children.get(st.ppid) ?? [];
    list.push({ pid: Number(name), startTicks: st.startTicks, comm: st.comm });
    children.set(st.ppid, list);
  }
  const out: ProcessId[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const c of children.get(queue.shift()!) ?? []) {
      out.push(c);
      queue.push(c.pid);
    }
  }
  return out;
}

/** True while that very process (same id, same start time) runs; a zombie waiting to be reaped has ended. */
export function alive(p: ProcessId): boolean {
  const st = statOf(p.pid);
  return st !== null && st.startTicks === p.startTicks && st.state !== "Z";
}
