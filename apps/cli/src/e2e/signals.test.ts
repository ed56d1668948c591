/**
 * SIGINT and SIGTERM stop the long simulating commands cleanly: exit 130 or
 * 143 (128 + the signal), what was finished printed (the JSON says
 * `interrupted`), nothing left in the temporary directory, and no process
 * they started still running. The signal goes to the command's own process,
 * not its group. (`scan` and `calibrate` read the device: signals.live.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { afterCpu, stopWhenBusy } from "./signal-harness.js";

const commands: [string, string[]][] = [
  // Each takes tens of seconds of CPU on an idle 2-core machine (the warp makes large seq scans quick,
  // hence a bitmap sweep, every target and an exact scan), far more than the 3 s of CPU after which the
  // signal is sent.
  [
    "sweep",
    [
      "sweep",
      "--workload",
      "bitmap",
      "--dataset",
      "random",
      "--selectivity",
      "20%",
      "--table-size",
      "32GB",
      "--vary",
      "effective-io-concurrency=0,1,2,4",
      "--jobs",
      "2",
    ],
  ],
  ["reproduce", ["reproduce", "--no-calibration", "--jobs", "2"]],
  ["simulate", ["simulate", "--table-size", "400GB", "--workers", "2", "--exact"]],
];

describe.each(commands)("%s stops cleanly", (_name, args) => {
  it.each([
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const)("on %s: exit %d, prints what it finished, leaves nothing", async (signal, status) => {
    // After 3 s of the command's own CPU time: past start-up (handlers installed) however loaded the
    // machine is, and long before the command ends however fast it is.
    const r = await stopWhenBusy([...args, "--json"], signal, afterCpu(3000));
    expect(r.stderr).toContain(signal === "SIGINT" ? "interrupted" : "terminated (SIGTERM)");
    expect(r.code).toBe(status);
    expect(r.signal).toBeNull();
    expect(JSON.parse(r.stdout).result.interrupted).toBe(true);
    expect(r.tmpLeft).toEqual([]);
    expect(r.orphans).toEqual([]);
  });
});
