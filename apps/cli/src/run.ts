/**
 * Running the command line: build the context, parse, run, and turn every
 * outcome into an exit code (errors.ts): commander's usage errors and any
 * scanlab package's user errors (a `ScanlabError` of kind "user") are one line on stderr
 * and exit 2, or exit 1 when branded `runtime` (a failure while running, not
 * a mistake in the command line); SIGINT and SIGTERM are 130 and 143; anything
 * else is an internal error, exit 1, with the stack under `--debug`.
 */
import { CommanderError } from "commander";
import type { CliStreams, Ctx } from "./context.js";
import { outputWidth } from "./context.js";
import { EXIT, isRuntimeFailure, isUserError, oneLine } from "./errors.js";
import { Interrupt } from "./interrupt.js";
import { colourEnabled, colours } from "./output/colour.js";
import { buildProgram, invokedCommand } from "./program.js";
import { dashedSettingNames } from "./setting-spelling.js";

/** Options of {@link runCli}. */
export interface RunOptions {
  /** Where to write (default process.stdout / process.stderr). */
  streams?: CliStreams;
  /** Environment for NO_COLOR / FORCE_COLOR and COLUMNS (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/** An AbortError (DOMException or Node's), as a measurement stopped by a signal throws it. */
function isAbort(e: unknown): boolean {
  return typeof e === "object" && e !== null && (e as { name?: unknown }).name === "AbortError";
}

/** The command name as commander reports it in an error (for the "see --help" hint). */
function commandPath(argv: readonly string[]): string {
  const names = [
    "reproduce",
    "simulate",
    "sweep",
    "worker",
    "scan",
    "calibrate",
    "lab",
    "advise",
    "profiles",
    "trace",
  ];
  const first = invokedCommand(argv);
  if (first === null || !names.includes(first)) return "scanlab";
  if (first === "trace" && argv.includes("import")) return "scanlab trace import";
  return `scanlab ${first}`;
}

/**
 * Runs `scanlab` with the given arguments (without `node` and the script) and
 * resolves with the exit code; never throws and never calls process.exit.
 *
 * @example
 * ```ts
 * import { runCli } from "scanlab";
 * const code = await runCli(["profiles", "list", "--json"]);
 * ```
 */
export async function runCli(argv: readonly string[], options: RunOptions = {}): Promise<number> {
  const streams: CliStreams = options.streams ?? { stdout: process.stdout, stderr: process.stderr };
  const env = options.env ?? process.env;
  const debug = argv.includes("--debug");
  const interrupt = new Interrupt();
  const tty = streams.stdout.isTTY === true;
  const width = outputWidth(streams.stdout, env);
  const makeCtx = (json: boolean): Ctx => ({
    streams,
    c: colours(colourEnabled(env, tty) && !json),
    tty,
    json,
    width,
    debug,
    interrupt,
    out: (line = "") => {
      streams.stdout.write(`${line}\n`);
    },
    err: (line) => {
      streams.stderr.write(`${line}\n`);
    },
  });
  const errCtx = makeCtx(false);
  let code: number = EXIT.ok;
  const program = await buildProgram(
    makeCtx,
    (c) => {
      code = c;
    },
    argv,
  );
  const configure = (cmd: typeof program) => {
    cmd.exitOverride();
    cmd.configureOutput({
      writeOut: (s) => streams.stdout.write(s),
      writeErr: (s) => streams.stderr.write(s),
      outputError: () => {},
    });
    for (const sub of cmd.commands) configure(sub as typeof program);
  };
  configure(program);
  try {
    await program.parseAsync(dashedSettingNames(argv, program), { from: "user" });
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === "commander.helpDisplayed" || e.code === "commander.version") return EXIT.ok;
      // `scanlab help` asked for help (exit 0); a bare `scanlab` or `scanlab trace` is missing its command (exit 2).
      if (e.code === "commander.help") return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
      if (e.code === "commander.executeSubCommandAsync") return EXIT.usage;
      const message = oneLine(e.message.replace(/^error:\s*/i, ""));
      errCtx.err(
        `${commandPath(argv)}: ${message}${/[.?)]$/.test(message) ? "" : "."} Run "${commandPath(argv)} --help" for the options.`,
      );
      return EXIT.usage;
    }
    if (interrupt.stopped && isAbort(e)) return interrupt.exitCode;
    if (isUserError(e)) {
      errCtx.err(`${commandPath(argv)}: ${oneLine(e.message)}`);
      if (debug && e.stack) errCtx.err(e.stack);
      return isRuntimeFailure(e) ? EXIT.failed : EXIT.usage;
    }
    const err = e instanceof Error ? e : new Error(String(e));
    errCtx.err(
      `${commandPath(argv)}: internal error: ${oneLine(err.message)}${debug ? "" : " (run with --debug for the stack trace)"}`,
    );
    if (debug && err.stack) errCtx.err(err.stack);
    return EXIT.failed;
  } finally {
    interrupt.release();
  }
}
