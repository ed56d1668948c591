/**
 * The charts of `reproduce --report` and `sweep --report`, drawn as SVG by
 * `@scanlab/charts`, the same code that draws the docs site's figures:
 *
 * - rows: published against simulated, one pair of bars per row that has a
 *   published figure, on the row's metric;
 * - ratios: each ratio check as a band (the published ratio +- the target's
 *   tolerance), a tick at the published ratio and a dot at the simulated one,
 *   green inside the band and red outside;
 * - sweep: time against the varied setting, one line per value of the second
 *   varied setting.
 */
import { barChartSvg, lineChartSvg, rangeChartSvg } from "@scanlab/charts";
import { THROUGHPUT_UNIT } from "@scanlab/core";
import type { TargetReport } from "@scanlab/experiments";

const METRIC_LABEL: Record<string, string> = {
  timeS: "time (s)",
  mibPerS: THROUGHPUT_UNIT,
  avgReadKb: "average read (KiB)",
};

/** One chart per metric of the target's published rows (usually one: time). */
export function rowsCharts(report: TargetReport): { metric: string; svg: string }[] {
  const byMetric = new Map<string, { row: string; published: number; simulated: number }[]>();
  for (const r of report.rows) {
    if (r.metric === null || r.published === null) continue;
    const pub = r.published[r.metric];
    if (pub === undefined) continue;
    const list = byMetric.get(r.metric) ?? [];
    list.push({ row: r.label, published: pub, simulated: r.simulated[r.metric] });
    byMetric.set(r.metric, list);
  }
  return [...byMetric].map(([metric, rows]) => ({
    metric,
    svg: barChartSvg({
      title: `${report.id}: published vs simulated, ${METRIC_LABEL[metric] ?? metric}`,
      categories: rows.map((r) => r.row),
      series: [
        { name: "published", values: rows.map((r) => r.published), color: "#9e9e9e" },
        { name: "simulated", values: rows.map((r) => r.simulated), color: "#1f77b4" },
      ],
      xLabel: METRIC_LABEL[metric] ?? metric,
    }),
  }));
}

/** The ratio checks of a target, or null when it has none. */
export function ratiosChart(report: TargetReport): string | null {
  if (report.ratios.length === 0) return null;
  return rangeChartSvg({
    title: `${report.id}: ratios, published +- tolerance and simulated`,
    xLabel: "ratio",
    names: { band: "published +- tolerance", reference: "published", value: "simulated" },
    rows: report.ratios.map((r) => ({
      label: r.label,
      low: r.published * (1 - r.tolerance),
      high: r.published * (1 + r.tolerance),
      reference: r.published,
      value: r.simulated,
    })),
  });
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
): string {
  const names = [...new Set(points.map((p) => p.series))];
  return lineChartSvg({
    title,
    xLabel: xName,
    yLabel: "time (s)",
    xCategories: xOrder,
    series: names.map((name) => ({
      name: seriesName === null ? "time" : `${seriesName}=${name}`,
      points: points
        .filter((p) => p.series === name && Number.isFinite(p.timeS))
        .map((p) => ({ x: xOrder.indexOf(p.x), y: p.timeS })),
    })),
  });
}
