/**
 * Grouped horizontal bars and line charts as SVG strings, and the drawing
 * helpers every chart of this package shares (escaping, rounding, axis
 * scales, the style sheet, title and legend).
 */

/** One series of a bar chart: a value per category (NaN or null = missing). */
export interface BarSeries {
  /** Legend text. */
  name: string;
  /** One value per category, in category order. */
  values: (number | null)[];
  /** CSS colour (default: the palette's, in series order). */
  color?: string;
}

/** A grouped horizontal bar chart. */
export interface BarChart {
  /** Title above the chart. */
  title: string;
  /** One label per group of bars, top to bottom. */
  categories: string[];
  /** The bars of each group, in legend order. */
  series: BarSeries[];
  /** Axis label, with the unit. */
  xLabel: string;
  /** Digits after the decimal point on the value labels. */
  digits?: number;
  /** Width in SVG pixels (default 640). */
  width?: number;
}

/** One point of a line. */
export interface LinePoint {
  /** Position on the x axis (an index into `xCategories` when the chart names its x values). */
  x: number;
  /** Position on the y axis. */
  y: number;
}

/** One line of a line chart. */
export interface LineSeries {
  /** Legend text. */
  name: string;
  /** The points, in drawing order. */
  points: LinePoint[];
  /** CSS colour (default: the palette's, in series order). */
  color?: string;
}

/** A line chart. */
export interface LineChart {
  /** Title above the chart. */
  title: string;
  /** The lines, in legend order. */
  series: LineSeries[];
  /** x axis label, with the unit. */
  xLabel: string;
  /** y axis label, with the unit. */
  yLabel: string;
  /** Log-2 x axis (for sweeps over 1, 2, 4, ...). An x of 0 gets its own tick, one step left of 1. */
  xLog2?: boolean;
  /** Named x values (a sweep over allocators, say): a point's x is the index of its name, and the ticks are the names. */
  xCategories?: string[];
  /** Width in SVG pixels (default 640). */
  width?: number;
  /** Height in SVG pixels (default 300). */
  height?: number;
}

/** Colours that stay readable on the light and dark VitePress themes. */
export const PALETTE = [
  "#1f77b4",
  "#9e9e9e",
  "#ff7f0e",
  "#2ca02c",
  "#d62728",
  "#9467bd",
  "#8c564b",
  "#e377c2",
];

/** Escapes text for SVG. */
export function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** Rounds coordinates so the SVG text does not depend on float noise. */
export function r1(v: number): string {
  return (Math.round(v * 10) / 10).toString();
}

/** An axis from 0: its upper bound and the step between ticks. */
export interface AxisScale {
  /** Upper bound. */
  max: number;
  /** Step between ticks. */
  step: number;
}

/** A "nice" upper bound and tick step for an axis from 0 to max. */
export function niceScale(max: number, ticks = 5): AxisScale {
  if (!(max > 0) || !Number.isFinite(max)) return { max: 1, step: 0.2 };
  const raw = max / ticks;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const norm = raw / mag;
  const step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 2.5 ? 2.5 : norm <= 5 ? 5 : 10) * mag;
  return { max: Math.ceil(max / step - 1e-9) * step, step };
}

/** Formats a tick or value label. */
export function formatNumber(v: number, digits?: number): string {
  if (!Number.isFinite(v)) return "-";
  if (digits !== undefined) return v.toFixed(digits);
  const a = Math.abs(v);
  if (a >= 1000) return Math.round(v).toLocaleString("en-US");
  if (a >= 100) return v.toFixed(0);
  if (a >= 10) return v.toFixed(1).replace(/\.0$/, "");
  if (a >= 1) return v.toFixed(2).replace(/\.?0+$/, "");
  return v === 0 ? "0" : v.toPrecision(2);
}

function legend(items: { name: string; color: string }[], x: number, y: number): string {
  let out = "";
  let cx = x;
  for (const it of items) {
    out += `<rect x="${r1(cx)}" y="${r1(y - 9)}" width="10" height="10" fill="${it.color}"/>`;
    out += `<text x="${r1(cx + 14)}" y="${r1(y)}" class="lg">${esc(it.name)}</text>`;
    cx += 24 + it.name.length * 6.5;
  }
  return out;
}

