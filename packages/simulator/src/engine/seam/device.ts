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
import type { CpuCosts } from "../pg/cpu-costs.js";

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

/**
 * The CPU costs a device profile file carries (`cpu`: what `scanlab calibrate`
 * measured on the machine that holds the device) under a scenario's own
 * `machine.cpu`: the scenario's figures win, the profile's fill in
 * `readSyscallUs`, `copyBytesPerUs`, `fillUsPerPage`, `wakeUpUs` and `fadviseUs`, the defaults of cpu-costs.ts
 * the rest.
 */
export function machineCpuOverrides(
  device: string | Record<string, unknown>,
  cpu: Partial<CpuCosts> | undefined,
): Partial<CpuCosts> {
  const out: Partial<CpuCosts> = {};
  const measured = typeof device === "string" ? undefined : resolveDeviceProfile(device).cpu;
  if (measured !== undefined) {
    out.readSyscallUs = measured.readSyscallUs;
    out.copyBytesPerUs = measured.copyBytesPerUs;
    if (measured.fillUsPerPage !== undefined) out.fillUsPerPage = measured.fillUsPerPage;
    if (measured.wakeUpUs !== undefined) out.wakeUpUs = measured.wakeUpUs;
    if (measured.fadviseUs !== undefined) out.fadviseUs = measured.fadviseUs;
  }
  for (const [k, v] of Object.entries(cpu ?? {}))
    if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/**
 * The CPU time of one posix_fadvise call of a plain-file reader
 * (pg/file-reader-participant.ts): the scenario's `machine.cpu.fadviseUs`
 * when it sets one; else, when the device profile carries what `scanlab
 * calibrate` measured, its `fadviseUs`, or failing that its per-read
 * system-call cost (`readSyscallUs`: the system call and the page-cache
 * lookup, which a WILLNEED call makes too; the page allocation and bio
 * submission it adds for an absent page are not in it); else `fallbackUs`
 * (cpu-costs.ts's `fadviseUs` default).
 */
export function fileAdviceCallUs(
  device: string | Record<string, unknown>,
  cpu: Partial<CpuCosts> | undefined,
  fallbackUs: number,
): number {
  if (cpu?.fadviseUs !== undefined) return cpu.fadviseUs;
  const measured = typeof device === "string" ? undefined : resolveDeviceProfile(device).cpu;
  return measured !== undefined ? (measured.fadviseUs ?? measured.readSyscallUs) : fallbackUs;
}
