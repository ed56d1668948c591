/**
 * `scanlab advise`: settings for one table scan on one machine, each backed
 * by a small simulated sweep against PostgreSQL's defaults.
 *
 * The advice itself (the stages, the tolerances, scaling a large table down,
 * the one gain convention of every row) is `advise` of @scanlab/advisor;
 * this command builds the scenario from its flags, runs the advice's
 * simulations on worker threads (or, with `--queue URL`, on a job queue's
 * workers, each stage a sweep of its own) with a progress bar and the work budget,
 * and prints the rows, each with the `scanlab sweep` command that shows it
 * at full size.
 */
import {
  type Advice,
  type AdviceRow,
  type AdviceRunner,
  advise,
  DEFAULT_SIM_BYTES,
  MIN_SIM_BYTES,
} from "@scanlab/advisor";
import type { RowMetrics, ScenarioInput } from "@scanlab/simulator";
import type { Ctx } from "../context.js";
import { CliError, EXIT } from "../errors.js";
import { printJson, type RecommendationJson, type SweptValue } from "../json-output.js";
import { parseChoice, parseSizeFlag } from "../options.js";
import { gapPct, seconds } from "../output/format.js";
import { Bars } from "../output/progress.js";
import { renderTable } from "../output/table.js";
import { wrap, wrapCommand } from "../output/wrap.js";
import {
  applyScenarioFlags,
  DEFAULT_SCENARIO,
  formatFlags,
  parseScenarioFlags,
  type ScenarioDraft,
} from "../scenario-flags.js";
import { checkBudget, estimateScenario, fractionDone, isLong } from "../work-budget.js";
import { parseJobs, runPool } from "../workers/pool.js";
import type { SimulateAnswer, SimulateTask } from "../workers/protocol.js";
import { runOnQueue } from "./queue-run.js";
import { parseSeed, validateScenario } from "./scenario-input.js";

/** Options of `advise`. */
export interface AdviseFlags extends Record<string, unknown> {
  device?: string;
  os?: string;
  tableSize?: string;
  workload?: string;
  pg?: string;
  simSize?: string;
  jobs?: string;
  seed?: string;
  json?: boolean;
  overBudget?: boolean;
  /** `--queue URL`: run the simulations on a job queue instead of local threads. */
  queue?: string;
}

/**
 * One recommendation as `advise` prints it (`advise --json` as a
 * {@link RecommendationJson}, its values as numbers): an {@link AdviceRow} of
 * @scanlab/advisor (the default's time, the recommended value's time, gain =
 * time(default) / time(recommended) - 1) with the full-size command that
 * shows it.
 */
export interface Recommendation {
  setting: string;
  defaultValue: string;
  recommended: string;
  /** time(default) / time(recommended) - 1: +25% means the default takes 25% longer. */
  gain: number | null;
  /** Simulated time at PostgreSQL's default. */
  defaultTimeS: number | null;
  /** Simulated time at the recommended value (the default's, when the default is recommended). */
  recommendedTimeS: number | null;
  why: string;
  sweep: { value: string; timeS: number | null }[];
  /** The full-size command that shows it. */
  command: string;
}

/** A row of the advice with the `scanlab sweep` command that shows it (`fullCommand`: the sweep with the user's flags). */
function recommendation(r: AdviceRow, fullCommand: string): Recommendation {
  const workers = r.fullSizeSweep.workers === null ? "" : ` --workers ${r.fullSizeSweep.workers}`;
  return {
    setting: r.setting,
    defaultValue: r.defaultValue,
    recommended: r.recommended,
    gain: r.gain,
    defaultTimeS: r.defaultTimeS,
    recommendedTimeS: r.recommendedTimeS,
    why: r.why,
    sweep: r.sweep,
    command: `${fullCommand}${workers} --vary ${r.key}=${r.fullSizeSweep.values.join(",")}`,
  };
}

/** A value of an advised setting as JSON: a number where it is one (`"16"` is 16), else as printed (`"none"`). */
function adviceValue(text: string): SweptValue {
  return /^-?\d+(?:\.\d+)?$/.test(text) ? Number(text) : text;
}

/** A recommendation as `advise --json` prints it, its values as numbers where they are numbers. */
function recommendationJson(r: Recommendation): RecommendationJson {
  return {
    ...r,
    defaultValue: adviceValue(r.defaultValue),
    recommended: adviceValue(r.recommended),
    sweep: r.sweep.map((p) => ({ value: adviceValue(p.value), timeS: p.timeS })),
  };
}

