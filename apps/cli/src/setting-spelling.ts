/**
 * PostgreSQL's spelling of a setting on the command line.
 *
 * A DBA types settings as postgresql.conf and SHOW name them, with
 * underscores (`--effective_io_concurrency 16`, `--shared_buffers=1GB`);
 * scanlab's flags use dashes. Before parsing, every `--name_with_underscores`
 * whose dashed form is an option of the program is rewritten to that form.
 * A name that is no option either way is left as typed, so the error quotes
 * what the user wrote. Values are never touched, and nothing after `--` is.
 */
import type { Command } from "commander";

/** Every long option of a command and its subcommands (`--shared-buffers`). */
function longOptions(cmd: Command, into = new Set<string>()): Set<string> {
  for (const o of cmd.options) if (o.long !== undefined) into.add(o.long);
  for (const sub of cmd.commands) longOptions(sub, into);
  return into;
}

/**
 * `argv` with every option written in PostgreSQL's underscore spelling
 * rewritten to the program's dashed one.
 *
 * @example
 * ```ts
 * dashedSettingNames(["simulate", "--shared_buffers=1GB"], program); // ["simulate", "--shared-buffers=1GB"]
 * ```
 */
export function dashedSettingNames(argv: readonly string[], program: Command): string[] {
  const known = longOptions(program);
  const out: string[] = [];
  let options = true;
  for (const arg of argv) {
    if (arg === "--") options = false;
    if (!options || !arg.startsWith("--") || !arg.includes("_")) {
      out.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq < 0 ? arg : arg.slice(0, eq);
    const dashed = `--${name.slice(2).replace(/_/g, "-")}`;
    out.push(known.has(dashed) ? dashed + (eq < 0 ? "" : arg.slice(eq)) : arg);
  }
  return out;
}
