/**
 * `scanlab sweep --vary NAME=V1,V2,... [--vary NAME2=...]`: one scenario
 * (file and/or flags) simulated at every combination of one or two varied
 * settings, spread over the machine's cores with worker threads (or, with
 * `--queue URL`, over `scanlab worker` processes on any machines: see
 * queue-run.ts; the output is the same, byte for byte), printed as
 * the table of Vondra's 2022 benchmark (pgsql-hackers, “Re: effective_io_concurrency and NVMe devices”): a time per cell and the percentage of a baseline column
 * (the first value of the first varied setting, or `--baseline`), green when
 * faster and red when slower on a terminal. `--report DIR` adds a chart.
 * The whole grid's work is estimated before anything runs (work-budget.ts).
 * The grid itself (cells, their order and labels, the baseline ratios) is
 * `planSweep` of @scanlab/advisor; this command parses `--vary` with the
 * scenario flags and writes each cell's values into the scenario.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { baselineRatios, planSweep, type SweepAxis, sweepCellName } from "@scanlab/advisor";
import { THROUGHPUT_UNIT } from "@scanlab/core";
import type { RowMetrics, ScenarioInput } from "@scanlab/simulator";
import type { Ctx } from "../context.js";
import { toJson } from "../context.js";
import { CliError, EXIT, isUserError } from "../errors.js";
import { jsonDocument, printJson, type SweepJson } from "../json-output.js";
import { splitList } from "../options.js";
import { fixed, pct, seconds } from "../output/format.js";
import { Bars } from "../output/progress.js";
import { renderTable } from "../output/table.js";
import { wrap } from "../output/wrap.js";
import { sweepChart } from "../report/charts.js";
import { esc, htmlChart, htmlPage, htmlTable } from "../report/html.js";
import { pngRenderer } from "../report/render.js";
import { prepareReportDir, writeChart } from "../report/report-dir.js";
import {
  applyScenarioFlags,
  type ParsedFlags,
  SCENARIO_FLAGS,
  type ScenarioFlag,
  scenarioFlag,
} from "../scenario-flags.js";
import { checkBudget, estimateScenario, fractionDone, isLong } from "../work-budget.js";
import { localThreads, parseJobs, runPool, SimPool } from "../workers/pool.js";
import type { SimulateAnswer, SimulateTask } from "../workers/protocol.js";
import { runOnQueue } from "./queue-run.js";
import { buildScenario, validateScenario } from "./scenario-input.js";
import { sweptValue } from "./sweep-json.js";

/** One varied setting: a sweep axis of scenario flag values, with the text each was given as. */
export interface Vary extends SweepAxis {
  flag: ScenarioFlag;
  raw: string[];
  values: unknown[];
  labels: string[];
}

/** Parses `NAME=V1,V2,...` (NAME is a scenario flag name, with or without `--`). */
export function parseVary(spec: string): Vary {
  const eq = spec.indexOf("=");
  if (eq <= 0) {
    throw new CliError(
      "CLI_BAD_VARY",
      `--vary "${spec}" is not NAME=V1,V2,...: e.g. --vary effective-io-concurrency=0,1,16.`,
    );
  }
  const name = spec.slice(0, eq).trim().replace(/^--/, "");
  const flag = scenarioFlag(name);
  if (flag === undefined) {
    throw new CliError(
      "CLI_BAD_VARY",
      `--vary: "${name}" is not a scenario setting: use one of ${SCENARIO_FLAGS.map((f) => f.name).join(", ")}.`,
    );
  }
  const raw = splitList(spec.slice(eq + 1), `vary ${name}`);
  const values = raw.map((r) => flag.parse(r));
  const labels = values.map((v) => flag.format(v));
  if (new Set(labels).size !== labels.length) {
    throw new CliError("CLI_BAD_VARY", `--vary ${name} lists a value twice: give each value once.`);
  }
  return { name: flag.name, flag, raw, values, labels };
}

