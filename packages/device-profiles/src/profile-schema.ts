/**
 * The device profile file: what a storage device is, in datasheet terms.
 *
 * A profile is a small JSON object. Every number carries its unit in its field
 * name (`readLatencyQd1Us`, `sequentialReadBytesPerSecond`, `chunkBytes`), so a
 * file written by hand cannot silently mix milliseconds and microseconds: a
 * field with the wrong unit suffix is an unknown field and is rejected (the
 * error names the field that was meant). Every profile also says where its
 * figures come from (`sources`: one citation per figure or group of figures),
 * what kind of evidence that is (`basis`), and what was assumed (`note`).
 *
 * Kinds, and the figures each needs (all of them on a datasheet or measurable
 * with fio, see `fio-import.ts`):
 *
 * - `sata-ssd`, `nvme`, `ssd` (flash; `ssd` when the interface is unknown, as
 *   for a virtual disk or a measured device): latency of one small read at
 *   queue depth 1, sequential read bandwidth, maximum random-read IOPS and the
 *   queue depth that reaches it. `flash-queue.ts` turns these into a queue over
 *   internal parallel units.
 * - `hdd`: rpm, average and track-to-track seek, outer and inner zone transfer
 *   rates, capacity, the drive's look-ahead. `hdd-mechanics.ts`.
 * - `raid0`: N identical member profiles and the chunk size (Linux md default
 *   512 KiB, apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0). `raid0-stripes.ts`.
 * - `cloud-volume`: per-I/O latency, IOPS and throughput limits, the I/O
 *   counting unit (256 KiB for EBS SSD volumes) and optional burst credits
 *   (apps/docs/src/reference/storage-device-models.md#aws-ebs-volumes). `cloud-budget.ts`.
 *
 * Optional fields have defaults that come from the same sources: 4 KiB for the
 * small-read size of IOPS and latency figures (vendor convention, apps/docs/src/reference/storage-device-models.md
 * ), 128 KiB for the sequential-read block (the size Intel's and
 * Samsung's sequential figures are quoted at), 512 KiB md chunk (mdadm
 * `DEFAULT_CHUNK`, apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0).
 */
import * as z from "zod/mini";
import { KiB } from "./units.js";

/** Where a profile's figures come from; the CLI warns about `placeholder` profiles. */
export const profileBases = ["datasheet", "secondary", "placeholder", "measurement", "assumption"] as const;

/** The `kind` values a profile can have. */
export const deviceKinds = ["sata-ssd", "nvme", "ssd", "hdd", "raid0", "cloud-volume"] as const;

/** A device kind: flash (`sata-ssd`, `nvme`, `ssd`), `hdd`, `raid0` or `cloud-volume`. */
export type DeviceKind = (typeof deviceKinds)[number];

/** Kinds served by the flash queue model. */
export const flashKinds = ["sata-ssd", "nvme", "ssd"] as const;

// zod's numbers are finite already: Infinity and NaN are refused as not numbers.
const atMost = (max: number | undefined) => (max === undefined ? [] : [z.maximum(max)]);
const positive = (description: string, max?: number) =>
  z.number().check(z.positive(), ...atMost(max), z.describe(description));
const nonNegative = (description: string, max?: number) =>
  z.number().check(z.nonnegative(), ...atMost(max), z.describe(description));
const positiveInt = (description: string, max?: number) =>
  z.number().check(z.int(), z.positive(), ...atMost(max), z.describe(description));

