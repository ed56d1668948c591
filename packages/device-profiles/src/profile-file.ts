/**
 * Node only. Reading and writing profile files: JSON text on disk, checked by
 * `parseDeviceProfile`, with the file's path named in every error.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { DeviceProfileError } from "./errors.js";
import { parseDeviceProfile } from "./parse-profile.js";
import type { DeviceProfile } from "./profile-schema.js";

/**
 * Reads and checks a device profile file.
 *
 * @throws DeviceProfileError naming the file when it cannot be read, is not JSON, or is not a valid profile
 *
 * @example
 * ```ts
 * import { readDeviceProfileFile } from "@scanlab/device-profiles/node";
 * const profile = readDeviceProfileFile("profiles/my-ssd.json");
 * ```
 */
export function readDeviceProfileFile(path: string): DeviceProfile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new DeviceProfileError(
      "DEVICE_PROFILE_INVALID",
      `Device profile ${path} cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)}).`,
      { source: path },
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new DeviceProfileError(
      "DEVICE_PROFILE_INVALID",
      `Device profile ${path} is not valid JSON (${(e as Error).message}).`,
      { source: path },
    );
  }
  return parseDeviceProfile(json, path);
}

/**
 * Writes a profile as pretty-printed JSON (the format `readDeviceProfileFile` reads).
 *
 * @example
 * ```ts
 * import { getBuiltinProfile } from "@scanlab/device-profiles";
 * import { writeDeviceProfileFile } from "@scanlab/device-profiles/node";
 * writeDeviceProfileFile("/tmp/intel-320.json", getBuiltinProfile("intel-ssd-320-120gb"));
 * ```
 */
export function writeDeviceProfileFile(path: string, profile: DeviceProfile): void {
  writeFileSync(path, `${JSON.stringify(profile, null, 2)}\n`);
}
