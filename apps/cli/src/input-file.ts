/**
 * Reading the files a user names: scenario JSON, traces. Every read goes
 * through @scanlab/host's guarded reader, so a device, FIFO, socket or
 * directory is refused without being read, and a file above the documented
 * limit of its kind before it is read; every way a file can be wrong
 * (missing, unreadable, empty, not JSON, JSON of the wrong type) is one
 * sentence naming the file and what to do.
 */
import { INPUT_LIMITS, type InputKind, readInputJson, readInputText } from "@scanlab/host";
import { CliError } from "./errors.js";

/** Reads a text file the user named (a trace), with the guarded reader's checks for its kind. */
export function readUserFile(path: string, kind: InputKind): string {
  return readInputText(path, kind);
}

/** Reads a JSON object from a file the user named (a scenario file). */
export function readJsonObject(path: string, kind: InputKind): Record<string, unknown> {
  const value = readInputJson(path, kind);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const kindOf = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
    throw new CliError(
      "CLI_BAD_JSON",
      `The ${INPUT_LIMITS[kind].noun} ${path} holds ${kindOf}, not a JSON object: see the README for the format.`,
    );
  }
  return value as Record<string, unknown>;
}
