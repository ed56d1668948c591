/**
 * What every command gets: where to write, whether colour and progress bars
 * are on, whether the output is JSON, and the Ctrl-C state.
 */

import type { Interrupt } from "./interrupt.js";
import type { Colours } from "./output/colour.js";

/** Output streams a command writes to (process.stdout / stderr, or a test's). */
export interface CliStreams {
  /** Where results go. */
  stdout: NodeJS.WritableStream & TerminalInfo;
  /** Where errors and progress go. */
  stderr: NodeJS.WritableStream & TerminalInfo;
}

/** What the CLI asks of a stream to decide on colour, progress bars and table width. */
export interface TerminalInfo {
  /** True when the stream is a terminal. */
  isTTY?: boolean;
  /** Terminal width in characters, when known. */
  columns?: number;
}

/** The per-invocation context of a command. */
export interface Ctx {
  streams: CliStreams;
  /** Colour functions (identity when colour is off). */
  c: Colours;
  /** stdout is a terminal: progress bars may be drawn (on stderr), unless --json. */
  tty: boolean;
  /** --json: one JSON document on stdout, nothing else. */
  json: boolean;
  /** Columns that tables and long lines are fitted to (see {@link outputWidth}). */
  width: number;
  /** --debug: stack traces on errors. */
  debug: boolean;
  /** Ctrl-C state for commands that stop cleanly. */
  interrupt: Interrupt;
  /** Writes a line to stdout. */
  out(line?: string): void;
  /** Writes a line to stderr. */
  err(line: string): void;
}

/** Progress bars are drawn only on a terminal and never with --json. */
export function progressOn(ctx: Ctx): boolean {
  return ctx.tty && !ctx.json && ctx.streams.stderr.isTTY === true;
}

/**
 * The width text output is fitted to: the terminal's columns when stdout is a
 * terminal, else the `COLUMNS` environment variable when it is a positive
 * integer, else 80.
 */
export function outputWidth(stdout: TerminalInfo, env: NodeJS.ProcessEnv): number {
  if (stdout.isTTY === true && stdout.columns !== undefined && stdout.columns > 0) return stdout.columns;
  const columns = env.COLUMNS?.trim() ?? "";
  if (/^\d+$/.test(columns) && Number(columns) > 0) return Number(columns);
  return 80;
}

/** JSON with NaN and infinities as null (JSON has no such numbers), bigints as strings, typed arrays as arrays. */
export function toJson(value: unknown): string {
  return JSON.stringify(
    value,
    (_k, v) => {
      if (typeof v === "number" && !Number.isFinite(v)) return null;
      if (typeof v === "bigint") return v.toString();
      if (ArrayBuffer.isView(v) && !(v instanceof DataView))
        return Array.from(v as unknown as ArrayLike<number>);
      return v;
    },
    2,
  );
}
