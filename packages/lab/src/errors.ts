/**
 * Errors a user can cause in a lab run (an unknown PostgreSQL version, a
 * profile that does not parse, too little free space, a setting the lab may
 * not change): one sentence each, turned into exit code 2 by the CLI.
 */

/** Codes of {@link LabError}. */
export type LabErrorCode =
  | "LAB_BAD_PG"
  | "LAB_NO_POSTGRES"
  | "LAB_BAD_PROFILE"
  | "LAB_NO_SPACE"
  | "LAB_NOT_PERMITTED"
  | "LAB_BAD_OPTION";

/** A user-caused lab error: `message` is one sentence. */
export class LabError extends Error {
  /** Brand shared by every scanlab package's user errors (the CLI turns it into exit 2). */
  readonly userError = true;
  /** Machine-readable code. */
  readonly code: LabErrorCode;
  constructor(code: LabErrorCode, message: string) {
    super(message);
    this.name = "LabError";
    this.code = code;
  }
}