/** One simulated point of a sweep. */
export interface SweepPoint {
  /** Index of the value of each varied setting. */
  at: number[];
  /** The values as printed (`{ "effective-io-concurrency": "16" }`). */
  values: Record<string, string>;
  metrics: RowMetrics | null;
  /** time / time of the baseline column in the same row. */
  ofBaseline: number | null;
}

/** Options of `sweep`. */
export interface SweepFlags extends Record<string, unknown> {
  vary?: string[];
  baseline?: string;
  jobs?: string;
  report?: string;
  png?: boolean;
  json?: boolean;
  seed?: string;
  overBudget?: boolean;
  /** `--queue URL`: run the cells on a job queue instead of local threads. */
  queue?: string;
  /** `--sweep-id ID` (with --queue). */
  sweepId?: string;
}

/** Colours a percentage of the baseline: faster green, slower red. */
function colourPct(ctx: Ctx, ratio: number | null): string {
  if (ratio === null || !Number.isFinite(ratio)) return "-";
  const text = `${(ratio * 100).toFixed(0)}%`;
  if (ratio < 0.995) return ctx.c.green(text);
  if (ratio > 1.005) return ctx.c.red(text);
  return text;
}

/** Runs `sweep`. */
export async function sweepCommand(ctx: Ctx, file: string | undefined, flags: SweepFlags): Promise<number> {
  const specs = flags.vary ?? [];
  if (specs.length === 0) {
    throw new CliError(
      "CLI_MISSING_VARY",
      "sweep needs --vary NAME=V1,V2,... (one or two of them): e.g. --vary workers=0,1,2,4.",
    );
  }
  if (specs.length > 2)
    throw new CliError("CLI_BAD_VARY", `sweep varies one or two settings, got ${specs.length} --vary flags.`);
  const varies = specs.map(parseVary);
  if (varies.length === 2 && varies[0]!.flag.name === varies[1]!.flag.name) {
    throw new CliError(
      "CLI_BAD_VARY",
      `--vary ${varies[0]!.flag.name} is given twice: list all its values in one --vary.`,
    );
  }
  for (const v of varies) {
    if (typeof flags[v.flag.name.replace(/-([a-z])/g, (_, ch: string) => ch.toUpperCase())] === "string") {
      throw new CliError(
        "CLI_CONFLICT",
        `--${v.flag.name} is both fixed and varied: drop --${v.flag.name} or its --vary.`,
      );
    }
  }
  const jobs = parseJobs(flags.jobs);
  if (flags.sweepId !== undefined && flags.queue === undefined)
    throw new CliError("CLI_CONFLICT", "--sweep-id names a sweep on a job queue: give --queue URL with it.");
  if (flags.queue !== undefined && flags.jobs !== undefined)
    throw new CliError(
      "CLI_CONFLICT",
      "--jobs sets local threads, and --queue runs the cells on queue workers instead: give the workers --jobs.",
    );
  const { base, flags: fixedFlags, seed } = buildScenario(file, flags);
  const cols = varies[0]!;
  const rowsVary = varies[1] ?? null;
  let baselineIndex = 0;
  if (flags.baseline !== undefined) {
    let label: string | null = null;
    try {
      label = cols.flag.format(cols.flag.parse(flags.baseline));
    } catch (e) {
      if (!isUserError(e)) throw e;
    }
    baselineIndex = label === null ? -1 : cols.labels.indexOf(label);
    if (baselineIndex < 0) {
      throw new CliError(
        "CLI_BAD_BASELINE",
        `--baseline ${flags.baseline} is not one of the --vary ${cols.flag.name} values (${cols.labels.join(", ")}).`,
      );
    }
  }

  // Every combination, row-major (rows: the second setting), each checked before anything runs.
  const plan = planSweep(varies, baselineIndex);
  const points: SweepPoint[] = [];
  const tasks: SimulateTask[] = [];
  const nrows = rowsVary?.values.length ?? 1;
  for (const cell of plan.cells) {
    const extra: ParsedFlags = varies.map((v, i) => ({
      flag: v.flag,
      raw: v.raw[cell.at[i]!]!,
      value: cell.values[i],
    }));
    const scenario = applyScenarioFlags(base, [...fixedFlags, ...extra], seed) as ScenarioInput & {
      name: string;
    };
    scenario.name = sweepCellName(scenario.name, cell);
    validateScenario(scenario, `sweep point ${cell.label}`);
    points.push({ at: cell.at, values: cell.labels, metrics: null, ofBaseline: null });
    tasks.push({ kind: "simulate", scenario, full: false });
  }

  // Local threads start now and load the simulator while this one estimates the cells.
  const pool =
    flags.queue === undefined
      ? new SimPool({ jobs: localThreads(jobs, tasks.length), flag: ctx.interrupt.flag })
      : null;
  pool?.warm();
  let estimates: ReturnType<typeof estimateScenario>[];
  let png: Awaited<ReturnType<typeof pngRenderer>>;
  let reportDir: ReturnType<typeof prepareReportDir> | null;
  let answers: (SimulateAnswer | undefined)[] = [];
  try {
    estimates = tasks.map((t) => estimateScenario(t.scenario));
    checkBudget(`This sweep of ${tasks.length} points`, estimates, flags.overBudget === true);
    png = await pngRenderer(flags);
    // After the budget: a refused sweep leaves no report directory behind.
    reportDir = flags.report === undefined ? null : prepareReportDir(flags.report);
    if (pool !== null) answers = await runLocal(ctx, tasks, estimates, pool);
  } finally {
    await pool?.close();
  }
  if (flags.queue !== undefined) {
    const run = await runOnQueue(
      ctx,
      tasks.map((t) => t.scenario),
      {
        command: "sweep",
        url: flags.queue,
        sweepId: flags.sweepId,
        overBudget: flags.overBudget === true,
        label: (i) => `sweep point ${plan.cells[i]!.label}`,
      },
    );
    // The same answers a local thread gives: the metrics, bit for bit.
    answers = run.metrics.map((metrics): SimulateAnswer | undefined =>
      metrics === undefined
        ? undefined
        : { kind: "simulate", metrics, result: null, interrupted: false, wallMs: 0 },
    );
  }
  answers.forEach((a, i) => {
    if (a !== undefined && !a.interrupted) points[i]!.metrics = a.metrics;
  });
  const ratios = baselineRatios(
    plan,
    points.map((p) => p.metrics?.timeS),
  );
  points.forEach((p, i) => {
    p.ofBaseline = ratios[i] ?? null;
  });
  const interrupted = points.some((p) => p.metrics === null);
  const baselineLabel = plan.baselineLabel;
  const json: SweepJson = {
    scenario: applyScenarioFlags(base, fixedFlags, seed),
    vary: varies.map((v) => ({
      name: v.flag.name,
      values: v.values.map((x) => sweptValue(v.flag, x)),
      labels: v.labels,
    })),
    baseline: baselineLabel,
    interrupted,
    points: points.map((p) => ({
      values: Object.fromEntries(varies.map((v, i) => [v.flag.name, sweptValue(v.flag, v.values[p.at[i]!])])),
      labels: p.values,
      ofBaseline: p.ofBaseline,
      metrics: p.metrics,
    })),
  };

  const head = [
    cols.flag.name,
    ...(rowsVary
      ? cols.labels
      : ["time", `% of ${baselineLabel}`, THROUGHPUT_UNIT, "avg read kB", "cache hit"]),
  ];
  const tableRows = buildRows((r) => colourPct(ctx, r));
  function buildRows(pctText: (ratio: number | null) => string): string[][] {
    let tableRows: string[][];
    if (rowsVary === null) {
      tableRows = points.map((p, i) => [
        cols.labels[i]!,
        p.metrics ? seconds(p.metrics.timeS) : "-",
        pctText(p.ofBaseline),
        p.metrics ? fixed(p.metrics.mibPerS, 0) : "-",
        p.metrics ? fixed(p.metrics.avgReadKb, 0) : "-",
        p.metrics
          ? pct((p.metrics as { cacheHitRatio?: number }).cacheHitRatio ?? p.metrics.osHitRatio)
          : "-",
      ]);
    } else {
      tableRows = [];
      for (let r = 0; r < nrows; r++) {
        const rowPoints = points.slice(r * cols.values.length, (r + 1) * cols.values.length);
        tableRows.push([
          `${rowsVary.flag.name}=${rowsVary.labels[r]}`,
          ...rowPoints.map((p) => (p.metrics ? seconds(p.metrics.timeS) : "-")),
        ]);
        tableRows.push([`  % of ${baselineLabel}`, ...rowPoints.map((p) => pctText(p.ofBaseline))]);
      }
    }
    return tableRows;
  }
  if (reportDir !== null) {
    const title = rowsVary
      ? `time vs ${cols.flag.name}, by ${rowsVary.flag.name}`
      : `time vs ${cols.flag.name}`;
    const chart = sweepChart(
      title,
      cols.flag.name,
      rowsVary?.flag.name ?? null,
      points.map((p) => ({
        x: p.values[cols.flag.name]!,
        series: rowsVary ? p.values[rowsVary.flag.name]! : "",
        timeS: p.metrics?.timeS ?? Number.NaN,
      })),
      cols.labels,
    );
    const svg = writeChart(reportDir, "sweep", chart, png);
    const plainHead = head;
    const plainRows = buildRows((r) =>
      r === null || !Number.isFinite(r) ? "-" : `${(r * 100).toFixed(0)}%`,
    );
    writeFileSync(
      join(reportDir, "sweep.html"),
      htmlPage(
        "scanlab sweep",
        `<h1>scanlab sweep</h1><p>${esc(title)}; baseline ${esc(baselineLabel)}.</p>${htmlTable(plainHead, plainRows)}${htmlChart(svg)}<h3>Scenario</h3><pre>${esc(toJson(json.scenario))}</pre>`,
      ),
    );
    writeFileSync(join(reportDir, "sweep.json"), `${toJson(jsonDocument("sweep", json))}\n`);
  }
  if (ctx.json) {
    printJson(ctx, "sweep", json);
  } else {
    if (interrupted)
      ctx.out(
        ctx.c.yellow(
          wrap(
            ctx,
            "Interrupted: points not finished before the interruption (Ctrl-C or SIGTERM) show as -.",
            2,
          ),
        ),
      );
    // A grid too wide for the output is split into tables (renderTable), each led by the rows' names.
    ctx.out(renderTable(ctx, head, tableRows));
    if (reportDir !== null)
      ctx.out(wrap(ctx, `Chart: ${reportDir}/sweep.svg${png === null ? "" : ", sweep.png"}, sweep.html`, 7));
  }
  return interrupted ? ctx.interrupt.exitCode : EXIT.ok;
}

