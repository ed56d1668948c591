/**
 * Which block device holds a file, what its readahead parameters are, and
 * what it has done so far (Node-only).
 *
 * The file's `st_dev` gives `major:minor`; `/sys/dev/block/MAJ:MIN` links to
 * the device's sysfs directory. A partition (`vda1`) has no `queue/`
 * directory of its own: its readahead and request limits are the parent
 * disk's (the partition shares the disk's `backing_dev_info`), while
 * `/proc/diskstats` has a line for the partition itself. A device-mapper
 * volume (`dm-0`) has its own queue and its own diskstats line. Readahead
 * (`read_ahead_kb`) is the backing device's, copied into each file at open
 * (apps/docs/src/reference/linux-readahead-window.md#readahead-parameters); `max_sectors_kb` bounds each request (apps/docs/src/reference/linux-readahead-window.md#readahead-parameters, apps/docs/src/reference/linux-readahead-window.md#submission).
 *
 * `/proc/diskstats` fields (Documentation/admin-guide/iostats.rst): after
 * major, minor and name come reads completed, reads merged, sectors read
 * (512 bytes), ms spent reading, then the same four for writes.
 */
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { ReadaheadError } from "../errors.js";

/** The block device behind a file. */
export interface BlockDevice {
  /** `major:minor` of the file's `st_dev`. */
  majorMinor: string;
  /** Kernel name (`vda`, `vda1`, `dm-0`, `loop0`): the `/proc/diskstats` line. */
  name: string;
  /** sysfs directory of the device. */
  sysfsDir: string;
  /** sysfs `queue/` directory used for the parameters (the parent disk's for a partition). */
  queueDir: string;
  /** `queue/read_ahead_kb`. */
  readAheadKb: number;
  /** `queue/max_sectors_kb`. */
  maxSectorsKb: number;
  /** `queue/max_segments` (0 if unreadable). */
  maxSegments: number;
  /** `queue/logical_block_size`: the smallest request the device takes (512 if unreadable). */
  logicalBlockBytes: number;
  /** File-system type mounted from it (from /proc/self/mountinfo), or "unknown". */
  fsType: string;
}

/** Read counters of one `/proc/diskstats` line. */
export interface DiskReadCounters {
  /** Reads completed. */
  reads: number;
  /** Reads merged into others before dispatch. */
  readsMerged: number;
  /** Sectors read (512 bytes). */
  sectorsRead: number;
  /** Milliseconds spent reading. */
  readMs: number;
}

function readNumber(path: string): number {
  return Number(readFileSync(path, "utf8").trim());
}

/** Finds the block device that holds `path` (a file or directory). */
export function resolveBlockDevice(path: string): BlockDevice {
  const st = statSync(path);
  // glibc makedev(): major bits 0-11 at 8-19 and 12-31 at 44-63; minor bits 0-7 at 0-7 and 8-31 at 20-43.
  const dev = Number(st.dev);
  const major = (((dev >>> 8) & 0xfff) | (Math.floor(dev / 2 ** 32) & 0xfffff000)) >>> 0;
  const minor = ((dev & 0xff) | (Math.floor(dev / 4096) & 0xffffff00)) >>> 0;
  const majorMinor = `${major}:${minor}`;
  const link = `/sys/dev/block/${majorMinor}`;
  if (major === 0 || !existsSync(link)) {
    throw new ReadaheadError(
      "READAHEAD_MEASUREMENT_UNAVAILABLE",
      `${path} is on device ${majorMinor}, which is not a block device with sysfs statistics (tmpfs, overlay or a network file system?).`,
    );
  }
  const sysfsDir = realpathSync(link);
  const name = basename(sysfsDir);
  let queueDir = join(sysfsDir, "queue");
  if (!existsSync(queueDir)) queueDir = join(dirname(sysfsDir), "queue"); // partition: the parent disk's
  if (!existsSync(join(queueDir, "read_ahead_kb"))) {
    throw new ReadaheadError(
      "READAHEAD_MEASUREMENT_UNAVAILABLE",
      `Device ${name} (${majorMinor}) has no readable queue/read_ahead_kb in sysfs.`,
    );
  }
  const maxSegPath = join(queueDir, "max_segments");
  return {
    majorMinor,
    name,
    sysfsDir,
    queueDir,
    readAheadKb: readNumber(join(queueDir, "read_ahead_kb")),
    maxSectorsKb: readNumber(join(queueDir, "max_sectors_kb")),
    maxSegments: existsSync(maxSegPath) ? readNumber(maxSegPath) : 0,
    logicalBlockBytes: existsSync(join(queueDir, "logical_block_size"))
      ? readNumber(join(queueDir, "logical_block_size"))
      : 512,
    fsType: fsTypeOf(majorMinor),
  };
}

function fsTypeOf(majorMinor: string): string {
  try {
    for (const line of readFileSync("/proc/self/mountinfo", "utf8").split("\n")) {
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

/** Read counters of device `name` from `/proc/diskstats`. */
export function readDiskstats(name: string): DiskReadCounters {
  let text: string;
  try {
    text = readFileSync("/proc/diskstats", "utf8");
  } catch {
    throw new ReadaheadError(
      "READAHEAD_MEASUREMENT_UNAVAILABLE",
      "/proc/diskstats cannot be read on this machine.",
    );
  }
  for (const line of text.split("\n")) {
    const f = line.trim().split(/\s+/);
    if (f[2] === name) {
      return {
        reads: Number(f[3]),
        readsMerged: Number(f[4]),
        sectorsRead: Number(f[5]),
        readMs: Number(f[6]),
      };
    }
  }
  throw new ReadaheadError(
    "READAHEAD_MEASUREMENT_UNAVAILABLE",
    `/proc/diskstats has no line for device ${name}.`,
  );
}
