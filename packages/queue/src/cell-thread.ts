/**
 * The thread a queue worker runs its cells on. A cell takes seconds of
 * synchronous simulation; on the worker's own thread it would stop the
 * event loop that renews the worker's claims on its cells, and other
 * workers would take the cell for lost. Here the worker's thread stays free.
 *
 * A cell from the queue is read like a scenario file from a user: parsed
 * data only, checked by the simulator's own schema and bounds
 * (`simulateJson`), and by its work budget unless the sweep's user waived
 * it. Nothing in a cell is run, opened or looked up: the simulator reads no
 * file and starts no process.
 */
import { parentPort } from "node:worker_threads";
import { ScanlabError } from "@scanlab/core";
import { estimateWork, overBudget, resolveScenario, rowMetrics, simulateJson } from "@scanlab/simulator";
import { cellHash, encodeMetrics } from "./cell.js";
import type { ThreadAnswer, ThreadTask } from "./thread-protocol.js";

const port = parentPort!;

function run(task: ThreadTask): ThreadAnswer {
  let resolved: ReturnType<typeof resolveScenario>;
  try {
    resolved = resolveScenario(task.scenario, "scenario");
  } catch (e) {
    if (ScanlabError.isInstance(e) && e.kind === "user")
      return { id: task.id, ok: false, invalid: true, message: `its scenario is invalid: ${e.message}` };
    throw e;
  }
  // The result is stored under this hash: a scenario that is not the one it names must not run.
  if (cellHash(task.scenario) !== task.hash)
    return { id: task.id, ok: false, invalid: true, message: "its hash is not its scenario's" };
  if (!task.overBudget) {
    const estimate = estimateWork(resolved);
    const over = Number.isFinite(estimate.steps) ? overBudget(estimate) : "steps";
    if (over !== null)
      return {
        id: task.id,
        ok: false,
        invalid: true,
        message: `its scenario is over scanlab's work budget (${over === "memory" ? "memory" : "simulation steps"}) and its sweep did not ask for --over-budget`,
      };
  }
  try {
    const result = simulateJson(task.scenario);
    return {
      id: task.id,
      ok: true,
      metrics: encodeMetrics(rowMetrics(result, task.scenario as Parameters<typeof rowMetrics>[1])),
    };
  } catch (e) {
    if (ScanlabError.isInstance(e) && e.kind === "user")
      return { id: task.id, ok: false, invalid: true, message: `its scenario is invalid: ${e.message}` };
    throw e;
  }
}

port.on("message", (task: ThreadTask) => {
  let answer: ThreadAnswer;
  try {
    answer = run(task);
  } catch (e) {
    answer = { id: task.id, ok: false, invalid: false, message: e instanceof Error ? e.message : String(e) };
  }
  port.postMessage(answer);
});
