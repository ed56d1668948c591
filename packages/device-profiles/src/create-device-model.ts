/**
 * One entry point from a profile to its model: flash profiles get the queue
 * over internal parallel units (`flash-queue.ts`), disks the seek-and-rotation
 * model (`hdd-mechanics.ts`), RAID0 arrays one member model per disk behind
 * the md stripe mapping (`raid0-stripes.ts`), cloud volumes their budgets
 * (`cloud-budget.ts`). The profile's figures are checked for consistency first
 * (`profile-consistency.ts`), so a profile built in code gets the same errors
 * as one read from a file.
 */
import { CloudVolumeModel } from "./cloud-budget.js";
import type { DeviceModel } from "./device-model.js";
import { FlashQueueModel } from "./flash-queue.js";
import { HddModel } from "./hdd-mechanics.js";
import { checkProfileConsistency } from "./profile-consistency.js";
import type { DeviceProfile } from "./profile-schema.js";
import { Raid0Model } from "./raid0-stripes.js";

/** Options of {@link createDeviceModel}. */
export interface DeviceModelOptions {
  /**
   * Accepted so callers can pass their scenario seed uniformly; the models
   * draw no random numbers (rotational position is computed from time and
   * offset), so the same reads always give the same completion times.
   */
  readonly seed?: number;
}

/**
 * Builds the model of a device from its profile.
 *
 * @param profile a parsed profile ({@link parseDeviceProfile}, {@link getBuiltinProfile}, ...)
 * @param _options see {@link DeviceModelOptions}
 * @throws DeviceProfileError when the profile's figures contradict each other
 *
 * @example
 * ```ts
 * import { createDeviceModel, getBuiltinProfile } from "@scanlab/device-profiles";
 * const raid = createDeviceModel(getBuiltinProfile("raid0-6x-intel-s3600-100gb"));
 * // A 6 MiB read-ahead: 12 chunk-sized member reads, two per drive, in parallel.
 * const done = raid.submit(0, 6 * 1048576, 0);
 * console.log(raid.readAheadKbDefault, raid.maxIoBytes, raid.stats().deviceRequests); // 6144 524288 12
 * console.log(`${done.toFixed(0)} us`);
 * ```
 */
export function createDeviceModel(profile: DeviceProfile, _options: DeviceModelOptions = {}): DeviceModel {
  checkProfileConsistency(profile, profile.name);
  switch (profile.kind) {
    case "sata-ssd":
    case "nvme":
    case "ssd":
      return new FlashQueueModel(profile);
    case "hdd":
      return new HddModel(profile);
    case "raid0":
      return new Raid0Model(profile);
    case "cloud-volume":
      return new CloudVolumeModel(profile);
  }
}
