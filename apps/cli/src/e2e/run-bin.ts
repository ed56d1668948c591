/**
 * Test helper: run the built CLI (dist/bin.js) in a child process, as a user
 * would, and collect its exit code and output.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
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
}

/** Options of {@link runBin}. */
export interface RunBinOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Run as this user id (tests running as root use it to make a file unreadable). */
  uid?: number;
  /** Called once the child has started (for sending signals). */
  onSpawn?: (child: ChildProcess) => void;
}

/** Runs `node dist/bin.js ...args` with colour settings cleared unless given. */
export function runBin(args: string[], options: RunBinOptions = {}): Promise<BinResult> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    NO_COLOR: undefined,
    FORCE_COLOR: undefined,
    ...options.env,
  };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? PKG,
      env: env as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
      ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.uid }),
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
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
