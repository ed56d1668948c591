/**
 * `scanlab lab`: run real PostgreSQL scans on the machine it runs on (a throwaway
 * cluster per version, @scanlab/lab) and print them beside the simulator's
 * prediction of the same cells. The logic lives in @scanlab/lab; this file
 * parses flags, checks output locations before anything runs, renders the
 * tables and writes the JSON and HTML files.
 *
 * `--replay FILE` predicts the runs of an earlier `--json` document again,
 * with this scanlab's simulator and, with `--profile`, another device model:
 * no PostgreSQL, no tables, seconds instead of minutes.
 *
 * Ctrl-C or SIGTERM: the lab stops at its next step, the cluster is stopped
 * and removed and read_ahead_kb restored (in @scanlab/lab's `finally`
 * blocks), the finished cells are printed and written (JSON with
 * `interrupted: true`), and the exit status is 130 or 143 (interrupt.ts).
 */
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { resolve } from "node:path";
import { readInputJson } from "@scanlab/host";
import {
  type CellResult,
  LAB_PG_MAJORS,
  LabError,
  type LabReport,
  labReportHtml,
  parseLabReport,
  replayLab,
  runLab,
  runsPhrase,
} from "@scanlab/lab";
import type { Ctx } from "../context.js";
import { progressOn, toJson } from "../context.js";
import { resolveDeviceArg } from "../device-arg.js";
import { CliError, EXIT } from "../errors.js";
import { jsonDocument } from "../json-output.js";
import { parseIntFlag, splitList } from "../options.js";
import { fixed } from "../output/format.js";
import { renderTable } from "../output/table.js";
import { checkOutputFile } from "../output-location.js";
import { DEFAULT_SCENARIO } from "../scenario-flags.js";

/** Options of `lab`. */
export interface LabFlags {
  pg?: string;
  quick?: boolean;
  runs?: string;
  cells?: string;
  profile?: string;
  workDir?: string;
  fit?: boolean;
  probe?: boolean;
  json?: string | boolean;
  report?: string;
  replay?: string;
}

/** Parses `--pg 15` or `--pg 17,18`. */
export function parsePgFlag(raw: string | undefined): number[] {
  const values = splitList(raw ?? "15", "pg");
  const out: number[] = [];
  for (const v of values) {
    const n = Number(v);
    if (!/^\d+$/.test(v) || !LAB_PG_MAJORS.includes(n)) {
      throw new CliError(
        "CLI_BAD_PG",
        `--pg ${v} is not a PostgreSQL version the lab can run: use ${LAB_PG_MAJORS.join(", ")} (comma-separated for several).`,
      );
    }
    if (!out.includes(n)) out.push(n);
  }
  return out;
}

const mib = (b: number | null | undefined) => (b === null || b === undefined ? "–" : fixed(b / 2 ** 20, 1));
const kib = (b: number | null | undefined) => (b === null || b === undefined ? "–" : fixed(b / 1024, 0));
const ratio = (r: number | null) => (r === null ? "–" : fixed(r, 2));

function cellRow(ctx: Ctx, c: CellResult): string[] {
  const m = c.measured;
  const p = c.predicted;
  const mark = (ok: boolean | null, text: string) =>
    ok === null ? text : ok ? ctx.c.green(text) : ctx.c.yellow(text);
  return [
    c.cell.role === "fit" ? ctx.c.dim(`${c.cell.id} (fit)`) : c.cell.id,
    fixed(m?.timeMs, 1),
    fixed(p?.timeMs, 1),
    mark(c.timeWithin, `${ratio(c.timeRatio)}${c.missWithinRuns === true ? "*" : ""}`),
    mib(m?.deviceBytes),
    mib(p?.deviceBytes),
    mark(c.bytesWithin, ratio(c.bytesRatio)),
    kib(m?.avgRequestBytes),
    kib(p?.avgRequestBytes),
    m === null ? "–" : `${m.sharedHitBlocks}/${m.sharedReadBlocks}`,
  ];
}

