/**
 * Node only. Reading and writing profile files, and importing fio's JSON
 * output from a file: JSON text on disk, read through @scanlab/host's guarded
 * reader (a device, FIFO, directory or a file above the documented limit of
 * its kind is refused before it is read), checked by `parseDeviceProfile`
 * or `importFioJson`, with the file's path named in every error.
 */
import { writeFileSync } from "node:fs";
import { readInputJson } from "@scanlab/host";
import { importFioJson } from "./fio-import.js";
import type { MeasuredProfileOptions } from "./measured-profile.js";
import { parseDeviceProfile } from "./parse-profile.js";
import type { DeviceProfile, FlashProfile } from "./profile-schema.js";

/** Options of the file readers. */
export interface ProfileFileOptions {
  /** How the file is named in messages that are about the file itself (default "device profile"). */
  readonly what?: string;
}

/**
 * Reads and checks a device profile file.
 *
 * @param path the file
 * @param options how to name the file in messages about the file itself
 * @throws InputFileError (from @scanlab/host) when the file is missing, not a regular file, larger
 *   than a profile may be (1 MiB), empty or not JSON
 * @throws DeviceProfileError naming the file and the field when it is not a valid profile
 *
 * @example
 * ```ts
 * import { readDeviceProfileFile } from "@scanlab/device-profiles/node";
 * const profile = readDeviceProfileFile("profiles/my-ssd.json");
 * ```
 */
export function readDeviceProfileFile(path: string, options: ProfileFileOptions = {}): DeviceProfile {
  return parseDeviceProfile(readInputJson(path, "device-profile", options), path);
}

/**
 * Reads fio's `--output-format=json` output from a file and imports it into a
 * flash profile (see `importFioJson`).
 *
 * @param path the fio JSON file
 * @param options labels of the profile; `measuredWith` defaults to "fio <version> (<path>)"
 * @throws InputFileError (from @scanlab/host) when the file is missing, not a regular file, larger
 *   than fio JSON may be (64 MiB), empty or not JSON
 * @throws DeviceProfileError when it holds no usable read results
 *
 * @example
 * ```ts
 * import { importFioJsonFile } from "@scanlab/device-profiles/node";
 * const profile = importFioJsonFile("fio-result.json", { name: "my-disk" });
 * console.log(profile.readLatencyQd1Us, profile.randomReadIops);
 * ```
 */
export function importFioJsonFile(path: string, options: Partial<MeasuredProfileOptions> = {}): FlashProfile {
  return importFioJson(readInputJson(path, "fio-json"), options, path);
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
