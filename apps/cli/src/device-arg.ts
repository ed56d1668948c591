/**
 * `--device NAME|FILE`: a built-in profile of @scanlab/device-profiles by
 * name, or a profile file (what `scanlab calibrate --out` writes, or
 * `scanlab profiles show NAME --json` prints).
 */
import { lstatSync } from "node:fs";
import { type DeviceProfile, getBuiltinProfile } from "@scanlab/device-profiles";
import { readDeviceProfileFile } from "@scanlab/device-profiles/node";
import { CliError } from "./errors.js";

/**
 * Whether something is at the path, a symbolic link included (existsSync says
 * no for a link loop or a dangling link; the guarded reader then says which).
 */
function present(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** A resolved `--device` value. */
export interface DeviceArg {
  /** The built-in name, or the profile's name from the file. */
  label: string;
  /** What a scenario's `machine.device` takes: the built-in name, or the file's profile inline. */
  device: string | Record<string, unknown>;
  /** The profile itself. */
  profile: DeviceProfile;
  /** The file it came from, or null for a built-in. */
  file: string | null;
}

/**
 * Resolves a `--device` value (a built-in name or a profile file); `what`
 * names it in errors (default `--device`; `profiles show` for its argument).
 */
export function resolveDeviceArg(raw: string, what = "--device"): DeviceArg {
  const value = raw.trim();
  if (value === "")
    throw new CliError("CLI_BAD_DEVICE", `${what} is empty: give a built-in profile name or a profile file.`);
  let builtin: DeviceProfile | undefined;
  try {
    builtin = getBuiltinProfile(value);
  } catch {
    builtin = undefined;
  }
  if (builtin !== undefined) return { label: value, device: value, profile: builtin, file: null };
  if (present(value) || value.includes("/") || value.endsWith(".json")) {
    if (!present(value)) {
      throw new CliError(
        "CLI_FILE_NOT_FOUND",
        `${what} file ${value} does not exist: give a built-in profile name (scanlab profiles list) or a profile file (scanlab calibrate --out).`,
      );
    }
    const profile = readDeviceProfileFile(value, {
      what: what === "--device" ? "--device file" : "profile file",
    });
    return {
      label: profile.name,
      device: JSON.parse(JSON.stringify(profile)) as Record<string, unknown>,
      profile,
      file: value,
    };
  }
  throw new CliError(
    "CLI_UNKNOWN_DEVICE",
    `${what} "${value}" is neither a built-in profile nor a file: run "scanlab profiles list" for the names, or give a profile file.`,
  );
}
