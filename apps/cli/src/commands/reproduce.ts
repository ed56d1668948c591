/**
 * `scanlab reproduce [T1 ... | all]`: run the built-in reproduction targets
 * of @scanlab/simulator (targets.md) and report, per target, its assumptions,
 * the calibration of its one unknown, the published figures beside the
 * simulated ones, the ratio checks and the "must reproduce" statements. With
 * `--report DIR`: SVG and PNG charts and one self-contained HTML report.
 *
 * Targets run in worker threads, several at once on a multi-core machine;
 * each is printed as soon as it and the targets before it are done, so the
 * output order (and `--json`) does not depend on timing.
 */
import { getTarget, TARGETS, type TargetReport } from "@scanlab/simulator";
import type { Ctx } from "../context.js";
import { toJson } from "../context.js";
import { CliError, EXIT } from "../errors.js";
import { parseIntFlag, splitList } from "../options.js";
import { Bars } from "../output/progress.js";
import { printTargetReport } from "../output/target-report.js";
import { prepareReportDir, writeReproduceReport } from "../report/reproduce-report.js";
import { VERSION } from "../version.js";
import { runPool } from "../workers/pool.js";
import type { ReproduceAnswer, ReproduceTask } from "../workers/protocol.js";

/** Options of `reproduce`. */
export interface ReproduceFlags {
  report?: string;
  calibration?: boolean;
  seed?: string;
  jobs?: string;
  rows?: string;
  strict?: boolean;
  json?: boolean;
}

/** What `reproduce --json` prints. */
export interface ReproduceJson {
  scanlab: string;
  seed: number | null;
  calibration: boolean;
  interrupted: boolean;
  targets: (TargetReport & { interrupted: boolean })[];
  summary: { statements: number; hold: number; ratios: number; withinTolerance: number };
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
  const seed = flags.seed === undefined ? undefined : parseIntFlag(flags.seed, "seed", 0, 2 ** 31 - 1);
  const jobs = flags.jobs === undefined ? undefined : parseIntFlag(flags.jobs, "jobs", 1, 256);
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
  const reportDir = flags.report === undefined ? null : prepareReportDir(flags.report);
  const noCalibration = flags.calibration === false;
  const tasks: ReproduceTask[] = ids.map((target) => ({
    kind: "reproduce",
    target,
    noCalibration,
    seed,
    rows,
  }));

  const reports: (ReproduceAnswer | undefined)[] = new Array(ids.length).fill(undefined);
  let printed = 0;
  const bars = Bars.start(ctx, "{target} {bar} {value}/{total} rows | {step}");
  const updaters = ids.map((id, i) => {
    const total = rows?.length ?? getTarget(id)!.rows().length;
    const done = { n: 0 };
    const update = bars.add(total, { target: id.padEnd(3), step: "waiting" });
    return { total, done, update, i };
  });
  const flush = () => {
    while (printed < ids.length && reports[printed] !== undefined) {
      const a = reports[printed]!;
      if (!ctx.json) printTargetReport(ctx, a.report, a.interrupted, noCalibration, a.wallMs);
      printed++;
    }
  };

  ctx.interrupt.catch();
  let answers: (ReproduceAnswer | undefined)[];
  try {
    answers = (await runPool(tasks, {
      jobs,
      flag: ctx.interrupt.flag,
      onProgress: (task, step) => {
        const u = updaters[task]!;
        if (!step.endsWith("(calibrating)")) u.done.n++;
        u.update(Math.max(0, u.done.n - 1), { step });
      },
      onDone: (task, answer) => {
        const u = updaters[task]!;
        u.update(u.total, { step: "done" });
        reports[task] = answer as ReproduceAnswer;
        flush();
      },
    })) as (ReproduceAnswer | undefined)[];
  } finally {
    bars.stop();
    ctx.interrupt.release();
  }
  const interrupted = ctx.interrupt.stopped && answers.some((a) => a === undefined || a.interrupted);
  // After Ctrl-C, targets that finished after an unfinished one are printed too.
  if (!ctx.json) {
    for (let i = printed; i < ids.length; i++) {
      const a = answers[i];
      if (a !== undefined) printTargetReport(ctx, a.report, a.interrupted, noCalibration, a.wallMs);
      else ctx.out(ctx.c.yellow(`${ids[i]}: not run (interrupted).`));
    }
  }
  const done = answers.filter((a): a is ReproduceAnswer => a !== undefined);
  const statements = done.flatMap((a) => a.report.statements);
  const ratios = done.flatMap((a) => a.report.ratios);
  const summary = {
    statements: statements.length,
    hold: statements.filter((s) => s.holds).length,
    ratios: ratios.length,
    withinTolerance: ratios.filter((r) => r.withinTolerance).length,
  };
  const json: ReproduceJson = {
    scanlab: VERSION,
    seed: seed ?? null,
    calibration: !noCalibration,
    interrupted,
    targets: done.map((a) => ({ ...a.report, interrupted: a.interrupted })),
    summary,
  };
  if (reportDir !== null) await writeReproduceReport(reportDir, json, ctx);
  if (ctx.json) {
    ctx.out(toJson(json));
  } else {
    const { c } = ctx;
    ctx.out(
      c.bold(
        `Summary: ${summary.hold} of ${summary.statements} statements hold; ${summary.withinTolerance} of ${summary.ratios} ratios within tolerance` +
          ` (${done.length} of ${ids.length} targets${noCalibration ? ", no calibration" : ""}${interrupted ? ", interrupted" : ""}).`,
      ),
    );
    if (reportDir !== null) ctx.out(`Report: ${reportDir}/report.html (charts as SVG and PNG beside it).`);
  }
  if (interrupted) return EXIT.interrupted;
  if (flags.strict && (summary.hold < summary.statements || summary.withinTolerance < summary.ratios))
    return EXIT.failed;
  return EXIT.ok;
}