/** Prints the report as text. */
export function printLabReport(ctx: Ctx, r: LabReport): void {
  const { c } = ctx;
  ctx.out(
    c.bold("scanlab lab: measured beside predicted") +
      c.dim(
        ` (${r.quick ? "quick set, " : ""}${runsPhrase(r)}, median; device model ${r.machine.deviceLabel})`,
      ),
  );
  for (const s of r.servers) ctx.out(c.dim(`  PostgreSQL ${s.version} from ${s.bin}`));
  ctx.out(c.dim(`  time: ${r.timeSource}; cold: ${r.coldMethod}`));
  for (const p of r.deviceProbes) {
    const at = (pattern: string, q: number) =>
      p.points.find((m) => m.pattern === pattern && m.blockBytes === 8192 && m.queueDepth === q);
    const figures = [
      ["random 8 KiB QD1", at("random", 1)],
      ["QD16", at("random", 16)],
      ["sequential 8 KiB QD1", at("sequential", 1)],
    ]
      .filter((f): f is [string, NonNullable<ReturnType<typeof at>>] => f[1] !== undefined)
      .map(([label, m]) => `${label} ${Math.round(m.iops).toLocaleString("en-US")} IOPS`);
    ctx.out(
      `  Device PG${p.pg}: measured through ${p.table}'s file (${figures.join(", ")}); its cells are predicted on the queue fitted to these ${p.points.length} points, with the profile's CPU costs.`,
    );
  }
  for (const cpu of r.cpu) {
    ctx.out(
      cpu.source === "fit"
        ? `  CPU costs PG${cpu.pg}: fitted from the warm runs of ${cpu.fitCells.join(", ")}: perPageUs ${fixed(cpu.perPageUs, 2)}, perTupleUs ${fixed(cpu.perTupleUs, 4)}, bitmapTupleUs ${fixed(cpu.bitmapTupleUs ?? 0, 4)}, bufferFirstUseUs ${fixed(cpu.bufferFirstUseUs ?? 0, 2)} (those cells are not predictions).`
        : `  CPU costs PG${cpu.pg}: the simulator's documented defaults (perPageUs ${cpu.perPageUs}, perTupleUs ${cpu.perTupleUs}, bitmapTupleUs ${cpu.bitmapTupleUs ?? 0}, bufferFirstUseUs ${cpu.bufferFirstUseUs ?? 0}): no fit.`,
    );
    // A fit on one tuple density (an older report's subset, a run stopped between its fit cells) is kept, with why it is unsound.
    if (cpu.warning !== undefined) ctx.out(c.yellow(`  PG${cpu.pg}'s CPU fit is unsound: ${cpu.warning}`));
  }
  ctx.out(
    renderTable(
      ctx,
      [
        "cell",
        "meas ms",
        "pred ms",
        "pred/meas",
        "meas MiB",
        "pred MiB",
        "pred/meas",
        "meas avg KiB",
        "pred avg KiB",
        "hit/read",
      ],
      r.cells.map((cell) => cellRow(ctx, cell)),
    ),
  );
  const notes = r.cells.filter((x) => x.notes.length > 0);
  for (const n of notes) ctx.out(c.yellow(`  ${n.cell.id}: ${n.notes.join(" ")}`));
  for (const x of r.refused) ctx.out(c.yellow(`  left out ${x.id}: ${x.reason}`));
  if (r.comparisons.length > 0) {
    ctx.out("");
    ctx.out(c.bold('Comparisons (b / a time; "same" within ±5 %)'));
    ctx.out(
      renderTable(
        ctx,
        ["varied", "a", "b", "measured", "predicted", "same way"],
        r.comparisons.map((x) => [
          x.varied,
          x.a,
          x.b,
          `${x.measured} (${fixed(x.measuredRatio, 2)})`,
          `${x.predicted} (${fixed(x.predictedRatio, 2)})`,
          x.agrees ? c.green("yes") : c.yellow("no"),
        ]),
        ["left", "left", "left", "right", "right", "left"],
      ),
    );
  }
  const s = r.summary;
  ctx.out("");
  ctx.out(
    `Time within ±20 %: ${s.timeWithin} of ${s.predicted} predicted cells. Device bytes within ±10 %: ${s.bytesWithin} of ${s.bytesJudged}. Comparisons pointing the same way: ${s.agree} of ${s.comparisons}.`,
  );
  if ((s.missesWithinRuns ?? 0) > 0) {
    ctx.out(
      `* ${s.missesWithinRuns} of the ${s.predicted - s.timeWithin} misses lie between their cell's fastest and slowest run: those cells' own runs spread wider than the tolerance.`,
    );
  }
  if (r.interrupted) ctx.out(c.yellow("Interrupted: only the cells that finished all their runs are shown."));
}

