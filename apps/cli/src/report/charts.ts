/**
 * The charts of `reproduce --report` and `sweep --report`, as vega-lite specs.
 *
 * - rows: published against simulated, one pair of bars per row that has a
 *   published figure, on the row's metric;
 * - ratios: each ratio check as a band (the published ratio +- the target's
 *   tolerance), a tick at the published ratio and a dot at the simulated one,
 *   green inside the band and red outside;
 * - sweep: time against the varied setting, one line per value of the second
 *   varied setting.
 */
import type { TargetReport } from "@scanlab/experiments";
import type { VegaLiteSpec } from "./render.js";

const SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json";
const METRIC_LABEL: Record<string, string> = {
  timeS: "time (s)",
  mbPerS: "MB/s",
  avgReadKb: "average read (kB)",
};

/** One chart per metric of the target's published rows (usually one: time). */
export function rowsCharts(report: TargetReport): { metric: string; spec: VegaLiteSpec }[] {
  const byMetric = new Map<string, { row: string; source: string; value: number }[]>();
  for (const r of report.rows) {
    if (r.metric === null || r.published === null) continue;
    const pub = r.published[r.metric];
    if (pub === undefined) continue;
    const list = byMetric.get(r.metric) ?? [];
    list.push({ row: r.label, source: "published", value: pub });
    list.push({ row: r.label, source: "simulated", value: r.simulated[r.metric] });
    byMetric.set(r.metric, list);
  }
  return [...byMetric].map(([metric, values]) => ({
    metric,
    spec: {
      $schema: SCHEMA,
      title: `${report.id}: published vs simulated, ${METRIC_LABEL[metric] ?? metric}`,
      data: { values: values.filter((v) => Number.isFinite(v.value)) },
      mark: "bar",
      width: 420,
      height: { step: 12 },
      encoding: {
        y: { field: "row", type: "nominal", sort: null, title: null, axis: { labelLimit: 320 } },
        yOffset: { field: "source", type: "nominal" },
        x: { field: "value", type: "quantitative", title: METRIC_LABEL[metric] ?? metric },
        color: {
          field: "source",
          type: "nominal",
          scale: { domain: ["published", "simulated"], range: ["#9e9e9e", "#1f77b4"] },
          title: null,
        },
        tooltip: [{ field: "row" }, { field: "source" }, { field: "value", format: ".3~f" }],
      },
    },
  }));
}

/** The ratio checks of a target, or null when it has none. */
export function ratiosChart(report: TargetReport): VegaLiteSpec | null {
  if (report.ratios.length === 0) return null;
  const values = report.ratios.map((r) => ({
    label: r.label,
    published: r.published,
    simulated: r.simulated,
    lo: r.published * (1 - r.tolerance),
    hi: r.published * (1 + r.tolerance),
    verdict: r.withinTolerance ? "within tolerance" : "outside tolerance",
  }));
  return {
    $schema: SCHEMA,
    title: `${report.id}: ratios, published +- tolerance and simulated`,
    data: { values },
    width: 420,
    height: { step: 26 },
    encoding: { y: { field: "label", type: "nominal", sort: null, title: null, axis: { labelLimit: 320 } } },
    layer: [
      {
        mark: { type: "bar", opacity: 0.25, color: "#2ca02c", height: 14 },
        encoding: { x: { field: "lo", type: "quantitative", title: "ratio" }, x2: { field: "hi" } },
      },
      {
        mark: { type: "tick", color: "#555", thickness: 2 },
        encoding: { x: { field: "published", type: "quantitative" } },
      },
      {
        mark: { type: "point", filled: true, size: 80 },
        encoding: {
          x: { field: "simulated", type: "quantitative" },
          color: {
            field: "verdict",
            type: "nominal",
            scale: { domain: ["within tolerance", "outside tolerance"], range: ["#2ca02c", "#d62728"] },
            title: null,
          },
        },
      },
    ],
  };
}

/** A sweep point for the chart. */
export interface SweepChartPoint {
  x: string;
  series: string;
  timeS: number;
}

/** Time against the first varied setting, one line per value of the second. */
export function sweepChart(
  title: string,
  xName: string,
  seriesName: string | null,
  points: SweepChartPoint[],
  xOrder: string[],
): VegaLiteSpec {
  return {
    $schema: SCHEMA,
    title,
    data: { values: points.filter((p) => Number.isFinite(p.timeS)) },
    width: 480,
    height: 260,
    mark: { type: "line", point: true },
    encoding: {
      x: { field: "x", type: "ordinal", sort: xOrder, title: xName },
      y: { field: "timeS", type: "quantitative", title: "time (s)" },
      ...(seriesName === null ? {} : { color: { field: "series", type: "nominal", title: seriesName } }),
    },
  };
}
