/**
 * The SVG charts used by the figures and the playground: deterministic
 * output, one bar per value and a label per category, nice axis bounds, and
 * the log-2 sweep axis that gives eic = 0 its own tick left of 1 (T7's sweeps
 * start at 0 = no prefetch).
 */
import { describe, expect, it } from "vitest";
import { barChartSvg, lineChartSvg, niceScale } from "../src/svg-charts.js";

describe("charts", () => {
  it("niceScale rounds the axis up to 1, 2, 2.5 or 5 times a power of ten", () => {
    expect(niceScale(73)).toEqual({ max: 80, step: 20 });
    expect(niceScale(1.2)).toEqual({ max: 1.25, step: 0.25 });
    expect(niceScale(0)).toEqual({ max: 1, step: 0.2 });
  });

  it("draws one bar per finite value and labels every category, the same way every time", () => {
    const chart = {
      title: "T & <test>",
      categories: ["serial", "stride-1"],
      series: [
        { name: "published", values: [13.3, 24.9] },
        { name: "simulated", values: [13.3, null] },
      ],
      xLabel: "seconds",
    };
    const svg = barChartSvg(chart);
    expect(svg).toBe(barChartSvg(chart));
    expect(svg.match(/<\/title><\/rect>/g)?.length).toBe(3);
    expect(svg).toContain(">serial<");
    expect(svg).toContain(">stride-1<");
    expect(svg).toContain("T &amp; &lt;test&gt;");
  });

  it("puts x = 0 on its own tick left of 1 on a log-2 axis", () => {
    const svg = lineChartSvg({
      title: "eic sweep",
      series: [{ name: "time", points: [0, 1, 2, 4, 256].map((x) => ({ x, y: 10 + x })) }],
      xLabel: "eic",
      yLabel: "s",
      xLog2: true,
    });
    const ticks = [...svg.matchAll(/<text x="([\d.]+)" y="\d+" text-anchor="middle">([^<]+)<\/text>/g)]
      .map((m) => ({ x: Number(m[1]), label: m[2]! }))
      .filter((t) => /^\d+$/.test(t.label));
    expect(ticks.map((t) => t.label)).toEqual(["0", "1", "2", "4", "8", "16", "32", "64", "128", "256"]);
    expect(ticks[0]!.x).toBeLessThan(ticks[1]!.x);
  });
});

describe("line charts over named values", () => {
  it("puts each point at its name's position and labels the ticks with the names", () => {
    const svg = lineChartSvg({
      title: "sweep",
      xLabel: "allocator",
      yLabel: "time (s)",
      xCategories: ["pg11", "pg14"],
      series: [
        {
          name: "time",
          points: [
            { x: 0, y: 2 },
            { x: 1, y: 1 },
          ],
        },
      ],
    });
    expect(svg).toContain(">pg11<");
    expect(svg).toContain(">pg14<");
    expect(svg.match(/<circle /g)?.length).toBe(2);
  });
});
