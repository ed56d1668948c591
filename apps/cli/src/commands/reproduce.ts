/**
 * `scanlab reproduce [T1 ... | all]`: run the built-in reproduction targets
 * of @scanlab/experiments (apps/docs/src/reference/experiments.md) and report, per target, its assumptions,
 * the calibration of its one unknown, the published figures beside the
 * simulated ones, the ratio checks and the "must reproduce" statements. With
 * `--report DIR`: SVG charts (PNG too with `--png`) and one self-contained HTML report.
 *
 * Simulations run in worker threads, several at once on a multi-core
 * machine: a target's calibration runs its simulations one after the other,
 * then all its rows run side by side. Each target is printed as soon as it
 * and the targets before it are done, so the output order (and `--json`)
 * does not depend on timing.
 */
import {
  getTarget,
  type ReproduceJson,
  reproduceTargetAsync,
  summarizeReports,
  TARGETS,
  type TargetReport,
} from "@scanlab/experiments";
import type { Ctx } from "../context.js";
import { CliError, EXIT } from "../errors.js";
import { jsonDocument, printJson } from "../json-output.js";
import { splitList } from "../options.js";
import { seconds } from "../output/format.js";
import { Bars } from "../output/progress.js";
import { printTargetReport } from "../output/target-report.js";
import { wrap } from "../output/wrap.js";
import { pngRenderer } from "../report/render.js";
import { prepareReportDir, writeReproduceReport } from "../report/reproduce-report.js";
import { parseJobs, SimPool } from "../workers/pool.js";
import { dropSkipped, restrictRows } from "./reproduce-rows.js";
import { parseSeed } from "./scenario-input.js";

/** One target's report, whether Ctrl-C cut it short, and how long it took. */
interface TargetAnswer {
  report: TargetReport;
  interrupted: boolean;
  wallMs: number;
}

/** Options of `reproduce`. */
export interface ReproduceFlags {
  report?: string;
  png?: boolean;
  calibration?: boolean;
  seed?: string;
  jobs?: string;
  rows?: string;
  strict?: boolean;
  json?: boolean;
}

/** Picks the targets named on the command line (none or `all`: every target). */
export function selectTargets(names: readonly string[]): string[] {
  if (names.length === 0 || (names.length === 1 && names[0]!.toLowerCase() === "all"))
    return TARGETS.map((t) => t.id);
  const ids: string[] = [];
  for (const n of names) {
    if (n.toLowerCase() === "all") {
      throw new CliError(
        "CLI_CONFLICT",
        `"all" cannot be combined with target names: give "all" or a list such as T1 T3.`,
      );
    }
    const t = getTarget(n);
    if (t === undefined) {
      throw new CliError(
        "CLI_UNKNOWN_TARGET",
        `There is no target "${n}": use ${TARGETS.map((x) => x.id).join(", ")} or all.`,
      );
    }
    if (!ids.includes(t.id)) ids.push(t.id);
  }
  return ids;
}

