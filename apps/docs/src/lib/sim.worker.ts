/**
 * The playground's Web Worker: runs @scanlab/simulator off the page's main
 * thread, so the page stays responsive and a run can be stopped by
 * terminating the worker. Messages: in `{ id, scenario }`, out
 * `{ id, ok: true, result }` or `{ id, ok: false, message, userError }`.
 */
import { simulateJson } from "@scanlab/simulator";

self.onmessage = (event: MessageEvent<{ id: number; scenario: unknown }>) => {
  const { id, scenario } = event.data;
  try {
    const result = simulateJson(scenario);
    self.postMessage({ id, ok: true, result });
  } catch (e) {
    const err = e as { message?: string; userError?: boolean };
    self.postMessage({ id, ok: false, message: err.message ?? String(e), userError: err.userError === true });
  }
};
