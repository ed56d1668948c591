/**
 * Which block device holds a file, its request-queue limits, and device
 * truth: what the device did while some work ran, from the kernel's own
 * counters, the way `iostat` reported the experiment of Munro's 2020 FreeBSD report (postgr.es/m/CA+hUKGJ_EErDv41YycXcbMbCBkztA34+z1ts9VQH+ACRuvpxig@mail.gmail.com)
 * (apps/docs/src/reference/experiments.md#t1-freebsd-ufs-striding-and-64-block-chunks: "~128 kB" average reads serial, "~32 kB" striding).
 *
 * The story. A read the page cache cannot satisfy becomes a bio; the block
 * layer merges adjacent bios into requests and sends them to the device.
 * /proc/diskstats keeps, per block device and per partition, the number of
 * read requests completed and the sectors they moved
 * (Documentation/admin-guide/iostats.rst: field 1 "reads completed
 * successfully", field 2 "reads merged", field 3 "sectors read", field 4
 * "time spent reading (ms)"; a sector there is always 512 bytes, whatever the
 * device's own sector size). Sampling the line before and after the scan and
 * subtracting gives the scan's physical reads and their average size,
 * sectors x 512 / reads: exactly iostat's `rareq-sz`.
 *
 * Which line? The file's `st_dev` is the major:minor of the block device its
 * filesystem sits on. That device may be a whole disk (`vda`, virtio: major
 * 254 here), a partition (`sda1`: its line counts the requests sent to that
 * partition), a device-mapper target (`dm-0`: LVM, LUKS; its line counts the
 * I/O submitted to the mapping, before the disks below merge it) or an md
 * array. `/sys/dev/block/MAJ:MIN` links to the device's sysfs directory: a
 * `partition` file marks a partition, whose parent directory is its disk;
 * `slaves/` lists what a dm or md device is built on. We report the file's
 * own device (matched in /proc/diskstats by major:minor, never by guessing a
 * name) and, beside it, the whole disks underneath with their own deltas,
 * since merging into the requests the device sees happens at the bottom.
 *
 * Where there is no such device the result says so instead of guessing: a
 * major number of 0 is an anonymous device (tmpfs, overlayfs, btrfs
 * subvolumes, NFS, FUSE), /proc/diskstats may be unreadable (containers,
 * non-Linux systems), or the device may have no line.
 *
 * The caveat, in every report: these counters belong to the device, not to
 * the scan. Anything else reading the same device during the scan (another
 * process, the filesystem's own metadata reads, swap-in) is counted too. On a
 * quiet machine the delta is the scan's; on a busy one it is an upper bound.
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { errorClause } from "@scanlab/core";

/** Bytes per sector in /proc/diskstats, independent of the device's sector size (Documentation/admin-guide/iostats.rst; block/genhd.c counts in 512-byte units). */
export const DISKSTATS_SECTOR_BYTES = 512;

/** The sentence every device report carries about other readers of the device. */
export const DISKSTATS_CAVEAT =
  "The counters belong to the whole device: reads by other processes during the scan are included.";

/** A block device's major and minor numbers. */
export interface DeviceNumbers {
  /** Major number (the driver: 8 = sd, 253/254 = virtio or device-mapper depending on the system, 259 = nvme). */
  readonly major: number;
  /** Minor number (the unit / partition). */
  readonly minor: number;
}

/**
 * Splits a Linux `dev_t` (as `stat(path, { bigint: true }).dev` gives it)
 * into major and minor, with glibc's encoding (sys/sysmacros.h gnu_dev_major /
 * gnu_dev_minor: major = bits 8-19 and 32-43, minor = bits 0-7 and 20-31).
 *
 * @example
 * ```ts
 * import { deviceNumbers } from "@scanlab/host";
 * deviceNumbers(65024n); // { major: 254, minor: 0 }  (0xfe00: /dev/vda on a virtio machine)
 * deviceNumbers(2049n);  // { major: 8, minor: 1 }    (0x0801: /dev/sda1)
 * ```
 */
export function deviceNumbers(dev: bigint | number): DeviceNumbers {
  const d = BigInt(dev);
  const major = Number(((d >> 8n) & 0xfffn) | ((d >> 32n) & ~0xfffn));
  const minor = Number((d & 0xffn) | ((d >> 12n) & ~0xffn));
  return { major, minor };
}

/** The kind of block device a file sits on. */
export type DeviceKind = "disk" | "partition" | "device-mapper" | "md" | "loop" | "other";

/** A block device named by major:minor. */
export interface BlockDeviceName extends DeviceNumbers {
  /** Kernel name, as in /proc/diskstats (`vda`, `sda1`, `dm-0`, `nvme0n1p2`). */
  readonly name: string;
}

