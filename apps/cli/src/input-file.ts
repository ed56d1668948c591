/**
 * Reading the files a user names: scenario JSON, traces. Every way a file
 * can be wrong (missing, a directory, unreadable, empty, not JSON, JSON of
 * the wrong type) is one sentence naming the file and what to do.
 */
import { constants } from "node:buffer";
import { readFileSync, statSync } from "node:fs";
import { CliError } from "./errors.js";

/** Reads a text file the user named, as `what` ("scenario file", "trace"). */
export function readUserFile(path: string, what: string): string {
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT")
      throw new CliError("CLI_FILE_NOT_FOUND", `The ${what} ${path} does not exist: check the path.`);
    throw new CliError("CLI_FILE_UNREADABLE", `The ${what} ${path} cannot be read (${code ?? String(e)}).`);
  }
  if (st.isDirectory()) {
    throw new CliError("CLI_FILE_IS_DIRECTORY", `The ${what} ${path} is a directory: give a file.`);
  }
  // Read whole into one string: past Node's longest string the read fails, so say why up front.
  const tooLarge = () =>
    new CliError(
      "CLI_FILE_TOO_LARGE",
      `The ${what} ${path} is ${(st.size / 2 ** 20).toFixed(0)} MiB, more than the ${Math.floor(constants.MAX_STRING_LENGTH / 2 ** 20)} MiB scanlab reads at once: give a shorter one (e.g. only the lines you need, filtered with grep).`,
    );
  if (st.size > constants.MAX_STRING_LENGTH) throw tooLarge();
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ERR_STRING_TOO_LONG" || code === "ERR_FS_FILE_TOO_LARGE") throw tooLarge();
    throw new CliError(
      "CLI_FILE_UNREADABLE",
      `The ${what} ${path} cannot be read (${code ?? String(e)}): check its permissions.`,
    );
  }
  // A byte-order mark (Windows editors write one) is not part of the text.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === "") throw new CliError("CLI_FILE_EMPTY", `The ${what} ${path} is empty.`);
  return text;
}

/** Reads a JSON object from a file the user named. */
export function readJsonObject(path: string, what: string): Record<string, unknown> {
  const text = readUserFile(path, what);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new CliError(
      "CLI_BAD_JSON",
      `The ${what} ${path} is not valid JSON (${(e as Error).message.replace(/\s+/g, " ")}).`,
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const kind = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
    throw new CliError(
      "CLI_BAD_JSON",
      `The ${what} ${path} holds ${kind}, not a JSON object: see the README for the format.`,
    );
  }
  return value as Record<string, unknown>;
}