/** The flags that choose what to measure, which a replay does not take. */
const MEASURING_FLAGS = [
  ["pg", "--pg"],
  ["quick", "--quick"],
  ["runs", "--runs"],
  ["cells", "--cells"],
  ["workDir", "--work-dir"],
] as const;

function deviceFlag(
  profile: string | undefined,
): { label: string; device: string | Record<string, unknown> } | null {
  if (profile === undefined) return null;
  const d = resolveDeviceArg(profile, "--profile");
  return { label: d.file === null ? d.label : `profile ${d.label} (${d.file})`, device: d.device };
}

function writeAndPrint(
  ctx: Ctx,
  flags: LabFlags,
  report: LabReport,
  jsonFile: string | null,
  reportFile: string | null,
): void {
  const doc = toJson(jsonDocument("lab", report));
  if (jsonFile !== null) writeFileSync(jsonFile, `${doc}\n`);
  if (reportFile !== null) writeFileSync(reportFile, labReportHtml(report));
  if (flags.json === true) ctx.out(doc);
  else printLabReport(ctx, report);
}

/** Runs `lab --replay FILE`: the measured runs of an earlier report, predicted again. */
function replayCommand(ctx: Ctx, flags: LabFlags, file: string): number {
  const given = MEASURING_FLAGS.filter(([key]) => flags[key] !== undefined).map(([, flag]) => flag);
  if (given.length > 0) {
    throw new CliError(
      "CLI_BAD_OPTION",
      `--replay predicts the runs of an earlier lab report again, so ${given.join(", ")} ${given.length === 1 ? "does" : "do"} not apply: leave ${given.length === 1 ? "it" : "them"} out, or run scanlab lab without --replay to measure.`,
    );
  }
  const device = deviceFlag(flags.profile);
  const jsonFile = typeof flags.json === "string" ? checkOutputFile(flags.json, "--json") : null;
  const reportFile = flags.report === undefined ? null : checkOutputFile(flags.report, "--report");
  let report: LabReport;
  try {
    const earlier = parseLabReport(readInputJson(file, "lab-report"), file);
    report = replayLab(earlier, {
      ...(device === null ? {} : { device: device.device, deviceLabel: device.label }),
      ...(flags.fit === false ? { fit: false } : {}),
      ...(flags.probe === false ? { probe: false } : {}),
    });
  } catch (e) {
    if (e instanceof LabError) throw new CliError(e.code, e.message);
    throw e;
  }
  writeAndPrint(ctx, flags, report, jsonFile, reportFile);
  return EXIT.ok;
}

/** Runs `lab`. */
export async function labCommand(ctx: Ctx, flags: LabFlags): Promise<number> {
  if (flags.replay !== undefined) return replayCommand(ctx, flags, flags.replay);
  const pgMajors = parsePgFlag(flags.pg);
  const runs = flags.runs === undefined ? undefined : parseIntFlag(flags.runs, "runs", 3, 99);
  const cellTexts = flags.cells === undefined ? null : splitList(flags.cells, "cells");
  const device = deviceFlag(flags.profile) ?? {
    label: `built-in ${DEFAULT_SCENARIO.machine.device} (the simulate default; pass --profile from scanlab calibrate)`,
    device: DEFAULT_SCENARIO.machine.device as string,
  };
  // Output files are checked before any cluster starts.
  const jsonFile = typeof flags.json === "string" ? checkOutputFile(flags.json, "--json") : null;
  const reportFile = flags.report === undefined ? null : checkOutputFile(flags.report, "--report");
  const workDir = resolve(flags.workDir ?? tmpdir());

  ctx.interrupt.catch();
  let report: LabReport;
  try {
    report = await runLab({
      pgMajors,
      quick: flags.quick === true,
      ...(runs === undefined ? {} : { runs }),
      ...(cellTexts === null ? {} : { only: (cell) => cellTexts.some((t) => cell.id.includes(t)) }),
      workDir,
      device: device.device,
      deviceLabel: device.label,
      fit: flags.fit !== false,
      probe: flags.probe !== false,
      signal: ctx.interrupt.signal,
      onProgress: (line) => {
        if (progressOn(ctx)) ctx.err(ctx.c.dim(line));
      },
    });
  } catch (e) {
    if (e instanceof LabError) throw new CliError(e.code, e.message);
    throw e;
  } finally {
    ctx.interrupt.release();
  }
  writeAndPrint(ctx, flags, report, jsonFile, reportFile);
  if (report.interrupted) return ctx.interrupt.exitCode;
  return EXIT.ok;
}
