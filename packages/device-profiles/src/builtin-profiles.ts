/**
 * The built-in profiles, from datasheet figures only.
 *
 * Every figure below is a row of `apps/docs/src/reference/storage-device-models.md` (cited in `sources` as
 * "apps/docs/src/reference/storage-device-models.md <section>: <row> [tag] <document>"), or an assumption written in
 * the profile's `note`. None is fitted to a benchmark result: if the simulation
 * of a published experiment misses its numbers with these profiles, the gap is
 * reported, not hidden (apps/docs/src/reference/design.md#fidelity-rules).
 *
 * Assumptions shared by all the profiles (not in apps/docs/src/reference/storage-device-models.md):
 * - `maxIoBytes` 512 KiB: Linux's `max_sectors_kb` depends on the kernel and
 *   the driver (512 or 1280 KiB are common); reads above it are split. The md
 *   RAID0 array's own limit is its chunk (apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0).
 * - datasheet latencies quoted without a size are taken as 4 KiB reads (the
 *   vendors' usual latency test size), and sequential figures as 128 KiB reads.
 *
 * The "unknown SSD in a virtual machine" of Munro's 2020 FreeBSD report (postgr.es/m/CA+hUKGJ_EErDv41YycXcbMbCBkztA34+z1ts9VQH+ACRuvpxig@mail.gmail.com) is a profile *class*, not
 * a built-in: nothing is known about it, so `unknownVmSsdProfile()` builds one
 * from a single measured figure (`vm-ssd-class.ts`).
 */
import { DeviceProfileError } from "./errors.js";
import { parseDeviceProfile } from "./parse-profile.js";
import type { DeviceProfile, DeviceProfileInput, FlashProfile, HddProfile } from "./profile-schema.js";
import { KiB, MB_PER_S, MiB } from "./units.js";

const LINUX_MAX_IO =
  "maxIoBytes 512 KiB is an assumption (Linux max_sectors_kb, not in apps/docs/src/reference/storage-device-models.md).";

const intelSsd320: DeviceProfileInput = {
  kind: "sata-ssd",
  name: "intel-ssd-320-120gb",
  title: "Intel SSD 320 Series 120 GB (SATA 3 Gb/s, 25 nm MLC)",
  basis: "datasheet",
  sources: [
    "apps/docs/src/reference/storage-device-models.md#intel-ssd-320: latency 'average sequential' read 75 us (typ) [D] Intel 325152-001US (https://pdf.datasheet.directory/ac90b190/intel.com/SSDSA2CW080G3K5.html)",
    "apps/docs/src/reference/storage-device-models.md#intel-ssd-320: sustained seq read, series max (Iometer QD32) 270 MB/s [D] Intel 325152-001US",
    "apps/docs/src/reference/storage-device-models.md#intel-ssd-320: random 4 KB read, 120 GB (QD32) 38 000 IOPS [S] AnandTech 'The Intel SSD 320 Review' 2011-03-28",
    "apps/docs/src/reference/storage-device-models.md#intel-ssd-320: link payload ceiling 300 MB/s [D] Intel support note CS-009260",
    "apps/docs/src/reference/storage-device-models.md#intel-ssd-320: user capacity, 120 GB model, 111 GiB [S] AnandTech",
  ],
  note:
    "The 75 us latency is the datasheet's 'average sequential' read latency, taken as a 4 KiB read at QD1 " +
    "(the size is not stated). Sequential read is the series maximum (270 MB/s); no 120 GB-specific read figure " +
    "was retrieved. Random IOPS is the 120 GB model's 38 000 (secondary source) rather than the series maximum " +
    "39 500. By Little's law 38 000 IOPS at ~75 us needs only ~3 reads in flight: the model has 2 internal units " +
    "(flash-queue.ts), whatever the 10 NAND channels. No second random-read size is quoted: the per-command time " +
    "is the SATA class value (SATA_COMMAND_US, flash-queue.ts). In-drive read-ahead is not documented " +
    "(apps/docs/src/reference/storage-device-models.md#intel-ssd-320): the sata-ssd class assumption " +
    "(SATA_CONTROLLER_READ_AHEAD, flash-queue.ts). " +
    LINUX_MAX_IO,
  maxIoBytes: 512 * KiB,
  capacityBytes: 111 * 1024 * MiB,
  readLatencyQd1Us: 75,
  latencyReadBytes: 4 * KiB,
  sequentialReadBytesPerSecond: 270 * MB_PER_S,
  sequentialReadBlockBytes: 128 * KiB,
  randomReadIops: 38_000,
  randomReadBlockBytes: 4 * KiB,
  randomReadQueueDepth: 32,
  linkBytesPerSecond: 300 * MB_PER_S,
};