/*
 * Upper bounds: no device has these figures, and larger values only overflow the model's times.
 * - MAX_LATENCY_US, 30 s: Linux fails a request that takes longer (SD_TIMEOUT in drivers/scsi/sd.h,
 *   and the NVMe driver's default io_timeout in drivers/nvme/host/core.c are both 30 s).
 * - MAX_SEEK_US, 1 s: physical sense, a full-stroke seek of a disk is tens of milliseconds.
 * - MAX_BYTES_PER_SECOND, 1 TB/s: physical sense, eight times a PCIe 6.0 x16 link (128 GB/s).
 * - MAX_IOPS, 1e9: physical sense, fifty times the fastest NVMe devices (about 20 million 512-byte reads/s).
 * - MAX_QUEUE_DEPTH: NVMe's ceiling of 65,535 I/O queues of 65,536 entries (NVM Express Base
 *   Specification, Number of Queues and CAP.MQES).
 * - MAX_IO_BYTES: max_hw_sectors is an unsigned int of 512-byte sectors (include/linux/blkdev.h).
 * - MAX_RPM, 30,000: physical sense, twice the fastest disks shipped (15,000 rpm).
 * - MAX_RAID0_MEMBERS, 1920: md's v1 superblock holds at most (4096 - 256) / 2 device roles
 *   (super_1_load in drivers/md/md.c).
 * - MAX_CHUNK_BYTES: md keeps chunk_sectors in an int of 512-byte sectors (drivers/md/md.h).
 */
/** @internal The longest latency any profile field may hold (see above). */
export const MAX_LATENCY_US = 30e6;
const MAX_SEEK_US = 1e6;
/** @internal The largest rate any profile field may hold (see above). */
export const MAX_BYTES_PER_SECOND = 1e12;
const MAX_IOPS = 1e9;
const MAX_QUEUE_DEPTH = 65_535 * 65_536;
/** @internal The largest I/O size any profile field may hold (see above). */
export const MAX_IO_BYTES = (2 ** 32 - 1) * 512;
const MAX_RPM = 30_000;
const MAX_RAID0_MEMBERS = 1920;
const MAX_CHUNK_BYTES = (2 ** 31 - 1) * 512;

const latencyUs = (description: string) => positive(description, MAX_LATENCY_US);
const seekUs = (description: string) => positive(description, MAX_SEEK_US);
const bytesPerSecond = (description: string) => positive(description, MAX_BYTES_PER_SECOND);
const iops = (description: string) => positive(description, MAX_IOPS);
const queueDepth = (description: string) => positiveInt(description, MAX_QUEUE_DEPTH);
const ioBytes = (description: string) => positiveInt(description, MAX_IO_BYTES);

const commonFields = {
  name: z
    .string()
    .check(
      z.regex(/^[a-z0-9][a-z0-9._-]*$/),
      z.describe("identifier: lower-case letters, digits, '.', '_' and '-'"),
    ),
  title: z.string().check(z.minLength(1), z.describe("human-readable device name")),
  basis: z
    .enum(profileBases)
    .check(z.describe("kind of evidence: datasheet, secondary, placeholder, measurement or assumption")),
  sources: z
    .array(z.string().check(z.minLength(1)))
    .check(
      z.minLength(1),
      z.describe(
        "citations of every figure (e.g. 'apps/docs/src/reference/storage-device-models.md#intel-ssd-320: seq read 270 MB/s [D] Intel 325152-001US')",
      ),
    ),
  note: z.string().check(z.describe("free-text assumptions")),
  measuredWith: z
    .optional(z.string().check(z.minLength(1)))
    .check(z.describe("how a measured profile was measured (tool, options, file)")),
  cpu: z
    .optional(
      z.strictObject({
        readSyscallUs: nonNegative(
          "fixed CPU time of one pread that hits the page cache (system call and page lookup), microseconds",
          MAX_LATENCY_US,
        ),
        copyBytesPerUs: positive(
          "copy rate from the page cache into the process, bytes per microsecond",
          MAX_BYTES_PER_SECOND / 1e6,
        ),
        fillUsPerPage: z.optional(
          nonNegative(
            "kernel CPU per 4 KiB page a buffered read brings into the page cache, spent by the reading process (system time of cold minus cached reads), microseconds",
            MAX_LATENCY_US,
          ),
        ),
        wakeUpUs: z.optional(
          nonNegative(
            "time to wake a sleeping process on an idle CPU (half a futex round trip between two threads), microseconds",
            MAX_LATENCY_US,
          ),
        ),
        fadviseUs: z.optional(
          nonNegative(
            "system time an 8 kB block advised with posix_fadvise(WILLNEED) costs a reader when absent from the page cache, beyond a cached one (page allocation, bio submission, the read's completion), microseconds",
            MAX_LATENCY_US,
          ),
        ),
        measuredWith: z
          .string()
          .check(z.minLength(1), z.describe("how and where the CPU costs were measured")),
        points: z
          .optional(
            z.array(
              z.strictObject({
                blockBytes: ioBytes("bytes per pread"),
                usPerRead: positive("CPU time per pread, microseconds", MAX_LATENCY_US),
              }),
            ),
          )
          .check(z.describe("the measured points the costs were fitted to")),
      }),
    )
    .check(
      z.describe(
        "CPU costs of reads from the page cache on the machine that holds the device (scanlab calibrate)",
      ),
    ),
};

