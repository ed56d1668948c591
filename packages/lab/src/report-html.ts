/**
 * `--report FILE.html`: one self-contained page with an inline SVG chart of
 * measured against predicted time per cell, and the tables of the text output.
 *
 * Choices. Log-log axes, because cells range from a few milliseconds (warm,
 * selective bitmap scans) to seconds (cold 1 GiB scans), with the diagonal and
 * the ±20 % band drawn, so a point's distance from the diagonal is its error
 * whatever its size. No script and no external resource: the page opens from
 * a file anywhere.
 */
import type { LabReport } from "./run-lab.js";

function esc(s: string): string {
  return s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
}

function fmt(n: number | null | undefined, digits = 1): string {
  return n === null || n === undefined || !Number.isFinite(n) ? "–" : n.toFixed(digits);
}

/** The SVG chart: measured (x) vs predicted (y) time, log-log. */
export function timeChartSvg(report: LabReport, size = 480): string {
  const pts = report.cells
    .filter(
      (c) => c.measured !== null && c.predicted !== null && c.measured.timeMs > 0 && c.predicted.timeMs > 0,
    )
    .map((c) => ({
      id: c.cell.id,
      x: c.measured!.timeMs,
      y: c.predicted!.timeMs,
      fit: c.cell.role === "fit",
      cold: c.cell.cache === "cold",
    }));
  const pad = 48;
  if (pts.length === 0) {
    return `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" role="img"><text x="${pad}" y="${pad}">no finished cells</text></svg>`;
  }
  const all = pts.flatMap((p) => [p.x, p.y]);
  const lo = 10 ** Math.floor(Math.log10(Math.min(...all)));
  const hi = 10 ** Math.ceil(Math.log10(Math.max(...all)));
  const span = Math.log10(hi) - Math.log10(lo) || 1;
  const w = size - 2 * pad;
  const sx = (v: number) => pad + ((Math.log10(v) - Math.log10(lo)) / span) * w;
  const sy = (v: number) => size - pad - ((Math.log10(v) - Math.log10(lo)) / span) * w;
  const parts: string[] = [];
  parts.push(`<rect x="${pad}" y="${pad}" width="${w}" height="${w}" fill="none" stroke="#999"/>`);
  for (let d = lo; d <= hi; d *= 10) {
    parts.push(
      `<line x1="${sx(d)}" y1="${pad}" x2="${sx(d)}" y2="${size - pad}" stroke="#eee"/>`,
      `<line x1="${pad}" y1="${sy(d)}" x2="${size - pad}" y2="${sy(d)}" stroke="#eee"/>`,
      `<text x="${sx(d)}" y="${size - pad + 16}" font-size="11" text-anchor="middle">${d} ms</text>`,
      `<text x="${pad - 4}" y="${sy(d) + 4}" font-size="11" text-anchor="end">${d}</text>`,
    );
  }
  // The line predicted = f x measured, clipped to the square: above the diagonal it leaves through the top,
  // below it enters through the bottom.
  const band = (f: number) => {
    const [x1, y1, x2, y2] = f >= 1 ? [lo, lo * f, hi / f, hi] : [lo / f, lo, hi, hi * f];
    return `<line x1="${sx(x1)}" y1="${sy(y1)}" x2="${sx(x2)}" y2="${sy(y2)}" stroke="#aac" stroke-dasharray="4 3"/>`;
  };
  parts.push(
    `<line x1="${sx(lo)}" y1="${sy(lo)}" x2="${sx(hi)}" y2="${sy(hi)}" stroke="#446"/>`,
    band(1.2),
    band(1 / 1.2),
  );
  for (const p of pts) {
    const colour = p.fit ? "#888" : p.cold ? "#1f77b4" : "#ff7f0e";
    parts.push(
      `<circle cx="${sx(p.x).toFixed(1)}" cy="${sy(p.y).toFixed(1)}" r="4" fill="${colour}" fill-opacity="0.8"><title>${esc(p.id)}: measured ${fmt(p.x)} ms, predicted ${fmt(p.y)} ms</title></circle>`,
    );
  }
  parts.push(
    `<text x="${size / 2}" y="${size - 8}" font-size="12" text-anchor="middle">measured time (median)</text>`,
    `<text x="14" y="${size / 2}" font-size="12" text-anchor="middle" transform="rotate(-90 14 ${size / 2})">predicted time</text>`,
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${size} ${size}" role="img" aria-label="measured vs predicted time">${parts.join("")}</svg>`;
}

/** The whole HTML page. */
export function labReportHtml(report: LabReport): string {
  const s = report.summary;
  const rows = report.cells
    .map((c) => {
      const m = c.measured;
      const p = c.predicted;
      return `<tr class="${c.cell.role}"><td>${esc(c.cell.id)}${c.cell.role === "fit" ? " (fit)" : ""}</td><td>${fmt(m?.timeMs)}</td><td>${fmt(p?.timeMs)}</td><td>${fmt(c.timeRatio, 2)}${c.missWithinRuns === true ? "*" : ""}</td><td>${fmt(m?.deviceBytes == null ? null : m.deviceBytes / 2 ** 20)}</td><td>${fmt(p ? p.deviceBytes / 2 ** 20 : null)}</td><td>${fmt(m?.avgRequestBytes == null ? null : m.avgRequestBytes / 1024)}</td><td>${fmt(p?.avgRequestBytes == null ? null : p.avgRequestBytes / 1024)}</td><td>${esc(c.notes.join(" "))}</td></tr>`;
    })
    .join("\n");
  const comps = report.comparisons
    .map(
      (c) =>
        `<tr><td>${esc(c.varied)}</td><td>${esc(c.a)}</td><td>${esc(c.b)}</td><td>${esc(c.measured)} (${fmt(c.measuredRatio, 2)})</td><td>${esc(c.predicted)} (${fmt(c.predictedRatio, 2)})</td><td>${c.agrees ? "yes" : "<b>no</b>"}</td></tr>`,
    )
    .join("\n");
  const cpu = report.cpu
    .map(
      (c) =>
        `<li>PG${c.pg}: ${c.source === "fit" ? `fitted from ${esc(c.fitCells.join(", "))}` : "simulator defaults (no fit)"}: perPageUs ${fmt(c.perPageUs, 2)}, perTupleUs ${fmt(c.perTupleUs, 4)}, bitmapTupleUs ${fmt(c.bitmapTupleUs ?? 0, 4)}, bufferFirstUseUs ${fmt(c.bufferFirstUseUs ?? 0, 2)}${c.warning === undefined ? "" : `. <b>Unsound fit:</b> ${esc(c.warning)}`}</li>`,
    )
    .join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>scanlab lab: measured vs predicted</title>
<style>body{font:14px system-ui,sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}td:first-child,th:first-child{text-align:left}tr.fit{color:#777}</style></head>
<body>
<h1>scanlab lab: measured vs predicted</h1>
<p>${report.interrupted ? "<b>Interrupted: finished cells only.</b> " : ""}${report.quick ? "Quick cell set. " : ""}${runsPhrase(report)}, median kept. Time: ${esc(report.timeSource)}. Cold runs: ${esc(report.coldMethod)}. Device model: ${esc(report.machine.deviceLabel)}.</p>
<p>Time within ±20 %: <b>${s.timeWithin} of ${s.predicted}</b> predicted cells. Device bytes within ±10 %: <b>${s.bytesWithin} of ${s.bytesJudged}</b>. Comparisons pointing the same way: <b>${s.agree} of ${s.comparisons}</b>.</p>${(s.missesWithinRuns ?? 0) > 0 ? `\n<p>${s.missesWithinRuns} of the ${s.predicted - s.timeWithin} misses lie between their cell's fastest and slowest run: those cells' own runs spread wider than the tolerance.</p>` : ""}
<ul>${cpu}</ul>
${timeChartSvg(report)}
<p>Blue: cold cells, orange: warm, grey: fit cells (not predictions). Dashed: ±20 %.</p>
<h2>Cells</h2>
<table><tr><th>cell</th><th>measured ms</th><th>predicted ms</th><th>pred/meas</th><th>measured MiB</th><th>predicted MiB</th><th>measured avg KiB</th><th>predicted avg KiB</th><th>notes</th></tr>
${rows}</table>
<h2>Comparisons</h2>
<table><tr><th>varied</th><th>a</th><th>b</th><th>measured</th><th>predicted</th><th>agrees</th></tr>
${comps}</table>
</body></html>
`;
}

/** "3 runs a cell", with ", fit cells 7" when the fit cells ran more often (their medians feed every prediction). */
export function runsPhrase(report: LabReport): string {
  const n = Math.max(0, ...report.cells.filter((c) => c.cell.role === "fit").map((c) => c.runs.length));
  return `${report.runsPerCell} runs a cell${n > report.runsPerCell ? `, fit cells ${n}` : ""}`;
}
