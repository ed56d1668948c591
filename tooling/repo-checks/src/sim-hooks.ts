/**
 * Simulator hooks stay off the main entries.
 *
 * A simulator that renumbers a table under running scans (the warp) needs
 * hooks no program modelling a real table should see: renumbering, fast
 * forwarding. They live on each model package's `./sim` subpath, and the
 * objects behind the main entries carry them under symbol keys only. This
 * rule lists every name a main entry exposes in that vocabulary: exported
 * names, string-keyed members of exported classes (prototype chain and
 * statics), and of sample objects the entry's factories return.
 */

/** Names of the renumbering vocabulary (the current verbs and the ones they replaced). */
export const SIM_HOOK_NAME =
  /^(?:renumber|relabel|relocate|rebase|rename(?:Files|OpenFile)|withoutBlocks|fastForward|cutStretch|restoreStretch)/;

function members(value: object, label: string, out: string[]): void {
  for (let p: object | null = value; p !== null && p !== Object.prototype && p !== Function.prototype; ) {
    for (const key of Object.getOwnPropertyNames(p)) if (SIM_HOOK_NAME.test(key)) out.push(`${label}.${key}`);
    p = Object.getPrototypeOf(p) as object | null;
  }
}

/**
 * Where a main entry exposes simulator hooks: `entry` is the module's
 * exports, `samples` objects its factories made (labelled).
 */
export function simHookLeaks(entry: Record<string, unknown>, samples: Record<string, object> = {}): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(entry)) {
    if (SIM_HOOK_NAME.test(name)) out.push(name);
    if (typeof value === "function") {
      members(value, name, out);
      if (value.prototype !== undefined) members(value.prototype as object, `${name}.prototype`, out);
    }
  }
  for (const [label, value] of Object.entries(samples)) members(value, label, out);
  return out;
}
