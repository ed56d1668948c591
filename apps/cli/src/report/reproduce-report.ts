/**
 * The HTML report of `reproduce --report DIR`: one page with every target's
 * assumptions, calibration, rows, ratio chart, statements and notes, its
 * charts inline as SVG; the same charts as `<target>-*.svg` files (and
 * `.png` with `--png`) and the JSON of `reproduce --json` beside it.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { THROUGHPUT_UNIT } from "@scanlab/core";
import { toJson } from "../context.js";
import type { ScanlabJson } from "../json-output.js";
import { fixed, gapPct, pct, seconds } from "../output/format.js";
import { metricValue } from "../output/target-report.js";
import { ratiosChart, rowsCharts } from "./charts.js";
import { esc, htmlChart, htmlPage, htmlTable } from "./html.js";
import type { PngRenderer } from "./render.js";
import { writeChart } from "./report-dir.js";

export { prepareReportDir } from "./report-dir.js";

/** Writes report.html, report.json (the `reproduce --json` document) and the charts into `dir`. */
export function writeReproduceReport(
  dir: string,
  doc: ScanlabJson<"reproduce">,
  png: PngRenderer | null,
): void {
  const data = doc.result;
  const sections: string[] = [];
  for (const t of data.targets) {
    const parts: string[] = [];
    parts.push(`<h2 id="${esc(t.id)}">${esc(t.id)}. ${esc(t.title)}</h2>`);
    parts.push(`<p class="muted">Source: ${esc(t.source)}</p>`);
    if (t.interrupted) parts.push(`<p class="bad">Interrupted: only the rows finished before Ctrl-C.</p>`);
    parts.push(`<h3>Assumptions</h3><ul>${t.assumptions.map((a) => `<li>${esc(a)}</li>`).join("")}</ul>`);
    parts.push("<h3>Calibration</h3>");
    if (t.calibration === null) {
      parts.push(
        data.calibration
          ? "<p>None: this target has no unknown to calibrate; every row is a prediction.</p>"
          : "<p>Skipped (--no-calibration): every row runs with the scenario's default for its unknown.</p>",
      );
    } else {
      const k = t.calibration;
      parts.push(
        `<p>${esc(k.unknown)}: <b>${esc(fixed(k.value, 4))}</b>. Row <code>${esc(k.row)}</code> simulated ${esc(seconds(k.simulatedS))} against ${esc(seconds(k.publishedS))} published: <span class="${k.reached ? "ok" : "bad"}">${k.reached ? "reached" : "not reached"}</span> (${k.iterations} simulations).</p>`,
      );
    }
    if (t.rows.length > 0) {
      parts.push("<h3>Rows</h3>");
      parts.push(
        htmlTable(
          [
            "row",
            "metric",
            "published",
            "simulated",
            "sim/pub",
            "avg read kB",
            THROUGHPUT_UNIT,
            "OS hit",
            "IOPS",
          ],
          t.rows.map((r) => {
            const metric = r.metric ?? "timeS";
            const pub = r.published && r.metric ? r.published[r.metric] : undefined;
            return [
              r.label,
              r.metric ?? "time",
              pub === undefined ? "-" : metricValue(metric, pub),
              metricValue(metric, r.simulated[metric]),
              r.ratio === null ? "-" : fixed(r.ratio),
              fixed(r.simulated.avgReadKb, 0),
              fixed(r.simulated.mibPerS, 0),
              pct(r.simulated.osHitRatio),
              fixed(r.simulated.iops, 0),
            ];
          }),
        ),
      );
      for (const { metric, svg } of rowsCharts(t))
        parts.push(htmlChart(writeChart(dir, `${t.id}-rows-${metric}`, svg, png)));
    }
    if (t.ratios.length > 0) {
      parts.push("<h3>Ratios</h3>");
      parts.push(
        htmlTable(
          ["ratio", "published", "simulated", "gap", "tolerance", "verdict"],
          t.ratios.map((r) => [
            r.label,
            fixed(r.published),
            fixed(r.simulated),
            gapPct(r.gap),
            `+-${(r.tolerance * 100).toFixed(0)}%`,
            {
              html: r.withinTolerance
                ? "within"
                : `outside${r.missing === undefined ? "" : `; believed missing: ${esc(r.missing)}`}`,
              cls: r.withinTolerance ? "ok" : "bad",
            },
          ]),
        ),
      );
      const chart = ratiosChart(t);
      if (chart !== null) parts.push(htmlChart(writeChart(dir, `${t.id}-ratios`, chart, png)));
    }
    if (t.statements.length > 0) {
      parts.push("<h3>Must reproduce</h3>");
      parts.push(
        htmlTable(
          ["statement", "verdict", "detail"],
          t.statements.map((s) => [
            s.text,
            { html: s.holds ? "holds" : "does not hold", cls: s.holds ? "ok" : "bad" },
            s.missing === undefined ? s.detail : `${s.detail}; believed missing: ${s.missing}`,
          ]),
        ),
      );
    }
    if (t.notes.length > 0)
      parts.push(`<h3>Notes</h3><ul>${t.notes.map((n) => `<li>${esc(n)}</li>`).join("")}</ul>`);
    sections.push(parts.join("\n"));
  }
  const s = data.summary;
  const head = [
    `<h1>scanlab reproduce</h1>`,
    `<p>scanlab ${esc(doc.scanlab)}; seed ${data.seed === null ? "from each scenario" : data.seed}; ${data.calibration ? "with calibration" : "without calibration"}${data.interrupted ? "; <span class=bad>interrupted</span>" : ""}.</p>`,
    `<p><b>${s.hold} of ${s.statements}</b> statements hold; <b>${s.withinTolerance} of ${s.ratios}</b> ratios within tolerance.</p>`,
    htmlTable(
      ["target", "title", "statements holding", "ratios within"],
      data.targets.map((t) => [
        { html: `<a href="#${esc(t.id)}">${esc(t.id)}</a>` },
        t.title,
        `${t.statements.filter((x) => x.holds).length} / ${t.statements.length}`,
        `${t.ratios.filter((x) => x.withinTolerance).length} / ${t.ratios.length}`,
      ]),
    ),
  ].join("\n");
  writeFileSync(join(dir, "report.html"), htmlPage("scanlab reproduce", `${head}\n${sections.join("\n")}`));
  writeFileSync(join(dir, "report.json"), `${toJson(doc)}\n`);
}
