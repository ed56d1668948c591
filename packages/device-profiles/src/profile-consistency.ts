/**
 * Figures that pass the schema can still contradict each other. The models
 * need them to fit together, so these checks run after the schema, with the
 * same one-sentence errors naming the field and the file:
 *
 * - flash: a small read cannot be faster than its own transfer at the
 *   sequential bandwidth (readLatencyQd1Us >= latencyReadBytes / B);
 * - flash: the IOPS figure must be reachable through the data path
 *   (randomReadIops x randomReadBlockBytes <= B);
 * - flash: Little's law: randomReadIops reads per second, each taking at least
 *   its QD1 latency, need randomReadIops x latency reads in flight, so the
 *   queue depth the datasheet quotes must be at least that. This is what
 *   catches a multi-queue aggregate quoted "at QD32" (apps/docs/src/reference/storage-device-models.md#samsung-990-pro:
 *   "1.2 M IOPS at ~50 us needs about 60 reads in flight");
 * - flash: a second random-read figure comes with its size, is for larger
 *   reads than the first, and fits through the data path as the first does;
 * - flash: a link ceiling, when given, must not be below the sequential figure;
 * - hdd: track-to-track < average seek (< full stroke when given), inner zone
 *   no faster than the outer zone;
 * - raid0: the member must satisfy the same checks.
 */
import { DeviceProfileError } from "./errors.js";
import type { DeviceProfile, FlashProfile, HddProfile } from "./profile-schema.js";
import { US_PER_S } from "./units.js";

function fail(label: string, field: string, sentence: string): never {
  throw new DeviceProfileError(
    "DEVICE_PROFILE_INCONSISTENT",
    `Device profile ${label}: field "${field}" ${sentence}.`,
    {
      field,
      source: label,
    },
  );
}

function round(x: number): string {
  return Number(x.toPrecision(4)).toString();
}

function checkFlash(p: FlashProfile, label: string, prefix: string): void {
  const bytesPerUs = p.sequentialReadBytesPerSecond / US_PER_S;
  const transferUs = p.latencyReadBytes / bytesPerUs;
  if (p.readLatencyQd1Us < transferUs) {
    fail(
      label,
      `${prefix}readLatencyQd1Us`,
      `is ${round(p.readLatencyQd1Us)} us, shorter than moving ${p.latencyReadBytes} bytes at the sequential bandwidth (${round(transferUs)} us)`,
    );
  }
  if (p.randomReadIops * p.randomReadBlockBytes > p.sequentialReadBytesPerSecond * (1 + 1e-9)) {
    fail(
      label,
      `${prefix}randomReadIops`,
      `(${round(p.randomReadIops)} x ${p.randomReadBlockBytes} bytes) moves more bytes per second than sequentialReadBytesPerSecond (${round(p.sequentialReadBytesPerSecond)})`,
    );
  }
  const latencyAtIopsBlockUs =
    p.readLatencyQd1Us + (p.randomReadBlockBytes - p.latencyReadBytes) / bytesPerUs;
  const needed = (p.randomReadIops * Math.max(latencyAtIopsBlockUs, 0)) / US_PER_S;
  if (needed > p.randomReadQueueDepth * (1 + 1e-9)) {
    fail(
      label,
      `${prefix}randomReadQueueDepth`,
      `is ${p.randomReadQueueDepth}, but by Little's law ${round(p.randomReadIops)} IOPS at ${round(latencyAtIopsBlockUs)} us per read needs at least ${Math.ceil(needed - 1e-9)} reads in flight`,
    );
  }
  if ((p.secondRandomReadIops === undefined) !== (p.secondRandomReadBlockBytes === undefined)) {
    fail(
      label,
      `${prefix}${p.secondRandomReadIops === undefined ? "secondRandomReadIops" : "secondRandomReadBlockBytes"}`,
      "is missing: secondRandomReadIops and secondRandomReadBlockBytes go together",
    );
  }
  if (p.secondRandomReadIops !== undefined && p.secondRandomReadBlockBytes !== undefined) {
    if (p.secondRandomReadBlockBytes <= p.randomReadBlockBytes) {
      fail(
        label,
        `${prefix}secondRandomReadBlockBytes`,
        `is ${p.secondRandomReadBlockBytes}, but the second random-read figure must be for reads larger than randomReadBlockBytes (${p.randomReadBlockBytes})`,
      );
    }
    if (p.secondRandomReadIops * p.secondRandomReadBlockBytes > p.sequentialReadBytesPerSecond * (1 + 1e-9)) {
      fail(
        label,
        `${prefix}secondRandomReadIops`,
        `(${round(p.secondRandomReadIops)} x ${p.secondRandomReadBlockBytes} bytes) moves more bytes per second than sequentialReadBytesPerSecond (${round(p.sequentialReadBytesPerSecond)})`,
      );
    }
  }
  if (p.linkBytesPerSecond !== undefined && p.linkBytesPerSecond < p.sequentialReadBytesPerSecond) {
    fail(
      label,
      `${prefix}sequentialReadBytesPerSecond`,
      `(${round(p.sequentialReadBytesPerSecond)}) exceeds linkBytesPerSecond (${round(p.linkBytesPerSecond)})`,
    );
  }
}

function checkHdd(p: HddProfile, label: string, prefix: string): void {
  if (p.trackToTrackSeekUs >= p.averageSeekUs) {
    fail(
      label,
      `${prefix}trackToTrackSeekUs`,
      `(${p.trackToTrackSeekUs}) must be shorter than averageSeekUs (${p.averageSeekUs})`,
    );
  }
  if (p.fullStrokeSeekUs !== undefined && p.fullStrokeSeekUs <= p.averageSeekUs) {
    fail(
      label,
      `${prefix}fullStrokeSeekUs`,
      `(${p.fullStrokeSeekUs}) must be longer than averageSeekUs (${p.averageSeekUs})`,
    );
  }
  if (p.innerZoneReadBytesPerSecond > p.outerZoneReadBytesPerSecond) {
    fail(
      label,
      `${prefix}innerZoneReadBytesPerSecond`,
      `(${round(p.innerZoneReadBytesPerSecond)}) must not exceed outerZoneReadBytesPerSecond (${round(p.outerZoneReadBytesPerSecond)})`,
    );
  }
}

/**
 * Checks that a schema-valid profile's figures fit together (see the file
 * header of `profile-consistency.ts`).
 *
 * @param profile a profile that passed the schema
 * @param label the file it came from, named in errors
 * @throws DeviceProfileError (code DEVICE_PROFILE_INCONSISTENT)
 */
export function checkProfileConsistency(profile: DeviceProfile, label = "(no file)"): void {
  switch (profile.kind) {
    case "sata-ssd":
    case "nvme":
    case "ssd":
      checkFlash(profile, label, "");
      return;
    case "hdd":
      checkHdd(profile, label, "");
      return;
    case "raid0":
      if (profile.member.kind === "hdd") checkHdd(profile.member, label, "member.");
      else checkFlash(profile.member, label, "member.");
      return;
    case "cloud-volume":
      return;
  }
}
