/**
 * Small hand-made profiles for the tests, with round numbers so the expected
 * completion times can be worked out by hand in the test comments. Not
 * exported from the package.
 */
import { parseDeviceProfile } from "./parse-profile.js";
import type { CloudVolumeProfile, FlashProfile, HddProfile } from "./profile-schema.js";

/**
 * L = 100 us for a 4 KiB read, B = 409.6 MB/s (4 KiB moves in 10 us), R = 40 000 IOPS at QD32.
 * Derivation (flash-queue.ts): budget = 100 - 10 = 90 us; R x budget = 3.6, so N = 3 units,
 * unitBusy = 3 / 40 000 s = 75 us, fixed = 90 - 75 = 15 us.
 */
export function roundFlash(overrides: Record<string, unknown> = {}): FlashProfile {
  return parseDeviceProfile(
    {
      kind: "ssd",
      name: "round-flash",
      title: "test flash with round numbers",
      basis: "assumption",
      sources: ["test"],
      note: "",
      maxIoBytes: 1024 * 1024,
      readLatencyQd1Us: 100,
      sequentialReadBytesPerSecond: 409.6e6,
      randomReadIops: 40_000,
      randomReadQueueDepth: 32,
      ...overrides,
    },
    "round-flash (test)",
  ) as FlashProfile;
}

/** A gp3-like volume with a burst bucket: 100 IOPS baseline, 3 000 IOPS burst, 1 000 credits. */
export function burstingVolume(): CloudVolumeProfile {
  return parseDeviceProfile(
    {
      kind: "cloud-volume",
      name: "bursting-volume",
      title: "test volume with IOPS burst credits",
      basis: "assumption",
      sources: ["test"],
      note: "",
      maxIoBytes: 262144,
      readLatencyUs: 1000,
      iopsLimit: 100,
      throughputLimitBytesPerSecond: 1e12,
      ioCountingUnitBytes: 262144,
      mergeSequentialIos: false,
      burst: { iopsLimit: 3000, ioCredits: 1000 },
    },
    "bursting-volume (test)",
  ) as CloudVolumeProfile;
}

/** The built-in 7200 rpm disk with another look-ahead size. */
export function hddWithLookAhead(base: HddProfile, lookAheadBytes: number): HddProfile {
  return { ...base, name: `${base.name}-la${lookAheadBytes}`, lookAheadBytes };
}
