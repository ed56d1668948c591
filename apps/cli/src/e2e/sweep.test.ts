/**
 * `sweep`: every combination simulated (in worker threads), percentages of
 * the baseline column, the same numbers as `simulate` for the same point,
 * and a chart with --report.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runBin } from "./run-bin.js";

/** The start of an ANSI colour sequence. */
const ESC = "\u001b[";

const dir = mkdtempSync(join(tmpdir(), "scanlab-sweep-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const base = ["--table-size", "128MB", "--device", "intel-ssd-320-120gb", "--cores", "4", "--ram", "2GB"];

interface Point {
  values: Record<string, number | string>;
  metrics: { timeS: number };
  ofBaseline: number;
}

describe("sweep", () => {
  it("two settings: a grid of points with percentages of the baseline column", async () => {
    const r = await runBin([
      "sweep",
      ...base,
      "--vary",
      "workers=0,1,3",
      "--vary",
      "allocator=pg11,pg14",
      "--baseline",
      "0",
      "--jobs",
      "2",
      "--json",
    ]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout).result;
    expect(json.points).toHaveLength(6);
    for (const p of json.points as Point[]) {
      const baseline = (json.points as Point[]).find(
        (q) => q.values.allocator === p.values.allocator && q.values.workers === 0,
      )!;
      expect(p.ofBaseline).toBeCloseTo(p.metrics.timeS / baseline.metrics.timeS, 12);
    }
    // A point of the sweep is the same simulation as `simulate` with those flags.
    const one = await runBin(["simulate", ...base, "--workers", "3", "--allocator", "pg14", "--json"]);
    const point = (json.points as Point[]).find(
      (p) => p.values.workers === 3 && p.values.allocator === "pg14",
    )!;
    expect(point.metrics.timeS).toBeCloseTo(
      JSON.parse(one.stdout).result.simulation.queries[0].meanDurationS,
      12,
    );
  });

  it("prints the 2022 eic benchmark table and colours percentages only when asked", async () => {
    const args = [
      "sweep",
      ...base,
      "--vary",
      "effective-io-concurrency=0,1,16",
      "--workload",
      "bitmap",
      "--dataset",
      "sequential",
    ];
    // Wide enough for the header to stay one line.
    const plain = await runBin(args, { env: { COLUMNS: "250" } });
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain("% of effective-io-concurrency=0");
    expect(plain.stdout).not.toContain(ESC);
    const forced = await runBin(args, { env: { FORCE_COLOR: "1" } });
    expect(forced.stdout).toContain(ESC);
    const noColor = await runBin(args, { env: { FORCE_COLOR: "1", NO_COLOR: "" } });
    expect(noColor.stdout).not.toContain(ESC);
  });

  it("--report writes the chart as SVG and an HTML page; --png adds a PNG", async () => {
    const r = await runBin(["sweep", ...base, "--vary", "workers=0,2", "--report", dir]);
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, "sweep.svg"), "utf8")).toMatch(/^<svg/);
    expect(existsSync(join(dir, "sweep.png"))).toBe(false);
    expect(readFileSync(join(dir, "sweep.html"), "utf8")).toContain("<svg");
    const withPng = await runBin(["sweep", ...base, "--vary", "workers=0,2", "--report", dir, "--png"]);
    expect(withPng.code).toBe(0);
    expect([...readFileSync(join(dir, "sweep.png")).subarray(1, 4)]).toEqual([0x50, 0x4e, 0x47]);
  });

  it("--png without --report is one sentence and exit 2, before any work", async () => {
    const r = await runBin(["sweep", ...base, "--vary", "workers=0,2", "--png"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("scanlab sweep: --png writes the report's charts as PNG: give --report DIR too.\n");
  });
});