const blockDeviceFields = {
  // At least one 4 KiB page: the page cache reads whole pages, and Linux's block layer does not run a
  // queue whose largest request is below one page.
  maxIoBytes: z
    .number()
    .check(
      z.int(),
      z.minimum(4096),
      z.maximum(MAX_IO_BYTES),
      z.describe(
        "largest read the device accepts in bytes (at least 4096, one page); the OS splits larger reads",
      ),
    ),
  optimalIoBytes: z
    ._default(z.number().check(z.int(), z.nonnegative(), z.maximum(MAX_IO_BYTES)), 0)
    .check(
      z.describe(
        "io_opt the device reports in bytes (0 = none); Linux sets read_ahead_kb = max(2 x io_opt, 128 KiB)",
      ),
    ),
  capacityBytes: z.optional(positiveInt("capacity in bytes")),
};

/** @internal A measured point kept in a measured profile (fio or Node calibration), for reporting gaps. */
export const readMeasurementSchema = z.strictObject({
  pattern: z.enum(["sequential", "random"]).check(z.describe("access pattern")),
  blockBytes: ioBytes("bytes per read"),
  queueDepth: queueDepth("reads in flight"),
  iops: nonNegative("reads per second", MAX_IOPS),
  bytesPerSecond: nonNegative("bytes per second", MAX_BYTES_PER_SECOND),
  meanLatencyUs: nonNegative("mean completion latency in microseconds", MAX_LATENCY_US),
});

/** @internal Schema of a flash device profile (`sata-ssd`, `nvme`, `ssd`). */
export const flashProfileSchema = z.strictObject({
  kind: z.enum(flashKinds).check(z.describe("flash kind: sata-ssd, nvme or ssd")),
  ...commonFields,
  ...blockDeviceFields,
  readLatencyQd1Us: latencyUs(
    "latency in microseconds of one small read (latencyReadBytes) at queue depth 1",
  ),
  latencyReadBytes: z._default(ioBytes("bytes of the read readLatencyQd1Us was quoted for"), 4 * KiB),
  sequentialReadBytesPerSecond: bytesPerSecond(
    "sustained sequential read bandwidth at a deep queue, bytes per second",
  ),
  sequentialReadBlockBytes: z._default(ioBytes("read size of the sequential figure in bytes"), 128 * KiB),
  randomReadIops: iops("maximum random reads per second of randomReadBlockBytes"),
  randomReadBlockBytes: z._default(ioBytes("read size of the IOPS figure in bytes"), 4 * KiB),
  randomReadQueueDepth: queueDepth(
    "reads in flight at which randomReadIops is reached (all queues together)",
  ),
  secondRandomReadIops: z.optional(
    iops(
      "maximum random reads per second of secondRandomReadBlockBytes, at the same queue depth (a datasheet's second random-read size)",
    ),
  ),
  secondRandomReadBlockBytes: z.optional(
    ioBytes("read size of secondRandomReadIops in bytes (larger than randomReadBlockBytes)"),
  ),
  linkBytesPerSecond: z.optional(
    bytesPerSecond("interface payload ceiling in bytes per second (informative)"),
  ),
  internalReadAhead: z
    .optional(
      z.union([
        z.literal(false),
        z.strictObject({
          triggerSequentialReads: positiveInt("consecutive sequential reads before the drive reads ahead"),
          hitLatencyUs: nonNegative(
            "latency in microseconds a read served from the drive's read-ahead buffer adds to the command path",
            MAX_LATENCY_US,
          ),
          bufferBytes: z._default(
            ioBytes("bytes the drive keeps read ahead of a detected stream").check(z.minimum(8192)),
            128 * 1024,
          ),
        }),
      ]),
    )
    .check(
      z.describe(
        "in-drive read-ahead for sequential streams; false = off; absent = the class default (sata-ssd: on, flash-queue.ts; others: off)",
      ),
    ),
  measurements: z
    .optional(z.array(readMeasurementSchema))
    .check(z.describe("measured points (measured profiles)")),
  queueModel: z
    .optional(
      z.strictObject({
        units: positiveInt("internal parallel units", MAX_QUEUE_DEPTH),
        unitBusyUs: nonNegative("time a read holds its unit, microseconds", MAX_LATENCY_US),
        fixedLatencyUs: nonNegative("command-path delay holding no resource, microseconds", MAX_LATENCY_US),
        transferBytesPerSecond: bytesPerSecond("data-path rate, bytes per second"),
        commandUs: nonNegative(
          "time each read holds the data path besides its transfer, microseconds",
          MAX_LATENCY_US,
        ),
        stripeBytes: ioBytes("bytes of one mapped page; the unit of a read is a hash of its first page"),
      }),
    )
    .check(
      z.describe(
        "flash queue parameters fitted to the measurements (flash-queue.ts); absent = derived from the figures",
      ),
    ),
});

