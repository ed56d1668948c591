/**
 * Printed throughput is the bytes a run read over its time. For a warped
 * scan (the warp cuts the steady stretch out of the table, crediting its
 * blocks to the run), an exact scan and a bitmap heap scan, the MiB/s that
 * `simulate` prints, its JSON `mibPerS` and `sweep`'s MiB/s column and
 * `mibPerS` all equal the run's blocks x 8192 bytes over its duration,
 * recomputed here from the runs in the JSON.
 */
import { describe, expect, it } from "vitest";
import { runBin } from "./run-bin.js";

interface Run {
  finished: boolean;
  blocks: number;
  durationS: number;
}

/** MiB over seconds, from the runs alone (mean bytes over mean time). */
function bytesOverTime(runs: readonly Run[]): number {
  const done = runs.filter((r) => r.finished);
  const bytes = done.reduce((a, r) => a + r.blocks * 8192, 0) / done.length;
  const seconds = done.reduce((a, r) => a + r.durationS, 0) / done.length;
  return bytes / 1048576 / seconds;
}

/** The MiB/s cell of the first data row of the first table with a "MiB/s" header. */
function printedMibPerS(text: string): number {
  const lines = text.split("\n");
  const head = lines.findIndex((l) => l.includes("MiB/s"));
  expect(head).toBeGreaterThanOrEqual(0);
  const cells = (l: string) => l.split("│").map((c) => c.trim());
  const col = cells(lines[head]!).indexOf("MiB/s");
  return Number(cells(lines[head + 1]!)[col]!.replace(/,/g, ""));
}

const device = ["--device", "intel-ssd-320-120gb", "--os", "linux-5.4", "--ram", "2GB"];
/** `simulate` fixes the core count; `sweep` varies it over that one value, so its point is the same scenario. */
const cores = ["--cores", "4"];
const cases: [string, string[], (warpCuts: number) => void][] = [
  [
    "warped seq scan (4 GB, the warp credits the steady middle)",
    ["--table-size", "4GB", "--workers", "2", ...device],
    (cuts) => expect(cuts).toBeGreaterThan(0),
  ],
  [
    "exact seq scan (--exact, two clients x two runs)",
    ["--table-size", "512MB", "--workers", "2", "--clients", "2", "--runs", "2", "--exact", ...device],
    (cuts) => expect(cuts).toBe(0),
  ],
  [
    "bitmap heap scan of 10% of the pages",
    [
      "--workload",
      "bitmap",
      "--dataset",
      "sequential",
      "--selectivity",
      "10%",
      "--table-size",
      "1GB",
      ...device,
    ],
    () => {},
  ],
];

describe("throughput is bytes read over time", () => {
  it.each(cases)("%s: simulate text and JSON", async (_name, args, checkWarp) => {
    const [json, text] = await Promise.all([
      runBin(["simulate", ...args, ...cores, "--json"]),
      runBin(["simulate", ...args, ...cores]),
    ]);
    expect(json.code).toBe(0);
    expect(text.code).toBe(0);
    const result = JSON.parse(json.stdout).result.simulation;
    checkWarp(result.warp.cuts);
    const q = result.queries[0];
    const expected = bytesOverTime(q.runs);
    expect(q.mibPerS).toBeCloseTo(expected, 6);
    expect(printedMibPerS(text.stdout)).toBe(Math.round(expected));
  });

  it.each(cases)("%s: sweep text and JSON", async (_name, allArgs) => {
    // sweep has no --exact (it always lets the warp run): the same scenario without it.
    const args = allArgs.filter((a) => a !== "--exact");
    const sweepArgs = ["sweep", ...args, "--vary", "cores=4"];
    const [sim, json, text] = await Promise.all([
      runBin(["simulate", ...args, ...cores, "--json"]),
      runBin([...sweepArgs, "--json"]),
      runBin(sweepArgs),
    ]);
    expect(sim.code).toBe(0);
    expect(json.code).toBe(0);
    expect(text.code).toBe(0);
    const expected = bytesOverTime(JSON.parse(sim.stdout).result.simulation.queries[0].runs);
    const point = JSON.parse(json.stdout).result.points[0];
    expect(point.metrics.mibPerS).toBeCloseTo(expected, 6);
    expect(printedMibPerS(text.stdout)).toBe(Math.round(expected));
  });
});
