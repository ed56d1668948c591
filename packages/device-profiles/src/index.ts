/**
 * @packageDocumentation
 * How long an I/O takes: storage device profiles from datasheets, a queueing
 * device model, fio import and calibration.
 *
 * - {@link parseDeviceProfile} reads a profile file (units in every field name);
 * - {@link builtinProfiles} / {@link getBuiltinProfile}: devices of the published
 *   experiments, built from `apps/docs/src/reference/storage-device-models.md` only, each with its sources;
 * - {@link createDeviceModel}: `submit(offsetBytes, bytes, nowUs)` returns the
 *   completion time; flash queue, disk mechanics, md RAID0, cloud budgets;
 * - {@link throughputAt}: the model's IOPS and bandwidth at a queue depth;
 * - {@link importFioJson}: a profile from fio's JSON output; `calibrate()` in
 *   the `./node` entry measures a real device.
 *
 * The main entry runs in browsers (no Node built-ins).
 */

/** The package name, for diagnostics. */
export const PACKAGE_NAME = "@scanlab/device-profiles";

export { parseFioSize } from "@scanlab/core";
export { builtinProfiles, getBuiltinProfile, type Raid0Options, raid0Of } from "./builtin-profiles.js";
export { CloudVolumeModel, countedIos } from "./cloud-budget.js";
export { createDeviceModel, type DeviceModelOptions } from "./create-device-model.js";
export {
  type DeviceModel,
  type DeviceStats,
  LINUX_DEFAULT_READ_AHEAD_KB,
  linuxReadAheadKb,
} from "./device-model.js";
export { DeviceProfileError, type DeviceProfileErrorCode } from "./errors.js";
export { fioReadMeasurements, importFioJson } from "./fio-import.js";
export {
  controllerReadAheadOf,
  FlashQueueModel,
  type FlashQueueParameters,
  flashQueueParameters,
  SATA_COMMAND_US,
} from "./flash-queue.js";
export { type HddMechanics, HddModel, hddMechanics, seekUs } from "./hdd-mechanics.js";
export { type MeasuredProfileOptions, profileFromMeasurements } from "./measured-profile.js";
export { parseDeviceProfile } from "./parse-profile.js";
export { checkProfileConsistency } from "./profile-consistency.js";
export {
  type BlockDeviceFields,
  type CloudVolumeProfile,
  type CloudVolumeProfileInput,
  type ControllerReadAhead,
  type DeviceKind,
  type DeviceProfile,
  type DeviceProfileInput,
  deviceKinds,
  deviceProfileSchema,
  type FlashProfile,
  type FlashProfileInput,
  type FlashQueueModelFields,
  flashKinds,
  type HddProfile,
  type HddProfileInput,
  isFlashProfile,
  type Loosen,
  type MachineCpuCosts,
  type ProfileCommon,
  profileBases,
  type Raid0Profile,
  type Raid0ProfileInput,
  type RaidMemberProfile,
  type ReadMeasurement,
  SATA_CONTROLLER_READ_AHEAD,
} from "./profile-schema.js";
export {
  fitFlashQueue,
  type ModelComparison,
  modelAtPoints,
  type QueueFit,
  UNIT_CANDIDATES,
} from "./queue-fit.js";
export { Raid0Model, raid0Location, type StripeLocation } from "./raid0-stripes.js";
export { type ThroughputResult, type ThroughputWorkload, throughputAt } from "./throughput.js";
export { GiB, KiB, MB_PER_S, MiB, US_PER_S } from "./units.js";
export { type UnknownVmSsdOptions, unknownVmSsdProfile, VM_SSD_CLASS_DEFAULTS } from "./vm-ssd-class.js";
