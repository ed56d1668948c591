/**
 * Reading the files a user names: scenario JSON, traces. Every way a file
 * can be wrong (missing, a directory, unreadable, empty, not JSON, JSON of
 * the wrong type) is one sentence naming the file and what to do.
 */
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
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new CliError(
      "CLI_FILE_UNREADABLE",
      `The ${what} ${path} cannot be read (${code ?? String(e)}): check its permissions.`,
    );
  }
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