/** Runs `reproduce`. */
export async function reproduceCommand(ctx: Ctx, names: string[], flags: ReproduceFlags): Promise<number> {
  const ids = selectTargets(names);
  const seed = parseSeed(flags.seed);
  const jobs = parseJobs(flags.jobs);
  let rows: string[] | undefined;
  if (flags.rows !== undefined) {
    if (ids.length !== 1) {
      throw new CliError(
        "CLI_CONFLICT",
        "--rows needs exactly one target (row names belong to a target): e.g. reproduce T1 --rows serial,stride-1.",
      );
    }
    const known = getTarget(ids[0]!)!
      .rows()
      .map((r) => r.id);
    rows = splitList(flags.rows, "rows");
    for (const r of rows) {
      if (!known.includes(r)) {
        const list =
          known.length > 12
            ? `${known.slice(0, 12).join(", ")} and ${known.length - 12} more`
            : known.join(", ");
        throw new CliError("CLI_UNKNOWN_ROW", `${ids[0]} has no row "${r}": its rows are ${list}.`);
      }
    }
  }
  const png = await pngRenderer(flags);
  const reportDir = flags.report === undefined ? null : prepareReportDir(flags.report);
  const noCalibration = flags.calibration === false;
  const reports: (TargetAnswer | undefined)[] = new Array(ids.length).fill(undefined);
  let printed = 0;
  const bars = Bars.start(ctx, "{target} {bar} {value}/{total} rows | {step}");
  const flush = () => {
    while (printed < ids.length && reports[printed] !== undefined) {
      const a = reports[printed]!;
      if (!ctx.json) {
        // How long the simulator took is no result: it goes to stderr, so the same seed prints the same bytes.
        ctx.err(ctx.c.dim(`${a.report.id}: simulated in ${seconds(a.wallMs / 1000)} of wall time`));
        printTargetReport(ctx, a.report, a.interrupted, noCalibration);
      }
      printed++;
    }
  };

  // Every target's calibration runs one simulation after the other, then its
  // rows all at once; the pool runs calibrations first (each is on a chain
  // that holds back its target's rows), so a long target's calibration is not
  // stuck behind another target's rows.
  const pool = new SimPool({ jobs, flag: ctx.interrupt.flag });
  const stopped = () => ctx.interrupt.stopped;
  const runTarget = async (id: string, i: number): Promise<TargetAnswer> => {
    const { exp, note } = restrictRows(getTarget(id)!, rows, noCalibration);
    const total = exp.rows().length;
    const update = bars.add(total, { target: id.padEnd(3), step: "waiting" });
    let finished = 0;
    let calibrationCut = false;
    const t0 = performance.now();
    const report = await reproduceTargetAsync(exp, {
      noCalibration,
      simulate: async ({ step, scenario }) => {
        const calibrating = step.endsWith("(calibrating)");
        if (calibrating) update(finished, { step });
        const input = seed === undefined ? scenario : { ...scenario, seed };
        const answer = await pool.run({ kind: "simulate", scenario: input, full: true }, calibrating ? 1 : 0);
        const result = answer === undefined || answer.interrupted ? undefined : (answer.result ?? undefined);
        if (result === undefined && calibrating) calibrationCut = true;
        if (!calibrating && result !== undefined) update(++finished, { step });
        return result;
      },
    });
    dropSkipped(report);
    if (note !== null) report.notes = [note, ...report.notes];
    const complete = !calibrationCut && report.rows.length === total;
    const answer = { report, interrupted: stopped() && !complete, wallMs: performance.now() - t0 };
    update(total, { step: "done" });
    reports[i] = answer;
    flush();
    return answer;
  };

  ctx.interrupt.catch();
  let settled: PromiseSettledResult<TargetAnswer>[];
  try {
    settled = await Promise.allSettled(ids.map((id, i) => runTarget(id, i)));
  } finally {
    await pool.close();
    bars.stop();
    ctx.interrupt.release();
  }
  // Every target either answers (after Ctrl-C with what it had: its report is marked interrupted) or
  // rejects, which is rethrown here; each answer was printed by flush() as it landed, in target order.
  const done: TargetAnswer[] = [];
  for (const s of settled) {
    if (s.status === "rejected") throw s.reason;
    done.push(s.value);
  }
  const interrupted = ctx.interrupt.stopped && done.some((a) => a.interrupted);
  const summary = summarizeReports(done.map((a) => a.report));
  const json: ReproduceJson = {
    seed: seed ?? null,
    calibration: !noCalibration,
    interrupted,
    targets: done.map((a) => ({ ...a.report, interrupted: a.interrupted })),
    summary,
  };
  if (reportDir !== null) writeReproduceReport(reportDir, jsonDocument("reproduce", json), png);
  if (ctx.json) {
    printJson(ctx, "reproduce", json);
  } else {
    const { c } = ctx;
    ctx.out(
      c.bold(
        wrap(
          ctx,
          `Summary: ${summary.hold} of ${summary.statements} statements hold; ${summary.withinTolerance} of ${summary.ratios} ratios within tolerance` +
            ` (${done.length} of ${ids.length} targets${noCalibration ? ", no calibration" : ""}${interrupted ? ", interrupted" : ""}).`,
          2,
        ),
      ),
    );
    if (reportDir !== null)
      ctx.out(
        wrap(
          ctx,
          `Report: ${reportDir}/report.html (charts as ${png === null ? "SVG" : "SVG and PNG"} beside it).`,
          2,
        ),
      );
  }
  if (interrupted) return ctx.interrupt.exitCode;
  if (flags.strict && (summary.hold < summary.statements || summary.withinTolerance < summary.ratios))
    return EXIT.failed;
  return EXIT.ok;
}