/** @internal Schema of a rotating disk profile (`hdd`). */
export const hddProfileSchema = z.strictObject({
  kind: z.literal("hdd").check(z.describe("hdd")),
  ...commonFields,
  ...blockDeviceFields,
  capacityBytes: positiveInt("capacity in bytes (seek distance is a fraction of it)"),
  rpm: positive("spindle speed in revolutions per minute", MAX_RPM),
  averageSeekUs: seekUs("average read seek in microseconds (datasheet 'average seek', no command overhead)"),
  trackToTrackSeekUs: seekUs("single-track read seek in microseconds"),
  fullStrokeSeekUs: z.optional(seekUs("full-stroke seek in microseconds (optional; derived when absent)")),
  outerZoneReadBytesPerSecond: bytesPerSecond(
    "sustained transfer at the outer diameter (LBA 0), bytes per second",
  ),
  innerZoneReadBytesPerSecond: bytesPerSecond(
    "sustained transfer at the inner diameter (last LBA), bytes per second",
  ),
  lookAheadBytes: z
    .number()
    .check(
      z.int(),
      z.nonnegative(),
      z.describe("bytes the drive reads ahead into its cache after a read (0 = look-ahead off)"),
    ),
  linkBytesPerSecond: bytesPerSecond("interface payload rate in bytes per second (cache hits)"),
  commandOverheadUs: z._default(
    nonNegative("per-command controller overhead in microseconds", MAX_LATENCY_US),
    0,
  ),
});

/** @internal Members a RAID0 array can be built of. */
export const raidMemberSchema = z.discriminatedUnion("kind", [flashProfileSchema, hddProfileSchema]);

/** @internal Schema of a Linux md RAID0 profile (`raid0`) of identical members. */
export const raid0ProfileSchema = z.strictObject({
  kind: z.literal("raid0").check(z.describe("raid0")),
  ...commonFields,
  memberCount: z
    .number()
    .check(
      z.int(),
      z.minimum(2),
      z.maximum(MAX_RAID0_MEMBERS),
      z.describe("number of member disks (2 to 1920)"),
    ),
  chunkBytes: z._default(
    positiveInt("md chunk size in bytes (mdadm default 512 KiB)", MAX_CHUNK_BYTES).check(
      z.refine((v) => v % (4 * KiB) === 0, { message: "must be a multiple of 4096 bytes" }),
    ),
    512 * KiB,
  ),
  member: raidMemberSchema.check(z.describe("profile of each member disk")),
});

