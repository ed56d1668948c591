/**
 * DOC: "an unknown SSD in a virtual machine", a profile class.
 *
 * The machine of Munro's 2020 FreeBSD report (postgr.es/m/CA+hUKGJ_EErDv41YycXcbMbCBkztA34+z1ts9VQH+ACRuvpxig@mail.gmail.com) is "FreeBSD on UFS on a virtual machine"; the hypervisor,
 * the virtual disk type and the backing device are not stated (apps/docs/src/reference/storage-device-models.md#the-2020-test-machines
 * ). Nothing can be read off a datasheet, so this class writes its
 * assumptions down and leaves exactly one figure to be measured or calibrated:
 *
 * 1. The guest sees one virtual disk served by an SSD-class backing store, and
 *    a queue-depth-1 stream of reads is latency-bound, as it is for every SSD
 *    in apps/docs/src/reference/storage-device-models.md ("a QD1 stream is latency-bound, not
 *    link-bound"). So one read of b bytes at QD1 takes L + (b - 4 KiB) / B,
 *    where L is the 4 KiB latency (virtual disk path + host + SSD) and B the
 *    backing store's data-path rate.
 * 2. The ceilings behind the virtual disk are an NVMe class device of the time
 *    (PCIe 3.0 x4, apps/docs/src/reference/storage-device-models.md#wd-ultrastar-dc-sn640): B = 3.0 GB/s sequential and
 *    400 000 random 4 KiB reads per second. These are the SN640 placeholders,
 *    i.e. recalled class figures, not a datasheet; override them when known.
 * 3. The one unknown is L. Give it directly (`readLatencyQd1Us`), or give the
 *    bandwidth a single QD1 stream of `qd1ReadBytes` reads achieves
 *    (`qd1ReadBytesPerSecond`, e.g. a serial scan's iostat figure with its
 *    average read size), and L follows from assumption 1:
 *        L = qd1ReadBytes / qd1ReadBytesPerSecond - (qd1ReadBytes - 4 KiB) / B.
 * 4. The queue depth that reaches the IOPS ceiling is the power of 2 above
 *    Little's law's R x L (it is not known either).
 *
 * The simulator's T1 scenario calibrates L from the serial baseline (it can
 * search `readLatencyQd1Us` until its own serial scan matches, since the OS
 * read-ahead decides how many reads are in flight), then predicts the parallel
 * runs with everything else fixed: the parallel numbers are never an input.
 */
import { DeviceProfileError } from "./errors.js";
import { parseDeviceProfile } from "./parse-profile.js";
import type { FlashProfile } from "./profile-schema.js";
import { KiB, MB_PER_S, US_PER_S } from "./units.js";

/** Class defaults (assumption 2 of `vm-ssd-class.ts`): an NVMe PCIe 3.0 x4 class backing store. */
export const VM_SSD_CLASS_DEFAULTS = Object.freeze({
  /** apps/docs/src/reference/storage-device-models.md#wd-ultrastar-dc-sn640: seq read class ~3.0-3.3 GB/s [R] placeholder (low end). */
  sequentialReadBytesPerSecond: 3000 * MB_PER_S,
  /** apps/docs/src/reference/storage-device-models.md#wd-ultrastar-dc-sn640: random 4 KiB read class "several hundred thousand" IOPS [R] placeholder. */
  randomReadIops: 400_000,
  /** Linux max_sectors_kb assumption shared by the built-ins. */
  maxIoBytes: 512 * KiB,
});

/** Options of {@link unknownVmSsdProfile}: give exactly one of `readLatencyQd1Us` and `qd1ReadBytesPerSecond`. */
export interface UnknownVmSsdOptions {
  /** The unknown itself: latency of one 4 KiB read at QD1, in microseconds. */
  readonly readLatencyQd1Us?: number;
  /** Or: bandwidth of one QD1 stream of `qd1ReadBytes` reads, in bytes per second. */
  readonly qd1ReadBytesPerSecond?: number;
  /** Read size of `qd1ReadBytesPerSecond` (default 128 KiB). */
  readonly qd1ReadBytes?: number;
  /** Backing store's sequential ceiling (default 3.0 GB/s, class assumption). */
  readonly sequentialReadBytesPerSecond?: number;
  /** Backing store's random 4 KiB IOPS ceiling (default 400 000, class assumption). */
  readonly randomReadIops?: number;
  /** Profile name (default `unknown-vm-ssd`). */
  readonly name?: string;
  /** Where the calibrating figure came from, added to `sources`. */
  readonly source?: string;
}

function badOption(message: string): DeviceProfileError {
  return new DeviceProfileError("DEVICE_PROFILE_BAD_OPTION", message);
}

