/**
 * The range chart of a ratio check: the band is the published ratio plus or
 * minus its tolerance, the tick the published ratio, the dot the simulated
 * one, green when it lands in the band and red when it does not. Worked
 * example: T1's three workers against serial, published 2.56 with a 25%
 * tolerance (1.92 to 3.20), simulated 3.98 (outside), and a ratio at 1.00
 * with a 10% band, simulated 1.02 (inside).
 */
import { describe, expect, it } from "vitest";
import { rangeChartSvg } from "../src/range-chart.js";

const chart = {
  title: "T1 <ratios>",
  xLabel: "ratio",
  rows: [
    { label: "3 workers vs serial", low: 1.92, high: 3.2, reference: 2.56, value: 3.98 },
    { label: "serial vs serial", low: 0.9, high: 1.1, reference: 1, value: 1.02 },
  ],
};

describe("rangeChartSvg", () => {
  it("draws a band, a tick and a dot per row, red outside the band and green inside", () => {
    const svg = rangeChartSvg(chart);
    expect(svg).toBe(rangeChartSvg(chart));
    expect(svg).toContain("T1 &lt;ratios&gt;");
    const dots = [...svg.matchAll(/<circle cx="[\d.]+" cy="[\d.]+" r="5" fill="(#[0-9a-f]+)"/g)].map(
      (m) => m[1],
    );
    expect(dots).toEqual(["#d62728", "#2ca02c"]);
    expect(svg.match(/opacity="0.25"\/>/g)?.length).toBe(3); // two bands and the legend's swatch
  });

  it("puts the axis past the largest value (4 for 3.98)", () => {
    expect(rangeChartSvg(chart)).toMatch(/>4</);
  });
});
