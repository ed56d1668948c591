/**
 * Node only. Running a measuring program (fio) as a child that never
 * outlives the measurement.
 *
 * Problem. `spawnSync` blocks the event loop for the whole fio run: a
 * SIGTERM or SIGINT to the calling process cannot be handled until fio has
 * finished, and if the caller dies first, fio keeps reading the device for
 * the rest of its runtime, alone.
 *
 * Insight. Run it asynchronously and tie its life to two things the caller
 * controls: an AbortSignal (the caller's clean stop) and the process's
 * `exit` event (the caller quitting at once, e.g. a second Ctrl-C).
 *
 * Choices.
 * - On abort the child gets SIGTERM (fio stops its jobs and exits), then
 *   SIGKILL after `KILL_AFTER_MS` if it is still there; the promise rejects
 *   with the signal's AbortError only once the child has exited, so the
 *   caller's "stopped" really means stopped.
 * - On `exit` (nothing asynchronous can run any more) the child gets
 *   SIGKILL synchronously.
 * - Output is collected up to `maxBuffer` bytes; past that the child is
 *   stopped and the run fails, like spawnSync's maxBuffer.
 */
import { spawn } from "node:child_process";

/** How long a child may take to stop after SIGTERM before it gets SIGKILL (our choice: fio stops within a second). */
const KILL_AFTER_MS = 3000;

/** What a finished child gave. */
export interface ChildOutput {
  /** Exit status, or null when a signal ended it. */
  status: number | null;
  stdout: string;
  stderr: string;
  /** Set when the child could not be started (e.g. ENOENT). */
  error?: Error;
}

/**
 * Runs `command args`, resolving with its output when it exits; rejects with
 * the signal's reason (an AbortError) once the child has stopped after an abort.
 */
export function runChild(
  command: string,
  args: readonly string[],
  options: { signal?: AbortSignal; maxBuffer?: number } = {},
): Promise<ChildOutput> {
  const { signal } = options;
  const maxBuffer = options.maxBuffer ?? 64 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let error: Error | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    const stop = () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      killTimer = setTimeout(() => child.kill("SIGKILL"), KILL_AFTER_MS);
    };
    const onExit = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    };
    process.on("exit", onExit);
    signal?.addEventListener("abort", stop, { once: true });
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
      if (stdout.length > maxBuffer) {
        error = new Error(`output larger than ${maxBuffer} bytes`);
        stop();
      }
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      if (stderr.length < maxBuffer) stderr += d;
    });
    let settled = false;
    const finish = (status: number | null) => {
      if (settled) return;
      settled = true;
      if (killTimer !== undefined) clearTimeout(killTimer);
      process.off("exit", onExit);
      signal?.removeEventListener("abort", stop);
      if (signal?.aborted) reject(signal.reason);
      else resolve({ status, stdout, stderr, ...(error === undefined ? {} : { error }) });
    };
    child.on("error", (e) => {
      error = e;
      // Never started (no such program): no exit will follow.
      if (child.pid === undefined) finish(null);
    });
    child.on("close", finish);
  });
}
