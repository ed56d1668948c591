/**
 * A reproduced target in text: assumptions, calibration, the rows with
 * published and simulated figures, the ratio bars and the "must reproduce"
 * statements.
 */
import { THROUGHPUT_UNIT } from "@scanlab/core";
import type { TargetReport } from "@scanlab/experiments";
import type { Ctx } from "../context.js";
import { fixed, gapPct, pct, seconds } from "./format.js";
import { renderTable } from "./table.js";
import { wrap } from "./wrap.js";

const METRIC_NAME: Record<string, string> = {
  timeS: "time",
  mibPerS: THROUGHPUT_UNIT,
  avgReadKb: "avg read kB",
};

/** Formats a value of a row metric. */
export function metricValue(metric: string, v: number | undefined): string {
  if (v === undefined) return "";
  if (metric === "timeS") return seconds(v);
  if (metric === "mibPerS") return fixed(v, 0);
  return fixed(v, 1);
}

/**
 * A text bar for a ratio's gap: the scale runs from -2x to +2x the tolerance,
 * the tolerance band is drawn heavy, `|` is no gap and `●` the simulated gap
 * (`◀` / `▶` when it is off the scale).
 */
export function ratioBar(gap: number, tolerance: number, width = 25): string {
  const half = Math.floor(width / 2);
  const span = 2 * tolerance;
  const pos = (g: number) => Math.round(half + (g / span) * half);
  const chars: string[] = [];
  for (let i = 0; i < width; i++) {
    const g = ((i - half) / half) * span;
    chars.push(Math.abs(g) <= tolerance + 1e-12 ? "━" : "─");
  }
  chars[half] = "┃";
  if (Number.isFinite(gap)) {
    const p = pos(gap);
    if (p < 0) chars[0] = "◀";
    else if (p >= width) chars[width - 1] = "▶";
    else chars[p] = "●";
  }
  return chars.join("");
}

/** Prints one target's report. */
export function printTargetReport(
  ctx: Ctx,
  r: TargetReport,
  interrupted: boolean,
  noCalibration = false,
): void {
  const { c } = ctx;
  ctx.out(c.bold(wrap(ctx, `${r.id}  ${r.title}`, r.id.length + 2)));
  ctx.out(c.dim(wrap(ctx, `source: ${r.source}`, 2)));
  if (interrupted)
    ctx.out(
      c.yellow(
        wrap(
          ctx,
          "interrupted: only the rows finished before Ctrl-C are shown; ratios and statements need every row.",
          2,
        ),
      ),
    );
  ctx.out("");
  ctx.out(c.bold("Assumptions"));
  for (const a of r.assumptions) ctx.out(wrap(ctx, `  - ${a}`, 4));
  ctx.out("");
  ctx.out(c.bold("Calibration"));
  if (r.calibration === null) {
    ctx.out(
      wrap(
        ctx,
        noCalibration
          ? "  skipped (--no-calibration): every row runs with the scenario's default for its unknown."
          : "  none: this target has no unknown to calibrate; every row is a prediction.",
        4,
      ),
    );
  } else {
    const k = r.calibration;
    const verdict = k.reached ? c.green("reached") : c.red("not reached");
    ctx.out(wrap(ctx, `  unknown: ${k.unknown}`, 4));
    ctx.out(
      wrap(
        ctx,
        `  value ${fixed(k.value, 4)}: row ${k.row} simulated ${seconds(k.simulatedS)} vs published ${seconds(k.publishedS)}, ${verdict} (${k.iterations} simulations)`,
        4,
      ),
    );
  }
  ctx.out("");
  if (r.rows.length > 0) {
    ctx.out(c.bold("Rows"));
    const rows = r.rows.map((row) => {
      const metric = row.metric ?? "timeS";
      const pub = row.published && row.metric ? row.published[row.metric] : undefined;
      return [
        row.label,
        row.metric ? (METRIC_NAME[row.metric] ?? row.metric) : "time",
        pub === undefined ? c.dim("-") : metricValue(metric, pub),
        metricValue(metric, row.simulated[metric]),
        row.ratio === null ? c.dim("-") : fixed(row.ratio, 2),
        fixed(row.simulated.avgReadKb, 0),
        fixed(row.simulated.mibPerS, 0),
        pct((row.simulated as { cacheHitRatio?: number }).cacheHitRatio ?? row.simulated.osHitRatio),
      ];
    });
    ctx.out(
      renderTable(
        ctx,
        ["row", "metric", "published", "simulated", "sim/pub", "avg read kB", THROUGHPUT_UNIT, "cache hit"],
        rows,
      ),
    );
    ctx.out("");
  }
  if (r.ratios.length > 0) {
    ctx.out(
      c.bold(
        wrap(
          ctx,
          "Ratios (published vs simulated; bar: gap on a scale of +-2x the tolerance, heavy = within)",
          2,
        ),
      ),
    );
    const w = Math.max(...r.ratios.map((x) => x.label.length));
    for (const x of r.ratios) {
      const verdict = x.withinTolerance
        ? c.green(`within +-${(x.tolerance * 100).toFixed(0)}%`)
        : c.red(`outside +-${(x.tolerance * 100).toFixed(0)}%`);
      // One line when it fits, else broken between its parts.
      ctx.out(
        wrap(
          ctx,
          [
            `  ${x.label.padEnd(w)}`,
            `published ${fixed(x.published).padStart(6)}`,
            `simulated ${fixed(x.simulated).padStart(6)}`,
            `gap ${gapPct(x.gap).padStart(7)}`,
            ratioBar(x.gap, x.tolerance),
            verdict,
          ],
          4,
        ),
      );
      if (x.missing !== undefined) ctx.out(wrap(ctx, `    ${c.dim(`believed missing: ${x.missing}`)}`, 6));
    }
    ctx.out("");
  }
  if (r.statements.length > 0) {
    ctx.out(c.bold("Must reproduce"));
    for (const s of r.statements) {
      const mark = s.holds ? c.green("✓ holds         ") : c.red("✗ does not hold ");
      ctx.out(wrap(ctx, `  ${mark} ${s.text}`, 19));
      ctx.out(wrap(ctx, `  ${" ".repeat(17)} ${c.dim(s.detail)}`, 20));
      if (s.missing !== undefined)
        ctx.out(wrap(ctx, `  ${" ".repeat(17)} ${c.dim(`believed missing: ${s.missing}`)}`, 20));
    }
    ctx.out("");
  }
  if (r.notes.length > 0) {
    ctx.out(c.bold("Notes"));
    for (const n of r.notes) ctx.out(wrap(ctx, `  - ${n}`, 4));
    ctx.out("");
  }
}
