import { ScanlabError } from "@scanlab/core";

/**
 * Errors a user can cause: a bad scenario file, an unknown device or OS name,
 * an impossible setting. One clear sentence naming what was wrong; the CLI
 * recognises any scanlab user error with `ScanlabError.isInstance`
 * (`@scanlab/core`) and turns it into exit code 2 without a stack trace.
 */
export class ScenarioError extends ScanlabError {
  /** Dotted path of the offending field, when there is one (e.g. `queries.0.workers`); the first of several. */
  readonly field: string | undefined;
  /** Every problem found, when the error is about a scenario's fields (all are reported at once). */
  readonly problems: readonly ScenarioProblem[];

  /** @param message one sentence; @param options a stable code, the offending field, every problem. */
  constructor(
    message: string,
    options: { code?: string; field?: string; problems?: readonly ScenarioProblem[] } = {},
  ) {
    super(message, { code: options.code ?? "SCENARIO_INVALID" });
    this.name = "ScenarioError";
    this.field = options.field;
    this.problems =
      options.problems ?? (options.field === undefined ? [] : [{ field: options.field, message }]);
  }
}

/** One problem of a scenario: the dotted path of the field and what is wrong with it. */
export interface ScenarioProblem {
  /** Dotted path of the field (e.g. `queries.0.workers`). */
  readonly field: string;
  /** What is wrong, as the end of a sentence ("must be a whole number from 0 to 1024 ..."). */
  readonly message: string;
  /** A stable code more precise than SCENARIO_INVALID (SCENARIO_BAD_SIZE, SCENARIO_BAD_DURATION), when there is one. */
  readonly code?: string;
}
