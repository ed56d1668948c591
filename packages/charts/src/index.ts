/**
 * @packageDocumentation
 * Small SVG charts as strings, with no dependency and no DOM, so the same
 * code draws scanlab's reports in Node (`scanlab reproduce --report`,
 * `sweep --report`) and its docs site's figures and playground in the
 * browser. Output is deterministic: the same data gives byte-identical SVG.
 *
 * Three kinds: grouped horizontal bars (published beside simulated, one
 * group per row), lines (a time series, or a sweep over numbers or names),
 * and ranges (a band, a reference tick and a dot: a ratio and its tolerance).
 */
export { type RangeChart, type RangeNames, type RangeRow, rangeChartSvg } from "./range-chart.js";
export {
  type AxisScale,
  type BarChart,
  type BarSeries,
  barChartSvg,
  formatNumber,
  type LineChart,
  type LinePoint,
  type LineSeries,
  lineChartSvg,
  niceScale,
  PALETTE,
} from "./svg-charts.js";