/** A series' own colour, else the palette's, in series order. */
function seriesColor(s: { color?: string }, i: number): string {
  return s.color ?? PALETTE[i % PALETTE.length]!;
}

/** The title and, at (x, 34), the legend of every series. */
export function titleAndLegend(
  title: string,
  series: readonly { name: string; color?: string }[],
  x: number,
): string {
  return (
    `<text x="8" y="18" class="t">${esc(title)}</text>` +
    legend(
      series.map((s, i) => ({ name: s.name, color: seriesColor(s, i) })),
      x,
      34,
    )
  );
}

/** The style sheet of every chart: 11 px system-ui text, light grid lines. */
export const STYLE =
  "<style>text{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;font-size:11px;fill:#444}" +
  ".t{font-size:13px;font-weight:600}.ax{stroke:#999;stroke-width:1}.gr{stroke:#ddd;stroke-width:1}" +
  ".v{font-size:10px;fill:#555}.lg{font-size:11px}</style>";

/**
 * A grouped horizontal bar chart as an SVG document. Sizes are SVG pixels
 * chosen for the 11px text of STYLE (scanlab's layout, not from any source):
 * 640 wide by default, labels about 6.2 px per character up to 340 px, bars
 * 11 px with 8 px between groups, 44 px above the plot for title and legend.
 */
export function barChartSvg(chart: BarChart): string {
  const width = chart.width ?? 640;
  const labelWidth = Math.min(340, 12 + Math.max(...chart.categories.map((c) => c.length), 4) * 6.2);
  const barH = 11;
  const groupGap = 8;
  const n = chart.series.length;
  const groupH = n * barH + groupGap;
  const top = 44;
  const plotW = width - labelWidth - 70;
  const plotH = chart.categories.length * groupH;
  const height = top + plotH + 42;
  const all = chart.series
    .flatMap((s) => s.values)
    .filter((v): v is number => v !== null && Number.isFinite(v));
  const { max, step } = niceScale(Math.max(0, ...all));
  const x = (v: number) => labelWidth + (Math.max(0, v) / max) * plotW;
  let out = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${r1(height)}" width="${width}" height="${r1(height)}" role="img" aria-label="${esc(chart.title)}">${STYLE}`;
  out += titleAndLegend(chart.title, chart.series, labelWidth);
  for (let t = 0; t <= max + 1e-9; t += step) {
    const tx = x(t);
    out += `<line x1="${r1(tx)}" y1="${top}" x2="${r1(tx)}" y2="${r1(top + plotH)}" class="gr"/>`;
    out += `<text x="${r1(tx)}" y="${r1(top + plotH + 14)}" text-anchor="middle">${esc(formatNumber(t))}</text>`;
  }
  chart.categories.forEach((cat, ci) => {
    const gy = top + ci * groupH;
    out += `<text x="${r1(labelWidth - 6)}" y="${r1(gy + (n * barH) / 2 + 4)}" text-anchor="end">${esc(cat)}</text>`;
    chart.series.forEach((s, si) => {
      const v = s.values[ci];
      const y = gy + si * barH;
      if (v === null || v === undefined || !Number.isFinite(v)) return;
      const color = seriesColor(s, si);
      out += `<rect x="${r1(labelWidth)}" y="${r1(y)}" width="${r1(x(v) - labelWidth)}" height="${barH - 1}" fill="${color}"><title>${esc(`${cat}, ${s.name}: ${formatNumber(v, chart.digits)}`)}</title></rect>`;
      out += `<text x="${r1(x(v) + 4)}" y="${r1(y + barH - 2)}" class="v">${esc(formatNumber(v, chart.digits))}</text>`;
    });
  });
  out += `<line x1="${r1(labelWidth)}" y1="${top}" x2="${r1(labelWidth)}" y2="${r1(top + plotH)}" class="ax"/>`;
  out += `<text x="${r1(labelWidth + plotW / 2)}" y="${r1(top + plotH + 32)}" text-anchor="middle">${esc(chart.xLabel)}</text>`;
  return `${out}</svg>`;
}