/** The device that holds a file, resolved through sysfs. */
export type DeviceResolution =
  | {
      /** The device was found. */
      readonly available: true;
      /** The file's own device (its `st_dev`), with its {@link DeviceKind} as `kind`. */
      readonly device: BlockDeviceName & {
        /** Whole disk, partition, device-mapper, md, loop or other. */
        readonly kind: DeviceKind;
      };
      /** Whole disks underneath (the parent disk of a partition, the disks below a dm / md device; the device itself for a disk). */
      readonly physical: readonly BlockDeviceName[];
    }
  | {
      /** No device counters for this file. */
      readonly available: false;
      /** One sentence saying why there are no device counters. */
      readonly reason: string;
    };

/** Where the kernel interfaces live; tests point these at fake trees. */
export interface KernelPaths {
  /** sysfs mount point, default "/sys". */
  readonly sysRoot?: string;
  /** The diskstats file, default "/proc/diskstats". */
  readonly diskstats?: string;
}

/** One line of /proc/diskstats, read side (iostats.rst fields 1-4). */
export interface DiskReadCounters {
  /** Field 1: reads completed successfully. */
  readonly reads: number;
  /** Field 2: reads merged (adjacent requests merged before being issued). */
  readonly readsMerged: number;
  /** Field 3: sectors read (512-byte units). */
  readonly sectors: number;
  /** Field 4: milliseconds spent reading, in microseconds here. */
  readonly readTimeUs: number;
}

function readDev(file: string): DeviceNumbers | null {
  try {
    const m = /^(\d+):(\d+)/.exec(readFileSync(file, "utf8").trim());
    return m === null ? null : { major: Number(m[1]), minor: Number(m[2]) };
  } catch {
    return null;
  }
}

/** The whole disks under the sysfs device directory `dir` (recursing through dm / md slaves and partitions). */
function physicalUnder(sysRoot: string, dir: string, seen: Set<string>): BlockDeviceName[] {
  const name = basename(dir);
  if (seen.has(name)) return [];
  seen.add(name);
  if (existsSync(join(dir, "partition"))) {
    const parent = dirname(dir);
    const dev = readDev(join(parent, "dev"));
    return dev === null ? [] : [{ name: basename(parent), ...dev }];
  }
  const slavesDir = join(dir, "slaves");
  let slaves: string[] = [];
  try {
    slaves = readdirSync(slavesDir);
  } catch {
    slaves = [];
  }
  if (slaves.length === 0) {
    const dev = readDev(join(dir, "dev"));
    return dev === null ? [] : [{ name, ...dev }];
  }
  const out: BlockDeviceName[] = [];
  for (const slave of slaves.sort()) {
    let slaveDir: string;
    try {
      slaveDir = realpathSync(join(slavesDir, slave));
    } catch {
      try {
        slaveDir = realpathSync(join(sysRoot, "class", "block", slave));
      } catch {
        continue;
      }
    }
    for (const d of physicalUnder(sysRoot, slaveDir, seen)) {
      if (!out.some((o) => o.name === d.name)) out.push(d);
    }
  }
  return out;
}

/**
 * Finds the block device with numbers `major:minor` (a file's `st_dev`)
 * through `/sys/dev/block/MAJ:MIN`, its kind and the whole disks under it.
 *
 * @example
 * ```ts
 * import { statSync } from "node:fs";
 * import { deviceNumbers, resolveBlockDevice } from "@scanlab/host";
 * const r = resolveBlockDevice(deviceNumbers(statSync("/tmp", { bigint: true }).dev));
 * console.log(r.available ? `${r.device.name} (${r.device.kind})` : r.reason);
 * ```
 */
export function resolveBlockDevice(numbers: DeviceNumbers, paths: KernelPaths = {}): DeviceResolution {
  const sysRoot = paths.sysRoot ?? "/sys";
  const { major, minor } = numbers;
  if (major === 0) {
    return {
      available: false,
      reason: `the file's device ${major}:${minor} is not a block device (tmpfs, overlayfs, btrfs, NFS or FUSE), so there are no device counters for it.`,
    };
  }
  let dir: string;
  try {
    dir = realpathSync(join(sysRoot, "dev", "block", `${major}:${minor}`));
  } catch {
    return {
      available: false,
      reason: `${join(sysRoot, "dev", "block", `${major}:${minor}`)} does not exist, so the file's block device cannot be identified.`,
    };
  }
  const name = basename(dir);
  let kind: DeviceKind;
  if (existsSync(join(dir, "partition"))) kind = "partition";
  else if (existsSync(join(dir, "dm"))) kind = "device-mapper";
  else if (existsSync(join(dir, "md"))) kind = "md";
  else if (existsSync(join(dir, "loop"))) kind = "loop";
  else if (existsSync(join(dir, "device"))) kind = "disk";
  else kind = "other";
  const physical = physicalUnder(sysRoot, dir, new Set());
  return {
    available: true,
    device: { name, major, minor, kind },
    physical: physical.length > 0 ? physical : [{ name, major, minor }],
  };
}