/** @internal Schema of a cloud block volume profile (`cloud-volume`). */
export const cloudVolumeProfileSchema = z.strictObject({
  kind: z.literal("cloud-volume").check(z.describe("cloud-volume")),
  ...commonFields,
  ...blockDeviceFields,
  readLatencyUs: latencyUs("latency in microseconds of one read once the volume's budgets admit it"),
  iopsLimit: iops("baseline (provisioned) I/O operations per second"),
  throughputLimitBytesPerSecond: bytesPerSecond("baseline (provisioned) throughput in bytes per second"),
  ioCountingUnitBytes: ioBytes("largest I/O counted as one operation; larger I/Os count once per unit"),
  mergeSequentialIos: z
    .boolean()
    .check(
      z.describe("whether physically sequential small I/Os are merged into one counted I/O up to the unit"),
    ),
  burst: z
    .optional(
      z.strictObject({
        iopsLimit: z.optional(iops("I/O operations per second while burst credits last")),
        ioCredits: z.optional(nonNegative("I/O credits the burst bucket holds when full")),
        throughputLimitBytesPerSecond: z.optional(
          bytesPerSecond("bytes per second while burst credits last"),
        ),
        byteCredits: z.optional(nonNegative("byte credits the burst bucket holds when full")),
      }),
    )
    .check(z.describe("burst bucket (refilled at the baseline rate); absent = no bursting")),
});

/** @internal The union of the four kinds (the exported, typed view is {@link deviceProfileSchema}). */
export const profileUnionSchema = z.discriminatedUnion("kind", [
  flashProfileSchema,
  hddProfileSchema,
  raid0ProfileSchema,
  cloudVolumeProfileSchema,
]);

/** Fields every profile has. */
export interface ProfileCommon {
  /** Identifier: lower-case letters, digits, '.', '_' and '-'. */
  readonly name: string;
  /** Human-readable device name. */
  readonly title: string;
  /** Kind of evidence behind the figures. */
  readonly basis: (typeof profileBases)[number];
  /** Citations of every figure (e.g. "apps/docs/src/reference/storage-device-models.md#intel-ssd-320: seq read 270 MB/s [D] Intel 325152-001US"). */
  readonly sources: string[];
  /** Free-text assumptions. */
  readonly note: string;
  /** How a measured profile was measured (tool, options, file). */
  readonly measuredWith?: string | undefined;
  /** CPU costs of reads from the page cache on the machine that holds the device (`scanlab calibrate`). */
  readonly cpu?: MachineCpuCosts | undefined;
}

/** CPU costs of a pread that finds its pages in the page cache, as `scanlab calibrate` measures them. */
export interface MachineCpuCosts {
  /** Fixed CPU time of one pread (system call and page lookup), microseconds. */
  readonly readSyscallUs: number;
  /** Copy rate from the page cache into the process, bytes per microsecond. */
  readonly copyBytesPerUs: number;
  /** Kernel CPU per 4 KiB page a buffered read brings into the page cache, in the reading process, microseconds. */
  readonly fillUsPerPage?: number | undefined;
  /** Time to wake a sleeping process on an idle CPU, microseconds. */
  readonly wakeUpUs?: number | undefined;
  /** System time an advised 8 kB block costs a reader when absent, beyond a cached one, microseconds. */
  readonly fadviseUs?: number | undefined;
  /** How and where the costs were measured. */
  readonly measuredWith: string;
  /** The measured points the costs were fitted to. */
  readonly points?:
    | {
        /** Bytes per pread. */
        readonly blockBytes: number;
        /** CPU time per pread, microseconds. */
        readonly usPerRead: number;
      }[]
    | undefined;
}

