/**
 * Test helper: run the built CLI (dist/bin.js) in a child process, as a user
 * would, and collect its exit code and output.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
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
  /** Kill the run (SIGKILL) after this long and report it as `hung`. */
  timeoutMs?: number;
  /** Run under GNU time (/usr/bin/time) to report wall time and peak RSS in `usage`. */
  measure?: boolean;
}

/** GNU time, when the machine has it (Debian's `time` package). */
const GNU_TIME = "/usr/bin/time";

let runs = 0;

/** Runs `node dist/bin.js ...args` with colour settings cleared unless given. */
export function runBin(args: string[], options: RunBinOptions = {}): Promise<BinResult> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    NO_COLOR: undefined,
    FORCE_COLOR: undefined,
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
    const child = spawn(cmd, cmdArgs, {
      cwd: options.cwd ?? PKG,
      env: env as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
      ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.uid }),
      // Its own process group, so the hang detector can stop GNU time and the CLI under it together.
      ...(options.timeoutMs === undefined ? {} : { detached: true }),
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
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