const intelDcS3700: DeviceProfileInput = {
  kind: "sata-ssd",
  name: "intel-dc-s3700-100gb",
  title: "Intel DC S3700 100 GB (SATA 6 Gb/s, 25 nm HET MLC)",
  basis: "datasheet",
  sources: [
    "apps/docs/src/reference/storage-device-models.md#intel-dc-s3700-and-s3610: DC S3700 latency 'average sequential' read 50 us (typ) [D] S3700 product spec (docslib.org/doc/12283368)",
    "apps/docs/src/reference/storage-device-models.md#intel-dc-s3700-and-s3610: DC S3700 seq read, series max 500 MB/s [D] S3700 product spec",
    "apps/docs/src/reference/storage-device-models.md#intel-dc-s3700-and-s3610: DC S3700 random 4 KB read, QD32, full LBA span 75 000 IOPS [D] S3700 product spec",
    "apps/docs/src/reference/storage-device-models.md#intel-dc-s3700-and-s3610: DC S3700 random 8 KB read, QD32 47 500 IOPS [D] S3700 product spec (https://docslib.org/doc/12283368)",
    "apps/docs/src/reference/storage-device-models.md#intel-dc-s3700-and-s3610: DC S3700 100 GB = SSDSC2BA100G3 [D]; link payload ceiling ~600 MB/s [I] (6 Gb/s, 8b/10b)",
  ],
  note:
    "Series-maximum read figures (no 100 GB-specific read figure was retrieved). The 50 us latency is taken as a " +
    "4 KiB read at QD1. The datasheet's random 8 KB read (47 500 IOPS at QD32) sets the per-command time " +
    "(10^6 / 47 500 - 8192 / 500 = 4.67 us, flash-queue.ts). In-drive read-ahead is not specified: the sata-ssd " +
    "class assumption (SATA_CONTROLLER_READ_AHEAD, flash-queue.ts). " +
    LINUX_MAX_IO,
  maxIoBytes: 512 * KiB,
  capacityBytes: 100_000_000_000,
  readLatencyQd1Us: 50,
  sequentialReadBytesPerSecond: 500 * MB_PER_S,
  randomReadIops: 75_000,
  randomReadQueueDepth: 32,
  secondRandomReadIops: 47_500,
  secondRandomReadBlockBytes: 8 * KiB,
  linkBytesPerSecond: 600 * MB_PER_S,
};

