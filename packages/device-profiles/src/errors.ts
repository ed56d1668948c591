/**
 * Errors a user of this package can cause: a bad profile file, an unknown
 * built-in name, a fio JSON file that holds no read results, a file that
 * cannot be calibrated. They follow the scanlab convention (apps/docs/src/reference/design.md#conventions
 * ): one clear sentence naming what was wrong (for a profile
 * file: the field and the file), `name` set to the class name,
 * and a stable `code`; they extend `ScanlabError` (`@scanlab/core`), so the
 * CLI recognises them with `ScanlabError.isInstance` without importing this
 * package. Programming errors (a negative byte count passed to
 * `submit`, say) throw plain `RangeError`s.
 */

import { ScanlabError } from "@scanlab/core";

/** Stable codes of {@link DeviceProfileError}; new codes may be added, existing ones never change meaning. */
export type DeviceProfileErrorCode =
  | "DEVICE_PROFILE_INVALID"
  | "DEVICE_PROFILE_INCONSISTENT"
  | "DEVICE_PROFILE_UNKNOWN"
  | "DEVICE_PROFILE_BAD_OPTION"
  | "FIO_JSON_INVALID"
  | "CALIBRATION_FAILED"
  | "CALIBRATION_EVICTION_IMPOSSIBLE";

/**
 * A user error with one sentence saying what was wrong.
 *
 * @example
 * ```ts
 * import { DeviceProfileError, parseDeviceProfile } from "@scanlab/device-profiles";
 * try {
 *   parseDeviceProfile({ kind: "tape" }, "my-tape.json");
 * } catch (e) {
 *   if (e instanceof DeviceProfileError) console.log(e.code, e.message);
 *   // DEVICE_PROFILE_INVALID Device profile my-tape.json: field "kind" must be one of ...
 * }
 * ```
 */
export class DeviceProfileError extends ScanlabError {
  /** Stable machine-readable code. */
  declare readonly code: DeviceProfileErrorCode;
  /** Dotted path of the offending field, when there is one (e.g. `member.readLatencyQd1Us`). */
  readonly field: string | undefined;
  /** The file (or other source label) the bad input came from, when known. */
  readonly source: string | undefined;

  /**
   * @param code stable code
   * @param message one sentence naming what was wrong
   * @param details the offending field and the source file, when known
   */
  constructor(
    code: DeviceProfileErrorCode,
    message: string,
    details: { field?: string; source?: string } = {},
  ) {
    super(message, { code });
    this.name = "DeviceProfileError";
    this.field = details.field;
    this.source = details.source;
  }
}
