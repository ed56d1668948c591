/**
 * The playground's advice Web Worker: runs `advise` of @scanlab/advisor (its
 * simulations with @scanlab/simulator, in this thread) off the page's main
 * thread, so the page stays responsive and the advice can be stopped by
 * terminating the worker. Messages: in `{ id, scenario, simBytes }`; out
 * `{ id, kind: "stage", stage, simulations }` as each stage starts, then
 * `{ id, kind: "done", advice }` or `{ id, kind: "error", message, userError }`.
 */
import { advise, runInProcess } from "@scanlab/advisor";
import type { ScenarioInput } from "@scanlab/simulator";
import { SIM_SIZE_OPTION } from "./advice-model.js";

self.onmessage = async (event: MessageEvent<{ id: number; scenario: ScenarioInput; simBytes: number }>) => {
  const { id, scenario, simBytes } = event.data;
  try {
    const advice = await advise(scenario, {
      simBytes,
      simSizeOption: SIM_SIZE_OPTION,
      run: (scenarios, stage) => {
        self.postMessage({ id, kind: "stage", stage: stage.name, simulations: scenarios.length });
        return runInProcess(scenarios, stage);
      },
    });
    self.postMessage({ id, kind: "done", advice });
  } catch (e) {
    const err = e as { message?: string; userError?: boolean };
    self.postMessage({
      id,
      kind: "error",
      message: err.message ?? String(e),
      userError: err.userError === true,
    });
  }
};
