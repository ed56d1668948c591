/**
 * A range chart: for each row, a band of what is acceptable, a tick at the
 * reference value and a dot at the value found, green inside the band and
 * red outside. scanlab draws its ratio checks with it (a published ratio,
 * the tolerance around it, and the simulated ratio).
 */
import { esc, formatNumber, niceScale, r1, STYLE } from "./svg-charts.js";

/** One row of a range chart. */
export interface RangeRow {
  /** Row label, on the left. */
  label: string;
  /** The band's lower end. */
  low: number;
  /** The band's upper end. */
  high: number;
  /** The reference value, drawn as a tick. */
  reference: number;
  /** The value found, drawn as a dot (green inside the band, red outside). */
  value: number;
}

/** The legend's words for a range chart's band, tick and dot. */
export interface RangeNames {
  /** The band (default "tolerance"). */
  band: string;
  /** The tick (default "published"). */
  reference: string;
  /** The dot (default "found"). */
  value: string;
}

/** A range chart. */
export interface RangeChart {
  /** Title above the chart. */
  title: string;
  /** The rows, top to bottom. */
  rows: RangeRow[];
  /** Axis label, with the unit. */
  xLabel: string;
  /** Legend words of the band, the tick and the dot. */
  names?: RangeNames;
  /** Width in SVG pixels (default 640). */
  width?: number;
}

const INSIDE = "#2ca02c";
const OUTSIDE = "#d62728";

/**
 * A range chart as an SVG document, laid out like the bar chart: labels on
 * the left (about 6.2 px per character, up to 340 px), 26 px per row, an axis
 * from 0 to a nice bound above every value.
 *
 * @example
 * ```ts
 * import { rangeChartSvg } from "@scanlab/charts";
 * const svg = rangeChartSvg({
 *   title: "T1: ratios",
 *   xLabel: "ratio",
 *   rows: [{ label: "3 workers vs serial", low: 1.92, high: 3.2, reference: 2.56, value: 3.98 }],
 * });
 * ```
 */
export function rangeChartSvg(chart: RangeChart): string {
  const width = chart.width ?? 640;
  const names = chart.names ?? { band: "tolerance", reference: "published", value: "found" };
  const labelWidth = Math.min(340, 12 + Math.max(...chart.rows.map((r) => r.label.length), 4) * 6.2);
  const rowH = 26;
  const top = 44;
  const plotW = width - labelWidth - 70;
  const plotH = chart.rows.length * rowH;
  const height = top + plotH + 42;
  const finite = chart.rows.flatMap((r) => [r.low, r.high, r.reference, r.value]).filter(Number.isFinite);
  const { max, step } = niceScale(Math.max(0, ...finite));
  const x = (v: number) => labelWidth + (Math.min(max, Math.max(0, v)) / max) * plotW;
  let out = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${r1(height)}" width="${width}" height="${r1(height)}" role="img" aria-label="${esc(chart.title)}">${STYLE}`;
  out += `<text x="8" y="18" class="t">${esc(chart.title)}</text>`;
  const lx = labelWidth;
  out += `<rect x="${r1(lx)}" y="25" width="16" height="10" fill="${INSIDE}" opacity="0.25"/><text x="${r1(lx + 20)}" y="34" class="lg">${esc(names.band)}</text>`;
  const lx2 = lx + 28 + names.band.length * 6.5;
  out += `<line x1="${r1(lx2 + 5)}" y1="24" x2="${r1(lx2 + 5)}" y2="36" stroke="#555" stroke-width="2"/><text x="${r1(lx2 + 14)}" y="34" class="lg">${esc(names.reference)}</text>`;
  const lx3 = lx2 + 22 + names.reference.length * 6.5;
  out += `<circle cx="${r1(lx3 + 5)}" cy="30" r="4" fill="${INSIDE}"/><text x="${r1(lx3 + 14)}" y="34" class="lg">${esc(names.value)}</text>`;
  for (let t = 0; t <= max + 1e-9; t += step) {
    const tx = x(t);
    out += `<line x1="${r1(tx)}" y1="${top}" x2="${r1(tx)}" y2="${r1(top + plotH)}" class="gr"/>`;
    out += `<text x="${r1(tx)}" y="${r1(top + plotH + 14)}" text-anchor="middle">${esc(formatNumber(t))}</text>`;
  }
  chart.rows.forEach((row, i) => {
    const cy = top + i * rowH + rowH / 2;
    out += `<text x="${r1(labelWidth - 6)}" y="${r1(cy + 4)}" text-anchor="end">${esc(row.label)}</text>`;
    if (Number.isFinite(row.low) && Number.isFinite(row.high)) {
      out += `<rect x="${r1(x(row.low))}" y="${r1(cy - 7)}" width="${r1(x(row.high) - x(row.low))}" height="14" fill="${INSIDE}" opacity="0.25"/>`;
    }
    if (Number.isFinite(row.reference)) {
      out += `<line x1="${r1(x(row.reference))}" y1="${r1(cy - 8)}" x2="${r1(x(row.reference))}" y2="${r1(cy + 8)}" stroke="#555" stroke-width="2"/>`;
    }
    if (Number.isFinite(row.value)) {
      const inside = row.value >= row.low && row.value <= row.high;
      out += `<circle cx="${r1(x(row.value))}" cy="${r1(cy)}" r="5" fill="${inside ? INSIDE : OUTSIDE}"><title>${esc(`${row.label}: ${formatNumber(row.value)} (${names.reference} ${formatNumber(row.reference)}, ${names.band} ${formatNumber(row.low)} to ${formatNumber(row.high)})`)}</title></circle>`;
    }
  });
  out += `<line x1="${r1(labelWidth)}" y1="${top}" x2="${r1(labelWidth)}" y2="${r1(top + plotH)}" class="ax"/>`;
  out += `<text x="${r1(labelWidth + plotW / 2)}" y="${r1(top + plotH + 32)}" text-anchor="middle">${esc(chart.xLabel)}</text>`;
  return `${out}</svg>`;
}
