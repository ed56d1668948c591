/**
 * Errors a user can cause: a bad scenario file, an unknown device or OS name,
 * an impossible setting. One clear sentence naming what was wrong; the CLI
 * recognises any scanlab user error by its `userError` brand and turns it into
 * exit code 2 without a stack trace.
 */
export class ScenarioError extends Error {
  /** Brand shared by every scanlab package's user errors. */
  readonly userError = true;
  /** Stable machine-readable code. */
  readonly code: string;
  /** Dotted path of the offending field, when there is one (e.g. `queries.0.workers`). */
  readonly field: string | undefined;

  /** @param message one sentence; @param options a stable code and the offending field. */
  constructor(message: string, options: { code?: string; field?: string } = {}) {
    super(message);
    this.name = "ScenarioError";
    this.code = options.code ?? "SCENARIO_INVALID";
    this.field = options.field;
  }
}
