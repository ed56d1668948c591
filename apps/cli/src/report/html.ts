/**
 * One self-contained HTML file: inline CSS and inline SVG charts, no script,
 * no font, image or style sheet fetched from anywhere, so the report can be
 * mailed or attached to a thread as it is.
 */

/** Escapes text for HTML. */
export function esc(text: string | number): string {
  return String(text)
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");
}

/** An HTML table; cells are escaped unless given as `{ html }`. */
export function htmlTable(
  head: string[],
  rows: (string | number | { html: string; cls?: string })[][],
): string {
  const cell = (c: string | number | { html: string; cls?: string }, tag: "td" | "th") =>
    typeof c === "object"
      ? `<${tag}${c.cls ? ` class="${c.cls}"` : ""}>${c.html}</${tag}>`
      : `<${tag}${typeof c === "number" ? ' class="num"' : ""}>${esc(c)}</${tag}>`;
  return `<table><thead><tr>${head.map((h) => cell(h, "th")).join("")}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => cell(c, "td")).join("")}</tr>`)
    .join("")}</tbody></table>`;
}

const STYLE = `
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ddd;padding-bottom:.2em}h3{font-size:1.05em;margin-top:1.3em}
table{border-collapse:collapse;margin:.6em 0;font-size:.92em}th,td{border:1px solid #ddd;padding:.25em .6em;text-align:right}
th:first-child,td:first-child{text-align:left}th{background:#f5f5f5}
.ok{color:#1a7f37;font-weight:600}.bad{color:#c62828;font-weight:600}.muted{color:#777}
.chart{margin:.8em 0;overflow-x:auto}.chart svg{max-width:100%;height:auto}
code{background:#f3f3f3;padding:0 .25em;border-radius:3px}ul{margin:.3em 0}
`;

/** A complete HTML page. */
export function htmlPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title><style>${STYLE}</style></head>
<body>
${body}
</body></html>
`;
}

/** An inline chart (an SVG string from vega). */
export function htmlChart(svg: string): string {
  return `<div class="chart">${svg.replace(/^<\?xml[^>]*>\s*/, "")}</div>`;
}
