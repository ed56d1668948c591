/**
 * The simulator worker thread (see protocol.ts). Built as `dist/sim-worker.js`
 * next to the CLI's other files.
 */
import { parentPort, workerData } from "node:worker_threads";
import {
  type Experiment,
  getTarget,
  reproduceTarget,
  rowMetrics,
  type ScenarioInput,
  simulate,
  type TargetReport,
} from "@scanlab/simulator";
import type { Answer, TaskMessage, WireError, WorkerMessage } from "./protocol.js";

const flag = (workerData as { flag: Int32Array }).flag;
const stopped = (): boolean => Atomics.load(flag, 0) === 1;
const port = parentPort!;

function wire(e: unknown): WireError {
  const err = e instanceof Error ? e : new Error(String(e));
  const branded = err as Error & { userError?: unknown; code?: unknown };
  return {
    name: err.name,
    message: err.message,
    stack: err.stack,
    userError: branded.userError === true,
    code: typeof branded.code === "string" ? branded.code : undefined,
  };
}

const SKIPPED = "\u0000skipped";

/** The target restricted to some rows: ratios and statements that need other rows are left out. */
export function restrictRows(
  exp: Experiment,
  ids: readonly string[] | undefined,
  noCalibration = false,
): { exp: Experiment; note: string | null } {
  if (ids === undefined) return { exp, note: null };
  const keep = <T extends { id: string }>(rows: T[]) => rows.filter((r) => ids.includes(r.id));
  const cal = exp.calibration;
  const calKept = cal !== undefined && ids.includes(cal.row);
  return {
    exp: {
      ...exp,
      rows: () => keep(exp.rows()),
      calibration: calKept ? { ...cal, apply: (v: number) => keep(cal.apply(v)) } : undefined,
      ratios: exp.ratios.filter((r) => ids.includes(r.numerator) && ids.includes(r.denominator)),
      statements: exp.statements.map((st) => ({
        ...st,
        check: (m) => {
          try {
            return st.check(m);
          } catch {
            return { holds: false, detail: SKIPPED };
          }
        },
      })),
    },
    note:
      cal !== undefined && !calKept && !noCalibration
        ? `--rows leaves out the calibration row ${cal.row}: rows run with the scenario's default for the unknown.`
        : null,
  };
}

function run(msg: TaskMessage): Answer {
  const t0 = performance.now();
  const p = msg.payload;
  if (p.kind === "simulate") {
    const result = simulate(p.scenario, { shouldStop: stopped });
    const interrupted = stopped();
    return {
      kind: "simulate",
      metrics: rowMetrics(result, p.scenario),
      result: p.full ? result : null,
      interrupted,
      wallMs: performance.now() - t0,
    };
  }
  const found = getTarget(p.target);
  if (found === undefined) throw new Error(`unknown target ${p.target}`);
  const { exp, note } = restrictRows(found, p.rows, p.noCalibration);
  let currentRow = "";
  let interruptedRow: string | null = null;
  let calibrationInterrupted = false;
  const report: TargetReport = reproduceTarget(exp, {
    noCalibration: p.noCalibration,
    simulate: (input: ScenarioInput) => {
      const result = simulate(p.seed === undefined ? input : { ...input, seed: p.seed }, {
        shouldStop: stopped,
      });
      if (stopped()) {
        if (currentRow.endsWith("(calibrating)")) calibrationInterrupted = true;
        else interruptedRow ??= currentRow;
      }
      return result;
    },
    onRow: (_exp, row) => {
      currentRow = row;
      const m: WorkerMessage = { type: "progress", task: msg.task, step: row };
      port.postMessage(m);
    },
    shouldStop: stopped,
  });
  report.statements = report.statements.filter((st) => st.detail !== SKIPPED);
  if (note !== null) report.notes = [note, ...report.notes];
  const complete =
    interruptedRow === null && !calibrationInterrupted && report.rows.length === exp.rows().length;
  const interrupted = stopped() && !complete;
  if (interrupted) {
    // Rows cut short by Ctrl-C hold partial figures: leave them out, as the
    // rows never started are left out. A calibration cut short is no calibration.
    report.rows = report.rows.filter((r) => r.id !== interruptedRow);
    if (calibrationInterrupted) {
      report.rows = [];
      report.calibration = null;
    }
    report.ratios = [];
    report.statements = [];
  }
  return { kind: "reproduce", report, interrupted, wallMs: performance.now() - t0 };
}

port.on("message", (msg: TaskMessage) => {
  let out: WorkerMessage;
  try {
    out = { type: "done", task: msg.task, answer: run(msg) };
  } catch (e) {
    out = { type: "error", task: msg.task, error: wire(e) };
  }
  port.postMessage(out);
});