const intelDcS3610: DeviceProfileInput = {
  kind: "sata-ssd",
  name: "intel-dc-s3610-100gb",
  title: "Intel DC S3610 100 GB (SATA 6 Gb/s, 20 nm HET MLC)",
  basis: "datasheet",
  sources: [
    "apps/docs/src/reference/storage-device-models.md#intel-dc-s3700-and-s3610: DC S3610 latency 'average sequential' read 55 us (typ) [D] S3610 spec 331342-005US",
    "apps/docs/src/reference/storage-device-models.md#intel-dc-s3700-and-s3610: DC S3610 seq read, series max 550 MB/s [D] S3610 spec 331342-005US",
    "apps/docs/src/reference/storage-device-models.md#intel-dc-s3700-and-s3610: DC S3610 random 4 KB read, QD32, full LBA span 84 000 IOPS [D] S3610 spec 331342-005US",
    "apps/docs/src/reference/storage-device-models.md#intel-dc-s3700-and-s3610: DC S3610 random 8 KB read, QD32 52 000 IOPS [D] S3610 spec 331342-005US (manualmachine.com mirror; no URL recorded)",
    "apps/docs/src/reference/storage-device-models.md#intel-dc-s3700-and-s3610: DC S3610 100 GB = SSDSC2BX100G401 [R]; link payload ceiling ~600 MB/s [I]",
  ],
  note:
    "Series-maximum read figures; the 100 GB model's existence is recalled [R], not re-read. The 55 us latency " +
    "is taken as a 4 KiB read at QD1. The random 8 KB read (52 000 IOPS at QD32) sets the per-command time " +
    "(10^6 / 52 000 - 8192 / 550 = 4.34 us, flash-queue.ts). In-drive read-ahead is not specified: the sata-ssd " +
    "class assumption (SATA_CONTROLLER_READ_AHEAD, flash-queue.ts). " +
    LINUX_MAX_IO,
  maxIoBytes: 512 * KiB,
  capacityBytes: 100_000_000_000,
  readLatencyQd1Us: 55,
  sequentialReadBytesPerSecond: 550 * MB_PER_S,
  randomReadIops: 84_000,
  randomReadQueueDepth: 32,
  secondRandomReadIops: 52_000,
  secondRandomReadBlockBytes: 8 * KiB,
  linkBytesPerSecond: 600 * MB_PER_S,
};

const raid0S3600: DeviceProfileInput = {
  kind: "raid0",
  name: "raid0-6x-intel-s3600-100gb",
  title: "Linux md RAID0 of 6 x 'Intel S3600 100 GB' (modelled as DC S3700 100 GB), 512 KiB chunks",
  basis: "datasheet",
  sources: [
    "apps/docs/src/reference/experiments.md#t7-effective-io-concurrency-on-sata-ssds: 'SSD RAID' = 6 x Intel S3600 100 GB SATA in RAID0 [S] Vondra's 2022 benchmark (pgsql-hackers, “Re: effective_io_concurrency and NVMe devices”)",
    "apps/docs/src/reference/storage-device-models.md#intel-dc-s3700-and-s3610: identity [I]: no SATA 'DC S3600' exists; candidates DC S3700 (100 GB = SSDSC2BA100G3) and DC S3610",
    "apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0: md chunk default (mdadm >= 3.1) 512 KiB [K] mdadm.h DEFAULT_CHUNK",
    "apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0: io_opt = chunk x raid_disks, max bio to a member <= 1 chunk [K] drivers/md/raid0.c",
    "apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0: read_ahead_kb = max(2 x io_opt, 128 KiB) = 6144 KiB [K] block layer (v5.9+) and raid0_run()",
  ],
  note:
    "IDENTITY UNCERTAIN: Intel made no SATA 'DC S3600'. Members are modelled as the DC S3700 100 GB, because its " +
    "100 GB model is confirmed by a vendor document, while the DC S3610's 100 GB model is only recalled; the " +
    "figures differ by about 10 % (500 vs 550 MB/s, 75 000 vs 84 000 IOPS), and the S3610 member is available " +
    "as 'intel-dc-s3610-100gb'. The message says only 'in RAID0': Linux md with mdadm's default 512 KiB chunk is " +
    "assumed (older mdadm used 64 KiB). Not modelled: the host-side ceiling (the i5-2500K's 6-series PCH has only " +
    "2 SATA 6 Gb/s ports and a ~2 GB/s DMI uplink; the controller used is unknown), which could cap the array " +
    "below the drives' 6 x 500 = 3.0 GB/s.",
  memberCount: 6,
  chunkBytes: 512 * KiB,
  member: intelDcS3700 as FlashProfile,
};