/** Flash queue parameters fitted to a measured profile's points (`flash-queue.ts`). */
export interface FlashQueueModelFields {
  /** Internal parallel units. */
  readonly units: number;
  /** Time a read holds its unit, microseconds. */
  readonly unitBusyUs: number;
  /** Command-path delay holding no resource, microseconds. */
  readonly fixedLatencyUs: number;
  /** Data-path rate, bytes per second. */
  readonly transferBytesPerSecond: number;
  /** Time each read holds the data path besides its transfer, microseconds. */
  readonly commandUs: number;
  /** Bytes of one mapped page; the unit of a read is a hash of its first page. */
  readonly stripeBytes: number;
}

/** Fields of a single block device (every kind but raid0). */
export interface BlockDeviceFields {
  /** Largest read the device accepts, in bytes; the OS splits larger reads. */
  readonly maxIoBytes: number;
  /** io_opt the device reports, in bytes (0 = none); Linux sets read_ahead_kb = max(2 x io_opt, 128 KiB). */
  readonly optimalIoBytes: number;
  /** Capacity in bytes. */
  readonly capacityBytes?: number | undefined;
}

/** One measured read point: pattern, block size, queue depth and what was achieved. */
export interface ReadMeasurement {
  /** Access pattern. */
  readonly pattern: "sequential" | "random";
  /** Bytes per read. */
  readonly blockBytes: number;
  /** Reads in flight. */
  readonly queueDepth: number;
  /** Reads per second. */
  readonly iops: number;
  /** Bytes per second. */
  readonly bytesPerSecond: number;
  /** Mean completion latency in microseconds. */
  readonly meanLatencyUs: number;
}

/** A drive controller's read-ahead for sequential streams (`flash-queue.ts`, "Controller read-ahead"). */
export interface ControllerReadAhead {
  /** Consecutive sequential reads (each starting where the previous ended) before the drive reads ahead. */
  readonly triggerSequentialReads: number;
  /** Latency in microseconds a read served from the read-ahead buffer adds to the command path. */
  readonly hitLatencyUs: number;
  /** Bytes the drive keeps read ahead of a detected stream, in two halves refilled in turn (default 131072). */
  readonly bufferBytes: number;
}

/**
 * The read-ahead every `sata-ssd` profile gets unless it says otherwise: ONE
 * assumption for the class, since no datasheet documents it
 * (apps/docs/src/reference/storage-device-models.md#read-ahead-in-sata-controllers; `flash-queue.ts`,
 * "Controller read-ahead"): a stream is detected after 2 contiguous reads, the
 * buffer is 128 KiB (the read size of the class's sequential figures), and a
 * hit adds nothing to the command path.
 */
export const SATA_CONTROLLER_READ_AHEAD: ControllerReadAhead = Object.freeze({
  triggerSequentialReads: 2,
  hitLatencyUs: 0,
  bufferBytes: 128 * 1024,
});

/** A parsed flash profile (`sata-ssd`, `nvme`, `ssd`); see `flash-queue.ts` for how the figures become a queue. */
export interface FlashProfile extends ProfileCommon, BlockDeviceFields {
  /** Flash kind. */
  readonly kind: (typeof flashKinds)[number];
  /** Latency in microseconds of one small read (`latencyReadBytes`) at queue depth 1. */
  readonly readLatencyQd1Us: number;
  /** Bytes of the read `readLatencyQd1Us` was quoted for (default 4096). */
  readonly latencyReadBytes: number;
  /** Sustained sequential read bandwidth at a deep queue, bytes per second. */
  readonly sequentialReadBytesPerSecond: number;
  /** Read size of the sequential figure in bytes (default 131072). */
  readonly sequentialReadBlockBytes: number;
  /** Maximum random reads per second of `randomReadBlockBytes`. */
  readonly randomReadIops: number;
  /** Read size of the IOPS figure in bytes (default 4096). */
  readonly randomReadBlockBytes: number;
  /** Reads in flight (all queues together) at which `randomReadIops` is reached. */
  readonly randomReadQueueDepth: number;
  /** Interface payload ceiling in bytes per second (informative; checked >= the sequential figure). */
  readonly linkBytesPerSecond?: number | undefined;
  /**
   * Maximum random reads per second of `secondRandomReadBlockBytes`, at `randomReadQueueDepth` (a
   * datasheet's second random-read size, e.g. "random 8 KB read"); with it the per-command time is derived
   * from the profile itself (`flash-queue.ts`).
   */
  readonly secondRandomReadIops?: number | undefined;
  /** Read size of `secondRandomReadIops` in bytes (larger than `randomReadBlockBytes`). */
  readonly secondRandomReadBlockBytes?: number | undefined;
  /**
   * In-drive read-ahead for sequential streams: `false` = off; absent = the class default
   * (`sata-ssd`: {@link SATA_CONTROLLER_READ_AHEAD}; `nvme`, `ssd` and fitted profiles: off).
   */
  readonly internalReadAhead?: false | ControllerReadAhead | undefined;
  /** Measured points (measured profiles). */
  readonly measurements?: ReadMeasurement[] | undefined;
  /** Queue parameters fitted to the measurements; absent = derived from the figures (`flash-queue.ts`). */
  readonly queueModel?: FlashQueueModelFields | undefined;
}

