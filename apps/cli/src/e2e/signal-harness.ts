/**
 * Test helper: run a command, send it SIGINT or SIGTERM once it is busy
 * (to its own process only, not its group, as `kill PID` does), and collect
 * what a clean stop must show: the exit status, the output, every process
 * it started while it ran, and what is left in its temporary directory and
 * beside the user's files.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { alive, type BinResult, descendants, type ProcessId, runBin } from "./run-bin.js";

/** What a stopped run left. */
export interface StoppedRun extends BinResult {
  /** Processes the command started (seen while it ran) that still run after it exited. */
  orphans: ProcessId[];
  /** Every process the command started while it ran. */
  started: ProcessId[];
  /** Entries left in the TMPDIR the command was given. */
  tmpLeft: string[];
}

/**
 * Runs `args` with a fresh TMPDIR, waits until `busy()` is true (polled every 50 ms, for up to
 * 120 s: a loaded machine can be slow to start), sends `signal`, and waits for the exit.
 */
export async function stopWhenBusy(
  args: string[],
  signal: "SIGINT" | "SIGTERM",
  busy: (pid: number) => boolean,
  options: { cwd?: string } = {},
): Promise<StoppedRun> {
  const tmp = mkdtempSync(join(tmpdir(), "scanlab-sig-tmp-"));
  let child: ChildProcess | undefined;
  const started = new Map<string, ProcessId>();
  const run = runBin(args, {
    env: { TMPDIR: tmp },
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    onSpawn: (c) => {
      child = c;
    },
  });
  let exited = false;
  void run.then(() => {
    exited = true;
  });
  const record = () => {
    if (child?.pid === undefined || exited) return;
    for (const p of descendants(child.pid)) started.set(`${p.pid}/${p.startTicks}`, p);
  };
  for (let i = 0; i < 2400 && !exited; i++) {
    record();
    if (child?.pid !== undefined && busy(child.pid)) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  record();
  if (!exited) child!.kill(signal);
  const r = await run;
  // The command exited: nothing it started may run on.
  await new Promise((res) => setTimeout(res, 300));
  const list = [...started.values()];
  const tmpLeft = readdirSync(tmp);
  rmSync(tmp, { recursive: true, force: true });
  return { ...r, started: list, orphans: list.filter(alive), tmpLeft };
}

/** Clock ticks per second of /proc/PID/stat's times (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/**
 * A `busy` condition: true once the process has used `ms` of CPU time (all
 * its threads, from /proc/PID/stat utime + stime). CPU time, not wall time:
 * on a loaded machine a process needs longer to get through its start-up, and
 * a condition on CPU time waits for it, while on a fast machine it does not
 * let a short command finish first.
 */
export function afterCpu(ms: number): (pid: number) => boolean {
  return (pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // After "pid (comm) ": utime and stime are fields 14 and 15 overall, indexes 11 and 12 here.
      const ticks = Number(rest[11]) + Number(rest[12]);
      return (ticks / USER_HZ) * 1000 >= ms;
    } catch {
      return false;
    }
  };
}
