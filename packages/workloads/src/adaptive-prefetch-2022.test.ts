/**
 * The adaptive bitmap prefetch policy (`@scanlab/bitmap-prefetch`) on the
 * 2022 data sets: the run lengths each layout produces are what make the
 * policy choose per-page advice, whole-run advice or readahead-sized chains.
 */
import { AdaptiveBitmapPrefetcher, INTEL_320_LINUX_DEFAULTS } from "@scanlab/bitmap-prefetch";
import { describe, expect, it } from "vitest";
import { bitmap2022Query, bitmap2022Table } from "./bitmap-data-sets-2022.js";

describe("the adaptive policy on the 2022 data sets", () => {
  it("Vondra's 2022 benchmark data sets: random gets per-page calls, random-32 whole runs, sequential readahead-sized chains", () => {
    const env = { isBuffered: () => false };
    const perLayout = (["random", "random-32", "sequential"] as const).map((layout) => {
      const t = bitmap2022Table({ layout, seed: 4, tableBlocks: 65536 });
      const q = bitmap2022Query(t, { selectivity: 0.05, seed: 4 });
      const scan = new AdaptiveBitmapPrefetcher(q.bitmap, INTEL_320_LINUX_DEFAULTS);
      while (scan.nextPage(env) !== null) {}
      return scan.stats.adviceBlocks / scan.stats.adviceCalls;
    });
    const [random, random32, sequential] = perLayout as [number, number, number];
    expect(random).toBeLessThan(1.2);
    expect(random32).toBeGreaterThan(12);
    expect(sequential).toBeGreaterThan(15.5);
  });
});