/**
 * Builds an "unknown SSD in a virtual machine" profile from its one unknown
 * (see the header of `vm-ssd-class.ts` for the assumptions).
 *
 * @throws DeviceProfileError when neither or both unknowns are given, or the QD1 figure is not below the ceiling
 *
 * @example
 * ```ts
 * import { throughputAt, unknownVmSsdProfile } from "@scanlab/device-profiles";
 * // A serial scan reading 128 KiB at a time at 500 MB/s (the baseline of Munro's 2020 FreeBSD report):
 * const vm = unknownVmSsdProfile({ qd1ReadBytesPerSecond: 500e6, source: "T1 serial baseline" });
 * const qd1 = throughputAt(vm, { queueDepth: 1, requestBytes: 131072, pattern: "sequential" });
 * console.log(Math.round(qd1.bytesPerSecond / 1e6)); // 500
 * ```
 */
export function unknownVmSsdProfile(options: UnknownVmSsdOptions): FlashProfile {
  const B = options.sequentialReadBytesPerSecond ?? VM_SSD_CLASS_DEFAULTS.sequentialReadBytesPerSecond;
  const R = options.randomReadIops ?? VM_SSD_CLASS_DEFAULTS.randomReadIops;
  // The 4 KiB read datasheet latencies are quoted for (apps/docs/src/reference/storage-device-models.md#units-and-evidence-tags; builtin-profiles.ts assumptions).
  const smallBytes = 4 * KiB;
  let latencyUs: number;
  let how: string;
  if ((options.readLatencyQd1Us === undefined) === (options.qd1ReadBytesPerSecond === undefined)) {
    throw badOption("unknownVmSsdProfile needs exactly one of readLatencyQd1Us and qd1ReadBytesPerSecond.");
  }
  if (options.readLatencyQd1Us !== undefined) {
    latencyUs = options.readLatencyQd1Us;
    how = `readLatencyQd1Us = ${latencyUs} us given directly`;
  } else {
    const bw = options.qd1ReadBytesPerSecond!;
    // Default: Linux's 128 KiB read-ahead (VM_READAHEAD_PAGES, apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0), the size a QD1 stream reads in.
    const b = options.qd1ReadBytes ?? 128 * KiB;
    if (!(bw > 0) || !(b >= smallBytes)) {
      throw badOption(`qd1ReadBytesPerSecond must be > 0 and qd1ReadBytes >= 4096, got ${bw} and ${b}.`);
    }
    latencyUs = (b / bw - (b - smallBytes) / B) * US_PER_S;
    if (!(latencyUs > (smallBytes / B) * US_PER_S)) {
      throw badOption(
        `qd1ReadBytesPerSecond (${bw}) must be below the assumed sequential ceiling (${B} bytes per second).`,
      );
    }
    how = `readLatencyQd1Us = ${latencyUs.toFixed(1)} us derived from a QD1 stream of ${b}-byte reads at ${bw} bytes/s`;
  }
  const needed = (R * latencyUs) / US_PER_S;
  const queueDepth = 2 ** Math.max(0, Math.ceil(Math.log2(Math.max(1, needed))));
  return parseDeviceProfile(
    {
      kind: "ssd",
      name: options.name ?? "unknown-vm-ssd",
      title: "Unknown SSD in a virtual machine (profile class)",
      basis: "assumption",
      sources: [
        "apps/docs/src/reference/storage-device-models.md#the-2020-test-machines: FreeBSD on UFS on a virtual machine; hypervisor, virtual disk and backing device not stated",
        "apps/docs/src/reference/storage-device-models.md: a QD1 stream is latency-bound on every SSD there",
        "apps/docs/src/reference/storage-device-models.md#wd-ultrastar-dc-sn640: NVMe PCIe 3.0 x4 class ~3.0 GB/s, 'several hundred thousand' IOPS [R] placeholders (ceilings)",
        ...(options.source ? [options.source] : []),
      ],
      note:
        `Profile class (vm-ssd-class.ts): ${how}. Assumed: SSD-class backing store, QD1 latency-bound, ` +
        `ceilings ${B} bytes/s and ${R} IOPS (class placeholders unless overridden), queue depth ${queueDepth} ` +
        "= power of 2 above Little's law. No in-drive read-ahead.",
      maxIoBytes: VM_SSD_CLASS_DEFAULTS.maxIoBytes,
      readLatencyQd1Us: latencyUs,
      sequentialReadBytesPerSecond: B,
      randomReadIops: R,
      randomReadQueueDepth: queueDepth,
    },
    "unknownVmSsdProfile()",
  ) as FlashProfile;
}