/**
 * A line chart as an SVG document. Sizes are SVG pixels chosen for the 11px
 * text of STYLE (scanlab's layout): 640 x 300 by default, 64 px on the left
 * for the y labels, 44 px above (title, legend) and below (x labels); points
 * are marked only up to 40 per series, beyond that they would merge.
 */
export function lineChartSvg(chart: LineChart): string {
  const width = chart.width ?? 640;
  const height = chart.height ?? 300;
  const left = 64;
  const right = 16;
  const top = 44;
  const bottom = 44;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const pts = chart.series
    .flatMap((s) => s.points)
    .filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  const tx = (v: number) => (chart.xLog2 ? (v > 0 ? Math.log2(v) : -1) : v);
  const xs = pts.map((p) => tx(p.x));
  const xMin = Math.min(0, ...xs);
  const xMaxRaw = Math.max(...xs, xMin + 1);
  const named = chart.xCategories;
  const xScale =
    named !== undefined
      ? { max: Math.max(1, named.length - 1), step: 1 }
      : chart.xLog2
        ? { max: Math.ceil(xMaxRaw), step: 1 }
        : niceScale(xMaxRaw - xMin);
  const xMax = chart.xLog2 || named !== undefined ? xScale.max : xMin + xScale.max;
  const yScale = niceScale(Math.max(0, ...pts.map((p) => p.y)));
  const px = (v: number) => left + ((tx(v) - xMin) / (xMax - xMin || 1)) * plotW;
  const py = (v: number) => top + plotH - (Math.max(0, v) / yScale.max) * plotH;
  let out = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${esc(chart.title)}">${STYLE}`;
  out += titleAndLegend(chart.title, chart.series, left);
  for (let t = 0; t <= yScale.max + 1e-9; t += yScale.step) {
    out += `<line x1="${left}" y1="${r1(py(t))}" x2="${width - right}" y2="${r1(py(t))}" class="gr"/>`;
    out += `<text x="${left - 6}" y="${r1(py(t) + 4)}" text-anchor="end">${esc(formatNumber(t))}</text>`;
  }
  for (let t = xMin; t <= xMax + 1e-9; t += xScale.step) {
    const label =
      named !== undefined
        ? (named[t] ?? "")
        : chart.xLog2
          ? t < 0
            ? "0"
            : formatNumber(2 ** t)
          : formatNumber(t);
    const xpos = left + ((t - xMin) / (xMax - xMin || 1)) * plotW;
    out += `<line x1="${r1(xpos)}" y1="${top + plotH}" x2="${r1(xpos)}" y2="${top + plotH + 4}" class="ax"/>`;
    out += `<text x="${r1(xpos)}" y="${top + plotH + 16}" text-anchor="middle">${esc(label)}</text>`;
  }
  out += `<line x1="${left}" y1="${top + plotH}" x2="${width - right}" y2="${top + plotH}" class="ax"/>`;
  out += `<line x1="${left}" y1="${top}" x2="${left}" y2="${top + plotH}" class="ax"/>`;
  chart.series.forEach((s, i) => {
    const color = seriesColor(s, i);
    const ok = s.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
    if (ok.length === 0) return;
    const d = ok.map((p, j) => `${j === 0 ? "M" : "L"}${r1(px(p.x))},${r1(py(p.y))}`).join("");
    out += `<path d="${d}" fill="none" stroke="${color}" stroke-width="1.8"/>`;
    if (ok.length <= 40) {
      for (const p of ok) out += `<circle cx="${r1(px(p.x))}" cy="${r1(py(p.y))}" r="2.5" fill="${color}"/>`;
    }
  });
  out += `<text x="${r1(left + plotW / 2)}" y="${height - 8}" text-anchor="middle">${esc(chart.xLabel)}</text>`;
  out += `<text x="14" y="${r1(top + plotH / 2)}" text-anchor="middle" transform="rotate(-90 14 ${r1(top + plotH / 2)})">${esc(chart.yLabel)}</text>`;
  return `${out}</svg>`;
}