/**
 * Reads /proc/diskstats into read counters keyed by "major:minor".
 *
 * @throws the fs error when the file cannot be read (callers turn it into an "unavailable" reason).
 */
export function readDiskstats(path = "/proc/diskstats"): Map<string, DiskReadCounters> {
  const out = new Map<string, DiskReadCounters>();
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const f = line.trim().split(/\s+/);
    if (f.length < 7) continue;
    out.set(`${f[0]}:${f[1]}`, {
      reads: Number(f[3]),
      readsMerged: Number(f[4]),
      sectors: Number(f[5]),
      readTimeUs: Number(f[6]) * 1000,
    });
  }
  return out;
}

/** The read-side deltas of one device over the scan. */
export interface DeviceDelta extends BlockDeviceName {
  /** Read requests completed during the scan. */
  readonly reads: number;
  /** Reads merged during the scan. */
  readonly readsMerged: number;
  /** Sectors read (512 bytes each). */
  readonly sectors: number;
  /** Bytes read: sectors x 512. */
  readonly readBytes: number;
  /** Average read request size in bytes (iostat's rareq-sz), or null when there were no reads. */
  readonly avgRequestBytes: number | null;
  /** Time spent reading, summed over requests (ms resolution in the kernel), in microseconds. */
  readonly readTimeUs: number;
}

/** What the device did during the scan, or why that is not known. */
export type DeviceReport =
  | (DeviceDelta & {
      /** The counters were read before and after. */
      readonly available: true;
      /** The file's device kind. */
      readonly kind: DeviceKind;
      /** The whole disks underneath, each with its own deltas. */
      readonly physical: readonly DeviceDelta[];
      /** The sentence about other readers of the device (`DISKSTATS_CAVEAT` of @scanlab/host). */
      readonly caveat: string;
    })
  | {
      /** No device counters for this scan. */
      readonly available: false;
      /** One sentence saying why. */
      readonly reason: string;
    };

function delta(name: BlockDeviceName, a: DiskReadCounters, b: DiskReadCounters): DeviceDelta {
  const reads = b.reads - a.reads;
  const sectors = b.sectors - a.sectors;
  const readBytes = sectors * DISKSTATS_SECTOR_BYTES;
  return {
    name: name.name,
    major: name.major,
    minor: name.minor,
    reads,
    readsMerged: b.readsMerged - a.readsMerged,
    sectors,
    readBytes,
    avgRequestBytes: reads > 0 ? readBytes / reads : null,
    readTimeUs: b.readTimeUs - a.readTimeUs,
  };
}

/**
 * Samples the diskstats counters of one file's device: call `sample()` before
 * and after the work, then `report(before, after)`.
 */
export interface DeviceProbe {
  /** Why no counters are available, or null when they are. */
  readonly unavailableReason: string | null;
  /** Reads the counters now (null when unavailable or unreadable). */
  sample(): Map<string, DiskReadCounters> | null;
  /** The deltas between two samples. */
  report(
    before: Map<string, DiskReadCounters> | null,
    after: Map<string, DiskReadCounters> | null,
  ): DeviceReport;
}

/**
 * A probe for the device that holds a file with device number `dev`.
 *
 * @example
 * ```ts
 * import { statSync } from "node:fs";
 * import { probeDevice } from "@scanlab/host";
 * const probe = probeDevice(statSync("/tmp/big.dat", { bigint: true }).dev);
 * const before = probe.sample();
 * // ... read the file ...
 * const r = probe.report(before, probe.sample());
 * if (r.available) console.log(r.reads, r.avgRequestBytes); else console.log(r.reason);
 * ```
 */