/** Runs the sweep's cells on local worker threads, with a progress bar. */
async function runLocal(
  ctx: Ctx,
  tasks: SimulateTask[],
  estimates: ReturnType<typeof estimateScenario>[],
  pool: SimPool,
): Promise<(SimulateAnswer | undefined)[]> {
  const bars = Bars.start(ctx, "sweep {bar} {percentage}% {step}", { long: isLong(estimates) });
  const scale = 1000;
  const update = bars.add(tasks.length * scale, { step: `0/${tasks.length} points` });
  let done = 0;
  const finished = new Set<number>();
  let slotsSeen: readonly Float64Array[] = [];
  const redraw = () => {
    let value = 0;
    estimates.forEach((e, i) => {
      value += finished.has(i)
        ? scale
        : slotsSeen[i]
          ? Math.floor(scale * fractionDone(e, slotsSeen[i]!))
          : 0;
    });
    update(value, { step: `${done}/${tasks.length} points` });
  };
  ctx.interrupt.catch();
  try {
    return (await runPool(tasks, {
      flag: ctx.interrupt.flag,
      pool,
      onDone: (i) => {
        done++;
        finished.add(i);
        redraw();
      },
      onProgress: bars.drawn
        ? (slots) => {
            slotsSeen = slots;
            redraw();
          }
        : undefined,
    })) as (SimulateAnswer | undefined)[];
  } finally {
    bars.stop();
    ctx.interrupt.release();
  }
}
