/**
 * Devices from a scenario: the profile its `machine.device` names (a built-in
 * name or an inline profile, @scanlab/device-profiles), and the sequential
 * rate the work estimate plans a scan's length with.
 */
import {
  type DeviceProfile,
  getBuiltinProfile,
  parseDeviceProfile,
  throughputAt,
} from "@scanlab/device-profiles";

/** A device profile from a scenario's `machine.device` (a built-in name or an inline profile). */
export function resolveDeviceProfile(device: string | Record<string, unknown>): DeviceProfile {
  if (typeof device === "string") return getBuiltinProfile(device);
  return parseDeviceProfile(device, "scenario machine.device");
}

const sequentialRates = new Map<string, number>();

/**
 * A device's deep-queue sequential read rate in bytes per second (QD32,
 * 128 KiB reads: the datasheets' convention), from a short closed-loop run of
 * its model; memoized per device. For estimates of a scan's length
 * (loop/work-estimate.ts), not for simulated figures.
 */
export function deviceSequentialBytesPerS(device: string | Record<string, unknown>): number {
  const key = typeof device === "string" ? device : JSON.stringify(device);
  let rate = sequentialRates.get(key);
  if (rate === undefined) {
    rate = throughputAt(resolveDeviceProfile(device), {
      queueDepth: 32,
      requestBytes: 128 * 1024,
      pattern: "sequential",
    }).bytesPerSecond;
    // A memory bound of ours (a sweep names a handful of devices), not a model figure.
    if (sequentialRates.size > 64) sequentialRates.clear();
    sequentialRates.set(key, rate);
  }
  return rate;
}
