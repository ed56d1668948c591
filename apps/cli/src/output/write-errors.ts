/**
 * Errors writing scanlab's own output: stdout or stderr refuses a write.
 *
 * Problem. `scanlab simulate --json > /dev/full` cannot write its result.
 * Node reports a failed write on process.stdout or process.stderr as an
 * `error` event on the stream, after the write call returned; unhandled, it
 * ends the program with a raw stack trace (`Error: ENOSPC ... at writeSync`).
 *
 * Insight. A failed write is no bug of scanlab and no mistake on the command
 * line: the output went somewhere that cannot take it (a full disk, a closed
 * pipe, a revoked terminal). The user needs one sentence saying which stream
 * failed and why, and an exit status that says the run failed.
 *
 * Choices.
 * - EPIPE on stdout (`scanlab ... | head`) is a reader that has read enough,
 *   not a failure: the program ends quietly with the status it already had.
 * - Any other write error, and EPIPE on stderr, ends the program with exit
 *   status 1 (a runtime failure; 2 is kept for usage) and one sentence on
 *   stderr. When stderr is the stream that failed, the sentence is attempted
 *   with a direct write and dropped if that fails too: there is nowhere else
 *   to say it.
 * - The program ends at once (process.exit): output that cannot be written
 *   makes the rest of the run pointless, and the exit hooks (cleanup.ts)
 *   still remove scratch files and stop child processes.
 */
import { writeSync } from "node:fs";
import { EXIT } from "../errors.js";

/** The sentence for a failed write on `stream`. */
export function writeErrorSentence(stream: "stdout" | "stderr", e: NodeJS.ErrnoException): string {
  const why = e.code === undefined ? e.message : `${describeCode(e.code)} (${e.code})`;
  return `scanlab: cannot write to standard ${stream === "stdout" ? "output" : "error"}: ${why}.`;
}

function describeCode(code: string): string {
  switch (code) {
    case "ENOSPC":
      return "no space left on the device";
    case "EPIPE":
      return "the reading end was closed";
    case "EIO":
      return "input/output error";
    case "EBADF":
      return "the stream is not open for writing";
    case "EFBIG":
      return "the file is too large";
    case "EDQUOT":
      return "the disk quota is exceeded";
    default:
      return "the write failed";
  }
}

/** Installs the handlers on process.stdout and process.stderr (the executable calls it once). */
export function guardStdio(): void {
  const on = (stream: NodeJS.WriteStream, name: "stdout" | "stderr") =>
    stream.on("error", (e: NodeJS.ErrnoException) => {
      if (name === "stdout" && e.code === "EPIPE") process.exit(process.exitCode ?? EXIT.ok);
      try {
        writeSync(2, `${writeErrorSentence(name, e)}\n`);
      } catch {
        // stderr cannot take it either: the exit status alone tells.
      }
      process.exit(EXIT.failed);
    });
  on(process.stdout, "stdout");
  on(process.stderr, "stderr");
}
