/**
 * Every `advise` row reads the same way: the time at PostgreSQL's default,
 * then the time at the recommended value, and gain = default / recommended
 * - 1 (positive when the recommendation is faster), in the JSON and in the
 * printed table (each value beside its time). The scenario (an 800 GB table scanned by six synchronized
 * clients) puts the chunk cap's two values within a percent of each other, so
 * the chunk-cap row, whose default is the cap, is checked whichever way the
 * model decides: its recommended time is the sweep's entry for what it
 * recommends, and never slower than the default's.
 */
import { describe, expect, it } from "vitest";
import { seconds } from "../output/format.js";
import { runBin } from "./run-bin.js";

interface Rec {
  setting: string;
  defaultValue: string | number;
  recommended: string | number;
  gain: number | null;
  defaultTimeS: number | null;
  recommendedTimeS: number | null;
  sweep: { value: string | number; timeS: number | null }[];
}

// Scaled down to 64 MB so the whole advice takes seconds of simulation.
const args = [
  "advise",
  "--device",
  "intel-ssd-320-120gb",
  "--os",
  "linux-5.4",
  "--table-size",
  "800GB",
  "--clients",
  "6",
  "--cores",
  "4",
  "--sim-size",
  "64MB",
];

describe("advise rows share one gain convention", () => {
  it("default -> recommended, gain = default / recommended - 1, in JSON and text", async () => {
    // Wide enough for each table row to stay one line.
    const [json, text] = await Promise.all([
      runBin([...args, "--json"]),
      runBin(args, { env: { COLUMNS: "250" } }),
    ]);
    expect(json.code).toBe(0);
    expect(text.code).toBe(0);
    const recs: Rec[] = JSON.parse(json.stdout).result.recommendations;
    const timed = recs.filter((r) => r.gain !== null);
    expect(timed.length).toBeGreaterThanOrEqual(4);
    for (const r of timed) {
      // The default's time is the sweep's entry for the default value.
      expect(r.defaultTimeS, r.setting).toBe(r.sweep.find((s) => s.value === r.defaultValue)?.timeS);
      expect(
        r.sweep.map((s) => s.timeS),
        r.setting,
      ).toContain(r.recommendedTimeS);
      expect(r.gain!, r.setting).toBeCloseTo(r.defaultTimeS! / r.recommendedTimeS! - 1, 12);
    }
    const cap = recs.find((r) => r.setting.startsWith("chunk cap"))!;
    const capEntry = String(cap.recommended).startsWith("uncapped") ? "none" : String(cap.defaultValue);
    expect(cap.recommendedTimeS).toBe(cap.sweep.find((s) => String(s.value).startsWith(capEntry))!.timeS);
    expect(cap.gain!).toBeGreaterThanOrEqual(0);
    expect(cap.gain! > 0).toBe(String(cap.recommended).startsWith("uncapped"));

    // The printed table: each row's default and recommended values with their times, and its gain, are the JSON's.
    for (const r of timed) {
      const line = text.stdout.split("\n").find((l) => l.startsWith(`│ ${r.setting.slice(0, 40)}`));
      expect(line, r.setting).toBeDefined();
      const cells = line!.split("│").map((x) => x.trim());
      expect(cells[2]).toBe(`${r.defaultValue} (${seconds(r.defaultTimeS)})`);
      expect(cells[3]).toBe(`${r.recommended} (${seconds(r.recommendedTimeS)})`);
      expect(cells[4]).toBe(`${r.gain! >= 0 ? "+" : ""}${(r.gain! * 100).toFixed(1)}%`);
    }
  });
});
