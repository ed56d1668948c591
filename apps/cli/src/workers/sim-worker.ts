/**
 * The simulator worker thread (see protocol.ts). Built as `dist/sim-worker.js`
 * next to the CLI's other files.
 */
import { parentPort, workerData } from "node:worker_threads";
import { ScanlabError } from "@scanlab/core";
import { rowMetrics, simulate } from "@scanlab/simulator";
import {
  type Answer,
  PROGRESS_SLOT,
  type TaskMessage,
  type WireError,
  type WorkerMessage,
} from "./protocol.js";

const flag = (workerData as { flag: Int32Array }).flag;
const stopped = (): boolean => Atomics.load(flag, 0) === 1;
const port = parentPort!;

function wire(e: unknown): WireError {
  const err = e instanceof Error ? e : new Error(String(e));
  const coded = err as Error & { code?: unknown };
  return {
    name: err.name,
    message: err.message,
    stack: err.stack,
    userError: ScanlabError.isInstance(err) && err.kind === "user",
    code: typeof coded.code === "string" ? coded.code : undefined,
  };
}

function run(msg: TaskMessage): Answer {
  const t0 = performance.now();
  const p = msg.payload;
  const slot = p.progress;
  const result = simulate(p.scenario, {
    shouldStop: stopped,
    exact: p.exact === true,
    onProgress:
      slot === undefined
        ? undefined
        : (q) => {
            slot[PROGRESS_SLOT.steps] = q.steps;
            slot[PROGRESS_SLOT.simulatedS] = q.simulatedS;
            slot[PROGRESS_SLOT.blocks] = q.blocks;
            slot[PROGRESS_SLOT.runsFinished] = q.runsFinished;
          },
  });
  const interrupted = stopped();
  return {
    kind: "simulate",
    metrics: rowMetrics(result, p.scenario),
    result: p.full ? result : null,
    interrupted,
    wallMs: performance.now() - t0,
  };
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
