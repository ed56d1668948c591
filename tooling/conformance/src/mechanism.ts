/**
 * The shape every row of the conformance matrix has: how to capture a
 * mechanism from a real server, how to replay the model against one captured
 * case, and how a fresh live capture must agree with the committed fixture.
 *
 * Replays return null when the model matches the case exactly (or, where the
 * server is non-deterministic, obeys the stated rule), else one sentence
 * naming the first difference. A `Mutation` is a wrong model (one constant
 * changed) that the replay must reject on at least one case of every fixture:
 * the proof that a row can fail.
 */
import type { Cluster } from "@scanlab/pg-harness";
import type { PgMechanism, PgModel } from "@scanlab/simulator";
import type { Major } from "./fixtures.js";

/** A captured case plus the key that identifies it across captures. */
export interface CaseBase {
  /** Stable name of the case (e.g. "workers=2 leader=on"), the same in every capture. */
  name: string;
}

/** One mechanism (a row of the matrix). */
export interface Mechanism<C extends CaseBase, M = unknown> {
  /** Fixture directory and row key. */
  readonly name: string;
  /** Row title in the report. */
  readonly title: string;
  /** What a fixture of this row holds and how it was captured (written into every fixture). */
  readonly about: string;
  /** The simulator's mechanism (a column of its version mapping) this row holds against the server. */
  readonly mechanism: PgMechanism;
  /** What the row observes on the server, in a few words (for the report). */
  readonly observes: string;
  /** Majors where the mechanism exists. */
  readonly versions: readonly Major[];
  /** Settings of the capture cluster for a major. */
  settings(major: Major): Record<string, string | number | boolean>;
  /** Runs every case on a fresh cluster of that major. */
  capture(pg: Cluster, major: Major): Promise<C[]>;
  /**
   * Replays the model against a case; null = agrees. `mutation` swaps in a
   * wrong constant; `model` (default: the simulator's mapping for `major`)
   * chooses which version's model runs.
   */
  replay(c: C, major: Major, mutation?: M, model?: PgModel): string | null;
  /**
   * How a fresh capture must agree with the committed one: null = agrees.
   * Deterministic mechanisms compare exactly; others state the rule.
   */
  sameAsFixture(live: C, fixture: C, major: Major): string | null;
  /** Wrong models: each must be rejected by at least one case of every fixture of the row. */
  readonly mutations: readonly { readonly name: string; readonly mutation: M }[];
}

/**
 * A replay's sentence for two sequences of calls (or events) of one case:
 * where the model's first differs from the server's, with the three before
 * and after in each, or null when they are the same.
 *
 * @param noun what one element is, e.g. "call" or "event"
 */
export function firstDifference(
  server: readonly string[],
  model: readonly string[],
  noun: string,
): string | null {
  const n = Math.max(server.length, model.length);
  for (let i = 0; i < n; i++) {
    if (server[i] !== model[i]) {
      const ctx = (xs: readonly string[]) => xs.slice(Math.max(0, i - 3), i + 4).join(" ");
      return `${noun} ${i} of ${server.length}: the server did ${server[i] ?? "nothing"}, the model ${model[i] ?? "nothing"} (server ...${ctx(server)}..., model ...${ctx(model)}...)`;
    }
  }
  return null;
}
