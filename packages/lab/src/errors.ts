/**
 * Errors a user can cause in a lab run (an unknown PostgreSQL version, a
 * profile that does not parse, a report that cannot be replayed, too little free space, a setting the lab may
 * not change): one sentence each, turned into exit code 2 by the CLI, which
 * recognises them with `ScanlabError.isInstance` (`@scanlab/core`).
 */
import { ScanlabError } from "@scanlab/core";

/** Codes of {@link LabError}. */
export type LabErrorCode =
  | "LAB_BAD_PG"
  | "LAB_NO_POSTGRES"
  | "LAB_BAD_PROFILE"
  | "LAB_NO_SPACE"
  | "LAB_NOT_PERMITTED"
  | "LAB_BAD_OPTION"
  | "LAB_NO_CELLS"
  | "LAB_BAD_REPORT";

/** A user-caused lab error: `message` is one sentence. */
export class LabError extends ScanlabError {
  /** Machine-readable code. */
  declare readonly code: LabErrorCode;
  /** @param code stable code; @param message one sentence naming what was wrong. */
  constructor(code: LabErrorCode, message: string) {
    super(message, { code });
    this.name = "LabError";
  }
}