const samsung990Pro: DeviceProfileInput = {
  kind: "nvme",
  name: "samsung-990-pro-1tb",
  title: "Samsung 990 PRO 1 TB (NVMe, PCIe 4.0 x4)",
  basis: "secondary",
  sources: [
    "apps/docs/src/reference/storage-device-models.md#samsung-990-pro: seq read 7 450 MB/s [S] thefpsreview 2024-05-27",
    "apps/docs/src/reference/storage-device-models.md#samsung-990-pro: random 4 KB read, QD32 (1 TB) 1 200 000 IOPS [S] syspartsdirect page for MZ-V9P1T0BW",
    "apps/docs/src/reference/storage-device-models.md#samsung-990-pro: QD1 4 KiB random read, review measurement ~82 MB/s ~ 20 000 IOPS, ~50 us per I/O [S] thefpsreview CrystalDiskMark RND4K Q1T1",
    "apps/docs/src/reference/storage-device-models.md#samsung-990-pro [I]: 'The QD32 IOPS figure is a multi-queue aggregate. 1.2 M IOPS at ~50 us needs about 60 reads in flight'",
    "PCIe 4.0 x4 payload 16 GT/s x 4 x 128/130 / 8 = 7.88 GB/s [I] (same arithmetic as apps/docs/src/reference/storage-device-models.md#wd-ultrastar-dc-sn640 for PCIe 3.0)",
  ],
  note:
    "Samsung's own data sheet was not read: all figures are Samsung's published numbers as repeated by a reseller " +
    "and reviews. QD1 latency 50 us is a review's CrystalDiskMark measurement (it includes the host's I/O path); " +
    "the reseller's 60 us 'average latency' is not a Samsung figure and is not used. The 1.2 M IOPS is a " +
    "multi-queue aggregate: randomReadQueueDepth 64 is the power of 2 above the ~60 reads in flight Little's law " +
    "needs (apps/docs/src/reference/storage-device-models.md#samsung-990-pro), not a datasheet figure. A QD1 128 KiB stream is latency-bound (~1.9 GB/s). " +
    "In-drive read-ahead and thermal throttling are not specified: off. " +
    LINUX_MAX_IO,
  maxIoBytes: 512 * KiB,
  capacityBytes: 1_000_000_000_000,
  readLatencyQd1Us: 50,
  sequentialReadBytesPerSecond: 7450 * MB_PER_S,
  randomReadIops: 1_200_000,
  randomReadQueueDepth: 64,
  linkBytesPerSecond: 7877 * MB_PER_S,
};

const wdSn640: DeviceProfileInput = {
  kind: "nvme",
  name: "wd-ultrastar-dc-sn640-960gb",
  title: "WD Ultrastar DC SN640 960 GB (NVMe, PCIe 3.0 x4) - PLACEHOLDER FIGURES",
  basis: "placeholder",
  sources: [
    "apps/docs/src/reference/storage-device-models.md#wd-ultrastar-dc-sn640: seq read 128 KiB class ~3.0-3.3 GB/s [R] placeholder, not the 960 GB datasheet figure",
    "apps/docs/src/reference/storage-device-models.md#wd-ultrastar-dc-sn640: random 4 KiB read, high QD, class 'several hundred thousand' IOPS [R] placeholder",
    "apps/docs/src/reference/storage-device-models.md#wd-ultrastar-dc-sn640: PCIe 3.0 x4 raw payload 3.94 GB/s [I]",
  ],
  note:
    "PLACEHOLDER PROFILE: WD's SN640 data sheet was NOT read. Sequential read 3.0 GB/s is the low end of a " +
    "recalled class range; 400 000 IOPS stands for 'several hundred thousand'; the QD1 latency (80 us) and the " +
    "queue depth (128) have NO source at all and were chosen only to make a consistent NVMe-class profile. Replace " +
    "every figure with the per-capacity table of the WD data sheet before drawing any conclusion from it. " +
    LINUX_MAX_IO,
  maxIoBytes: 512 * KiB,
  capacityBytes: 960_000_000_000,
  readLatencyQd1Us: 80,
  sequentialReadBytesPerSecond: 3000 * MB_PER_S,
  randomReadIops: 400_000,
  randomReadQueueDepth: 128,
  linkBytesPerSecond: 3940 * MB_PER_S,
};

