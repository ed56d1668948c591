/**
 * What the playground shows of settings advice, without any UI: the
 * simulated size a visitor types, and each row of `advise` (@scanlab/advisor)
 * as the page prints it, in the formats of `scanlab advise`.
 *
 * Kept free of DOM and Vue so the browser test can run the same advice in
 * Node and compare every row the page shows.
 */
import { type Advice, MIN_SIM_BYTES } from "@scanlab/advisor";
import { formatBytes, parseBytes } from "@scanlab/simulator";

/** How the advice names the simulated size when it asks for a larger one. */
export const SIM_SIZE_OPTION = "simulated size";

/** The simulated size typed into the form ("64MB"), in bytes; throws one sentence when it is not a size or too small. */
export function parseSimSize(text: string): number {
  const bytes = parseBytes(text.trim(), "simulated size");
  if (bytes < MIN_SIM_BYTES)
    throw new Error(`The simulated size must be at least ${formatBytes(MIN_SIM_BYTES)}, got ${text.trim()}.`);
  return bytes;
}

/** One row as the page shows it. */
export interface ShownAdviceRow {
  /** The setting's `sweep --vary` name. */
  key: string;
  setting: string;
  defaultValue: string;
  recommended: string;
  /** The gain, exactly (`String(gain)`, "null" when there is none). */
  gain: string;
  /** `+12.5%`, or `-`. */
  gainText: string;
  /** `1.23 s -> 0.98 s`, or `-`. */
  timesText: string;
  why: string;
}

/** A duration in seconds with about three significant figures, as `scanlab advise` prints it. */
export function seconds(x: number | null): string {
  if (x === null || !Number.isFinite(x)) return "n/a";
  if (x >= 100) return `${x.toFixed(0)} s`;
  if (x >= 10) return `${x.toFixed(1)} s`;
  if (x >= 1) return `${x.toFixed(2)} s`;
  return `${(x * 1000).toFixed(x >= 0.1 ? 0 : 1)} ms`;
}

/** The rows of an advice, in order, as the page prints them. */
export function shownAdvice(advice: Advice): ShownAdviceRow[] {
  return advice.rows.map((r) => ({
    key: r.key,
    setting: r.setting,
    defaultValue: r.defaultValue,
    recommended: r.recommended,
    gain: String(r.gain),
    gainText: r.gain === null ? "-" : `${r.gain >= 0 ? "+" : ""}${(r.gain * 100).toFixed(1)}%`,
    timesText: r.defaultTimeS === null ? "-" : `${seconds(r.defaultTimeS)} -> ${seconds(r.recommendedTimeS)}`,
    why: r.why,
  }));
}