/** A parsed rotating-disk profile; see `hdd-mechanics.ts`. */
export interface HddProfile extends ProfileCommon, BlockDeviceFields {
  /** `hdd`. */
  readonly kind: "hdd";
  /** Capacity in bytes (seek distance is a fraction of it). */
  readonly capacityBytes: number;
  /** Spindle speed in revolutions per minute. */
  readonly rpm: number;
  /** Average read seek in microseconds (datasheet "average seek", no command overhead). */
  readonly averageSeekUs: number;
  /** Single-track read seek in microseconds. */
  readonly trackToTrackSeekUs: number;
  /** Full-stroke seek in microseconds (derived from the average when absent). */
  readonly fullStrokeSeekUs?: number | undefined;
  /** Sustained transfer at the outer diameter (offset 0), bytes per second. */
  readonly outerZoneReadBytesPerSecond: number;
  /** Sustained transfer at the inner diameter (last offset), bytes per second. */
  readonly innerZoneReadBytesPerSecond: number;
  /** Bytes the drive reads ahead into its cache after a read (0 = look-ahead off). */
  readonly lookAheadBytes: number;
  /** Interface payload rate in bytes per second (cache hits). */
  readonly linkBytesPerSecond: number;
  /** Per-command controller overhead in microseconds (default 0). */
  readonly commandOverheadUs: number;
}

/** A parsed RAID0 member profile (flash or hdd). */
export type RaidMemberProfile = FlashProfile | HddProfile;

/** A parsed Linux md RAID0 profile of identical members; see `raid0-stripes.ts`. */
export interface Raid0Profile extends ProfileCommon {
  /** `raid0`. */
  readonly kind: "raid0";
  /** Number of member disks (at least 2). */
  readonly memberCount: number;
  /** md chunk size in bytes (default 524288, mdadm's DEFAULT_CHUNK). */
  readonly chunkBytes: number;
  /** Profile of each member disk. */
  readonly member: RaidMemberProfile;
}

/** A parsed cloud block volume profile; see `cloud-budget.ts`. */
export interface CloudVolumeProfile extends ProfileCommon, BlockDeviceFields {
  /** `cloud-volume`. */
  readonly kind: "cloud-volume";
  /** Latency in microseconds of one read once the volume's budgets admit it. */
  readonly readLatencyUs: number;
  /** Baseline (provisioned) I/O operations per second. */
  readonly iopsLimit: number;
  /** Baseline (provisioned) throughput in bytes per second. */
  readonly throughputLimitBytesPerSecond: number;
  /** Largest I/O counted as one operation, in bytes; larger I/Os count once per started unit. */
  readonly ioCountingUnitBytes: number;
  /** Whether physically sequential small I/Os are merged into one counted I/O up to the unit. */
  readonly mergeSequentialIos: boolean;
  /** Burst bucket, refilled at the baseline rate; absent = no bursting. */
  readonly burst?:
    | {
        /** I/O operations per second while burst credits last. */
        readonly iopsLimit?: number | undefined;
        /** I/O credits the burst bucket holds when full. */
        readonly ioCredits?: number | undefined;
        /** Bytes per second while burst credits last. */
        readonly throughputLimitBytesPerSecond?: number | undefined;
        /** Byte credits the burst bucket holds when full. */
        readonly byteCredits?: number | undefined;
      }
    | undefined;
}