const hdd7200: DeviceProfileInput = {
  kind: "hdd",
  name: "hdd-7200rpm",
  title: "7200 rpm disk (WD Ultrastar DC HC310 mechanics, Constellation ES.3 zone rates)",
  basis: "datasheet",
  sources: [
    "apps/docs/src/reference/storage-device-models.md#hard-disks-at-7200-rpm: average seek, read (typ) 7.4 ms [D] WD Ultrastar DC HC310 OEM spec rev 1.4, Table 5",
    "apps/docs/src/reference/storage-device-models.md#hard-disks-at-7200-rpm: single-track seek, read (typ) 0.23 ms [D] HC310 Table 6",
    "apps/docs/src/reference/storage-device-models.md#hard-disks-at-7200-rpm: time per revolution 8.33 ms / average rotational latency 4.16 ms (7200 rpm) [D] HC310 Table 7",
    "apps/docs/src/reference/storage-device-models.md#hard-disks-at-7200-rpm: sustained transfer ID-OD 83-175 MB/s [D] Seagate Constellation ES.3 SAS Product Manual rev B 4.1.2",
    "apps/docs/src/reference/storage-device-models.md#hard-disks-at-7200-rpm: models HUS726T6TALE6L4 etc. (6 TB [I] from the model number)",
  ],
  note:
    "Mechanics are the HC310's; zone transfer rates are the Constellation ES.3's (the only [D] rates in " +
    "apps/docs/src/reference/storage-device-models.md#hard-disks-at-7200-rpm; current drives are recalled at ~215-255 MB/s OD). Full-stroke seek is derived (13.7 ms) from the " +
    "average and single-track seeks with a square-root seek curve (hdd-mechanics.ts). Assumptions without a " +
    "source: look-ahead 1 MiB (segment sizes are unpublished firmware settings), no command overhead (the seek " +
    "figures exclude it and none is given), SATA 6 Gb/s link at 600 MB/s, offsets map linearly to radius, no NCQ " +
    "reordering (random IOPS at high QD equals QD1). " +
    LINUX_MAX_IO,
  maxIoBytes: 512 * KiB,
  capacityBytes: 6_000_000_000_000,
  rpm: 7200,
  averageSeekUs: 7400,
  trackToTrackSeekUs: 230,
  outerZoneReadBytesPerSecond: 175 * MB_PER_S,
  innerZoneReadBytesPerSecond: 83 * MB_PER_S,
  lookAheadBytes: 1 * MiB,
  linkBytesPerSecond: 600 * MB_PER_S,
};

const ebsGp3: DeviceProfileInput = {
  kind: "cloud-volume",
  name: "aws-ebs-gp3-baseline",
  title: "AWS EBS gp3 volume at baseline (3 000 IOPS, 125 MiB/s)",
  basis: "datasheet",
  sources: [
    "apps/docs/src/reference/storage-device-models.md#aws-ebs-volumes: gp3 IOPS 3 000 baseline included [D] Amazon EC2 User Guide 'general-purpose' (2023 mirror)",
    "apps/docs/src/reference/storage-device-models.md#aws-ebs-volumes: gp3 throughput 125 MiB/s baseline [D] same",
    "apps/docs/src/reference/storage-device-models.md#aws-ebs-volumes: gp3 bursting: none; sustains provisioned figures indefinitely [D] same",
    "apps/docs/src/reference/storage-device-models.md#aws-ebs-volumes: I/O counting unit <= 256 KiB per I/O (SSD); physically sequential small I/Os merged up to it [D] 'ebs-io-characteristics'",
    "apps/docs/src/reference/storage-device-models.md#aws-ebs-volumes: latency 'single-digit millisecond' [D]; [I] 'about 1 ms per I/O ... about 3 I/Os must be in flight'",
  ],
  note:
    "Latency is not published beyond 'single-digit millisecond': 1 ms per read is assumed (apps/docs/src/reference/storage-device-models.md#aws-ebs-volumes uses the " +
    "same figure), with no variation. Limits as of 2023 (gp3 was later raised, apps/docs/src/reference/storage-device-models.md#aws-ebs-volumes). Instance-level EBS " +
    "bandwidth caps are not modelled. Merging of sequential I/Os is modelled without a time window (AWS says only " +
    "that EBS 'tries to' merge). " +
    LINUX_MAX_IO,
  maxIoBytes: 512 * KiB,
  readLatencyUs: 1000,
  iopsLimit: 3000,
  throughputLimitBytesPerSecond: 125 * MiB,
  ioCountingUnitBytes: 256 * KiB,
  mergeSequentialIos: true,
};