/** Runs `advise`. */
export async function adviseCommand(ctx: Ctx, flags: AdviseFlags): Promise<number> {
  const pg = flags.pg === undefined ? "17" : parseChoice(flags.pg, "pg", ["14", "17", "18"] as const);
  const workload =
    flags.workload === undefined
      ? "seqscan"
      : parseChoice(flags.workload, "workload", ["seqscan", "bitmap"] as const);
  const simBytes =
    flags.simSize === undefined ? DEFAULT_SIM_BYTES : parseSizeFlag(flags.simSize, "sim-size", MIN_SIM_BYTES);
  const jobs = parseJobs(flags.jobs);
  const seed = parseSeed(flags.seed);
  const given: Record<string, string> = {};
  for (const name of [
    "device",
    "os",
    "table-size",
    "cores",
    "ram",
    "shared-buffers",
    "dataset",
    "selectivity",
    "cache",
    "tuples-per-page",
    "clients",
  ]) {
    const v = flags[name.replace(/-([a-z])/g, (_, ch: string) => ch.toUpperCase())];
    if (typeof v === "string") given[name] = v;
  }
  given.pg = pg;
  given.workload = workload;
  const userFlags = parseScenarioFlags(given);
  const full = applyScenarioFlags(DEFAULT_SCENARIO, userFlags, seed) as unknown as ScenarioDraft;
  validateScenario(full as unknown as ScenarioInput, "advise flags");
  const fullCommand = `scanlab sweep ${formatFlags(userFlags)}`;

  let long = false;
  if (flags.queue !== undefined && flags.jobs !== undefined)
    throw new CliError(
      "CLI_CONFLICT",
      "--jobs sets local threads, and --queue runs the simulations on queue workers instead: give the workers --jobs.",
    );
  const queue = flags.queue;
  const run: AdviceRunner = async (scenarios, stage) => {
    if (queue !== undefined) {
      // Each stage is a sweep of its own on the queue, its id derived from its cells: the same advice resumes.
      const onQueue = await runOnQueue(ctx, scenarios, {
        command: "advise",
        url: queue,
        overBudget: flags.overBudget === true,
        label: (i) => `advise ${stage.name} ${stage.points[i] ?? `simulation ${i + 1}`}`,
      });
      return onQueue.metrics.map((m) => m ?? null);
    }
    const tasks: SimulateTask[] = scenarios.map((scenario) => ({ kind: "simulate", scenario, full: false }));
    const estimates = long ? tasks.map((t) => estimateScenario(t.scenario)) : [];
    const bars = Bars.start(ctx, `advise: ${stage.name.padEnd(24)} {bar} {value}/{total}`, { long });
    const scale = long ? 1000 : 1;
    const update = bars.add(tasks.length * scale, {});
    let done = 0;
    const finished = new Set<number>();
    ctx.interrupt.catch();
    try {
      const answers = (await runPool(tasks, {
        jobs,
        flag: ctx.interrupt.flag,
        onDone: (i) => {
          finished.add(i);
          update(++done * scale);
        },
        onProgress:
          long && bars.drawn
            ? (slots) => {
                let value = 0;
                estimates.forEach((e, i) => {
                  value += finished.has(i) ? scale : Math.floor(scale * fractionDone(e, slots[i]!));
                });
                update(value);
              }
            : undefined,
      })) as (SimulateAnswer | undefined)[];
      return answers.map((a): RowMetrics | null => (a && !a.interrupted ? a.metrics : null));
    } finally {
      bars.stop();
      ctx.interrupt.release();
    }
  };
  const advice = await advise(full as unknown as ScenarioInput, {
    simBytes,
    simSizeOption: "--sim-size",
    run,
    stopped: () => ctx.interrupt.stopped,
    onPlan: (grid) => {
      checkBudget(`This advice (${grid.length} simulations)`, grid, flags.overBudget === true, "--sim-size");
      long = isLong(grid);
    },
  });
  const recs = advice.rows.map((r) => recommendation(r, fullCommand));
  if (ctx.json) {
    printJson(ctx, "advise", {
      scenario: full,
      scale: advice.scale,
      interrupted: advice.interrupted,
      recommendations: recs.map(recommendationJson),
    });
    return advice.interrupted ? ctx.interrupt.exitCode : EXIT.ok;
  }
  render(
    ctx,
    advice,
    recs,
    `Advice for a ${workload} of ${full.tables[0]!.size} on ${userFlags
      .filter((f) => ["os", "device"].includes(f.flag.name))
      .map((f) => f.flag.format(f.value))
      .join(", ")}, PostgreSQL ${pg}`,
  );
  return advice.interrupted ? ctx.interrupt.exitCode : EXIT.ok;
}

/** A value with the simulated time at it, when there is one: `4 (10.1 s)`. */
function timed(value: string, timeS: number | null): string {
  return timeS === null ? value : `${value} (${seconds(timeS)})`;
}

/**
 * Prints the advice as a table, each row's reason and sweep, and the notes.
 * Each value carries its simulated time, so the table has four columns and
 * fits 80; the commands that show a row wrap with shell continuations.
 */
function render(ctx: Ctx, advice: Advice, recs: readonly Recommendation[], title: string): void {
  const { c } = ctx;
  ctx.out(c.bold(wrap(ctx, title, 2)));
  const scaled = advice.notes.find((n) => n.kind === "scaled");
  if (scaled !== undefined)
    ctx.out(c.yellow(wrap(ctx, `${scaled.text} Run the listed commands for full-size evidence.`, 2)));
  ctx.out(
    renderTable(
      ctx,
      ["setting", "default (time)", "recommended (time)", "gain vs default"],
      recs.map((r) => [
        r.setting,
        timed(r.defaultValue, r.defaultTimeS),
        c.bold(timed(r.recommended, r.recommendedTimeS)),
        r.gain === null ? "-" : gapPct(r.gain),
      ]),
      ["left", "left", "left", "right"],
    ),
  );
  for (const r of recs) {
    ctx.out(wrap(ctx, `${c.bold(r.setting)}: ${r.why}.`, 2));
    if (r.sweep.length > 0)
      ctx.out(
        c.dim(
          wrap(ctx, `  simulated: ${r.sweep.map((s) => `${s.value} ${seconds(s.timeS)}`).join(", ")}`, 4),
        ),
      );
    // A command to copy: broken only with shell continuations, so it still pastes.
    const label = "  shows it: ";
    for (const line of wrapCommand(`${label}${r.command}`, ctx.width, label.length + 1).split("\n"))
      ctx.out(c.dim(line));
  }
  for (const n of advice.notes) if (n.kind === "throughput") ctx.out(wrap(ctx, n.text, 2));
  if (advice.interrupted)
    ctx.out(
      c.yellow(
        wrap(
          ctx,
          "Interrupted: only the settings finished before the interruption (Ctrl-C or SIGTERM) are listed.",
          2,
        ),
      ),
    );
}