/** A parsed device profile (defaults filled in). Units are in every field name. */
export type DeviceProfile = FlashProfile | HddProfile | Raid0Profile | CloudVolumeProfile;

/** Makes the listed fields of a profile type optional (they have defaults). */
export type Loosen<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;
/** A flash profile as written in a file (fields with defaults may be absent). */
export type FlashProfileInput = Omit<
  Loosen<
    FlashProfile,
    "optimalIoBytes" | "latencyReadBytes" | "sequentialReadBlockBytes" | "randomReadBlockBytes"
  >,
  "internalReadAhead"
> & {
  /** In-drive read-ahead as written in a file (`bufferBytes` may be absent: 131072). */
  readonly internalReadAhead?: false | Loosen<ControllerReadAhead, "bufferBytes"> | undefined;
};
/** A disk profile as written in a file (fields with defaults may be absent). */
export type HddProfileInput = Loosen<HddProfile, "optimalIoBytes" | "commandOverheadUs">;
/** A RAID0 profile as written in a file (fields with defaults may be absent). */
export type Raid0ProfileInput = Omit<Raid0Profile, "chunkBytes" | "member"> & {
  /** md chunk size in bytes (default 524288). */
  readonly chunkBytes?: number | undefined;
  /** Profile of each member disk. */
  readonly member: FlashProfileInput | HddProfileInput;
};
/** A cloud volume profile as written in a file (fields with defaults may be absent). */
export type CloudVolumeProfileInput = Loosen<CloudVolumeProfile, "optimalIoBytes">;
/** A device profile as written in a file: like {@link DeviceProfile}, but fields with defaults may be absent. */
export type DeviceProfileInput =
  | FlashProfileInput
  | HddProfileInput
  | Raid0ProfileInput
  | CloudVolumeProfileInput;

/**
 * zod schema of any device profile file, for embedding in other schemas (e.g.
 * a simulator scenario). Prefer {@link parseDeviceProfile} to validate a file:
 * its errors are one sentence naming the field and the file, and it also checks
 * that the figures are consistent.
 */
export const deviceProfileSchema: z.ZodMiniType<DeviceProfile, DeviceProfileInput> = profileUnionSchema;

// The documented interfaces above and the schema's inferred output must stay the same shape.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Mutable<T> = { -readonly [K in keyof T]: Mutable<T[K]> };
const schemaMatchesTypes: [
  Same<Mutable<FlashProfile>, z.output<typeof flashProfileSchema>>,
  Same<Mutable<HddProfile>, z.output<typeof hddProfileSchema>>,
  Same<Mutable<Raid0Profile>, z.output<typeof raid0ProfileSchema>>,
  Same<Mutable<CloudVolumeProfile>, z.output<typeof cloudVolumeProfileSchema>>,
  Same<Mutable<ReadMeasurement>, z.output<typeof readMeasurementSchema>>,
  Same<Mutable<FlashProfileInput>, z.input<typeof flashProfileSchema>>,
  Same<Mutable<HddProfileInput>, z.input<typeof hddProfileSchema>>,
  Same<Mutable<Raid0ProfileInput>, z.input<typeof raid0ProfileSchema>>,
  Same<Mutable<CloudVolumeProfileInput>, z.input<typeof cloudVolumeProfileSchema>>,
] = [true, true, true, true, true, true, true, true, true];
void schemaMatchesTypes;

/** Whether a profile is served by the flash queue model. */
export function isFlashProfile(profile: DeviceProfile): profile is FlashProfile {
  return profile.kind === "sata-ssd" || profile.kind === "nvme" || profile.kind === "ssd";
}