let cache: readonly DeviceProfile[] | undefined;

/**
 * All built-in profiles, parsed and checked (the same objects on every call;
 * treat them as read-only).
 *
 * @example
 * ```ts
 * import { builtinProfiles } from "@scanlab/device-profiles";
 * for (const p of builtinProfiles()) console.log(p.name, p.kind, p.basis);
 * ```
 */
export function builtinProfiles(): readonly DeviceProfile[] {
  cache ??= Object.freeze(
    [intelSsd320, intelDcS3700, intelDcS3610, raid0S3600, samsung990Pro, wdSn640, hdd7200, ebsGp3].map((p) =>
      parseDeviceProfile(p, `built-in profile ${p.name}`),
    ),
  );
  return cache;
}

/**
 * A built-in profile by name.
 *
 * @throws DeviceProfileError (code DEVICE_PROFILE_UNKNOWN) naming the known profiles
 *
 * @example
 * ```ts
 * import { getBuiltinProfile } from "@scanlab/device-profiles";
 * const gp3 = getBuiltinProfile("aws-ebs-gp3-baseline");
 * console.log(gp3.kind); // "cloud-volume"
 * ```
 */
export function getBuiltinProfile(name: string): DeviceProfile {
  const found = builtinProfiles().find((p) => p.name === name);
  if (found === undefined) {
    throw new DeviceProfileError(
      "DEVICE_PROFILE_UNKNOWN",
      `There is no built-in device profile "${name}" (known: ${builtinProfiles()
        .map((p) => p.name)
        .join(", ")}).`,
    );
  }
  return found;
}

/** Options of {@link raid0Of}. */
export interface Raid0Options {
  /** Profile name (default `raid0-<N>x-<member name>`). */
  readonly name?: string;
  /** md chunk size in bytes (default 512 KiB, mdadm `DEFAULT_CHUNK`). */
  readonly chunkBytes?: number;
}

/**
 * Builds a Linux md RAID0 profile of `memberCount` copies of a member profile.
 *
 * @example
 * ```ts
 * import { getBuiltinProfile, raid0Of } from "@scanlab/device-profiles";
 * const s3610 = getBuiltinProfile("intel-dc-s3610-100gb");
 * const raid = raid0Of(s3610, 6);
 * console.log(raid.name); // raid0-6x-intel-dc-s3610-100gb
 * ```
 */
export function raid0Of(
  member: DeviceProfile,
  memberCount: number,
  options: Raid0Options = {},
): DeviceProfile {
  if (member.kind === "raid0" || member.kind === "cloud-volume") {
    throw new DeviceProfileError(
      "DEVICE_PROFILE_BAD_OPTION",
      `A RAID0 member must be a flash or hdd profile, not ${member.kind} ("${member.name}").`,
    );
  }
  const name = options.name ?? `raid0-${memberCount}x-${member.name}`;
  return parseDeviceProfile(
    {
      kind: "raid0",
      name,
      title: `Linux md RAID0 of ${memberCount} x ${member.title}`,
      basis: member.basis,
      sources: [
        ...member.sources,
        "apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0: md raid0 layout, io_opt = chunk x raid_disks [K] drivers/md/raid0.c",
      ],
      note: `Linux md RAID0 assumed. Members: ${member.note}`,
      memberCount,
      chunkBytes: options.chunkBytes ?? 512 * KiB,
      member: member as FlashProfile | HddProfile,
    },
    `raid0Of(${member.name}, ${memberCount})`,
  );
}