export function probeDevice(dev: bigint | number, paths: KernelPaths = {}): DeviceProbe {
  const diskstatsPath = paths.diskstats ?? "/proc/diskstats";
  const resolution = resolveBlockDevice(deviceNumbers(dev), paths);
  let reason: string | null = resolution.available ? null : resolution.reason;
  if (resolution.available) {
    try {
      const first = readDiskstats(diskstatsPath);
      const key = `${resolution.device.major}:${resolution.device.minor}`;
      if (!first.has(key)) {
        reason = `${diskstatsPath} has no line for device ${resolution.device.name} (${key}).`;
      }
    } catch (error) {
      reason = `${diskstatsPath} cannot be read (${errorClause(error)}), so device counters are unavailable.`;
    }
  }
  return {
    unavailableReason: reason,
    sample() {
      if (reason !== null) return null;
      try {
        return readDiskstats(diskstatsPath);
      } catch {
        return null;
      }
    },
    report(before, after) {
      if (reason !== null || !resolution.available) {
        return { available: false, reason: reason ?? "no block device." };
      }
      if (before === null || after === null) {
        return { available: false, reason: `${diskstatsPath} could not be read before and after the scan.` };
      }
      const d = resolution.device;
      const key = `${d.major}:${d.minor}`;
      const a = before.get(key);
      const b = after.get(key);
      if (a === undefined || b === undefined) {
        return { available: false, reason: `${diskstatsPath} lost the line for device ${d.name} (${key}).` };
      }
      const physical: DeviceDelta[] = [];
      for (const p of resolution.physical) {
        const pk = `${p.major}:${p.minor}`;
        const pa = before.get(pk);
        const pb = after.get(pk);
        if (pa !== undefined && pb !== undefined) physical.push(delta(p, pa, pb));
      }
      return { available: true, kind: d.kind, ...delta(d, a, b), physical, caveat: DISKSTATS_CAVEAT };
    },
  };
}

/**
 * The request queue's limits of a block device, from sysfs (`queue/` of the
 * device, or of its parent disk for a partition, which has no queue of its
 * own and shares the disk's): `read_ahead_kb` is copied into each file's
 * readahead state at open, `max_sectors_kb` bounds each request
 * (Documentation/ABI/stable/sysfs-block).
 */
export interface BlockQueueLimits {
  /** The `queue/` directory read. */
  readonly queueDir: string;
  /** `queue/read_ahead_kb`. */
  readonly readAheadKb: number;
  /** `queue/max_sectors_kb`. */
  readonly maxSectorsKb: number;
  /** `queue/max_segments` (0 if unreadable). */
  readonly maxSegments: number;
  /** `queue/logical_block_size`: the smallest request the device takes (512 if unreadable). */
  readonly logicalBlockBytes: number;
}

function readNumber(path: string): number {
  return Number(readFileSync(path, "utf8").trim());
}

/**
 * The queue limits of the block device `major:minor`, or null when sysfs has
 * no readable `queue/read_ahead_kb` for it.
 *
 * @example
 * ```ts
 * import { statSync } from "node:fs";
 * import { blockQueueLimits, deviceNumbers } from "@scanlab/host";
 * const q = blockQueueLimits(deviceNumbers(statSync("/tmp", { bigint: true }).dev));
 * console.log(q === null ? "no block device" : `read_ahead_kb ${q.readAheadKb}`);
 * ```
 */
export function blockQueueLimits(numbers: DeviceNumbers, paths: KernelPaths = {}): BlockQueueLimits | null {
  const sysRoot = paths.sysRoot ?? "/sys";
  let dir: string;
  try {
    dir = realpathSync(join(sysRoot, "dev", "block", `${numbers.major}:${numbers.minor}`));
  } catch {
    return null;
  }
  let queueDir = join(dir, "queue");
  if (!existsSync(queueDir)) queueDir = join(dirname(dir), "queue");
  if (!existsSync(join(queueDir, "read_ahead_kb"))) return null;
  const optional = (file: string, fallback: number) =>
    existsSync(join(queueDir, file)) ? readNumber(join(queueDir, file)) : fallback;
  return {
    queueDir,
    readAheadKb: readNumber(join(queueDir, "read_ahead_kb")),
    maxSectorsKb: readNumber(join(queueDir, "max_sectors_kb")),
    maxSegments: optional("max_segments", 0),
    logicalBlockBytes: optional("logical_block_size", 512),
  };
}

/** The file-system type mounted from device `major:minor` (/proc/self/mountinfo), or "unknown". */
export function mountedFileSystem(numbers: DeviceNumbers, mountinfo = "/proc/self/mountinfo"): string {
  const majorMinor = `${numbers.major}:${numbers.minor}`;
  try {
    for (const line of readFileSync(mountinfo, "utf8").split("\n")) {
      const f = line.split(" ");
      if (f[2] !== majorMinor) continue;
      const sep = f.indexOf("-");
      if (sep > 0 && f[sep + 1] !== undefined) return f[sep + 1]!;
    }
  } catch {
    // not Linux, or no /proc: unknown
  }
  return "unknown";
}
