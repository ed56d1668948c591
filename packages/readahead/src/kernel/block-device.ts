/**
 * Which block device holds a file, and its readahead parameters, for holding
 * the `linux` model against the machine (Node-only).
 *
 * The device is resolved and read by `@scanlab/host` (block-device.ts): the
 * file's `st_dev` gives `major:minor`, `/sys/dev/block/MAJ:MIN` the device.
 * A partition (`vda1`) has no `queue/` directory of its own: its readahead
 * and request limits are the parent disk's (the partition shares the disk's
 * `backing_dev_info`), while `/proc/diskstats` has a line for the partition
 * itself. A device-mapper volume (`dm-0`) has its own queue and its own
 * diskstats line. Readahead (`read_ahead_kb`) is the backing device's, copied
 * into each file at open; `max_sectors_kb` bounds each request
 * (apps/docs/src/reference/linux-readahead-window.md#readahead-parameters,
 * #submission).
 *
 * What this file adds is the measurement's view: one record with what the
 * model needs, and a {@link ReadaheadError} saying what is missing where the
 * kernel cannot be measured (no block device, no queue, no diskstats line).
 */
import { statSync } from "node:fs";
import {
  blockQueueLimits,
  type DiskReadCounters,
  deviceNumbers,
  mountedFileSystem,
  readDiskstats as readAllDiskstats,
  resolveBlockDevice as resolveDevice,
} from "@scanlab/host";
import { ReadaheadError } from "../errors.js";

export type { DiskReadCounters } from "@scanlab/host";

/** The block device behind a file. */
export interface BlockDevice {
  /** `major:minor` of the file's `st_dev`: its `/proc/diskstats` line. */
  majorMinor: string;
  /** Kernel name (`vda`, `vda1`, `dm-0`, `loop0`). */
  name: string;
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

/** Finds the block device that holds `path` (a file or directory). */
export function resolveBlockDevice(path: string): BlockDevice {
  const numbers = deviceNumbers(statSync(path, { bigint: true }).dev);
  const majorMinor = `${numbers.major}:${numbers.minor}`;
  const r = resolveDevice(numbers);
  if (!r.available) {
    throw new ReadaheadError(
      "READAHEAD_MEASUREMENT_UNAVAILABLE",
      `${path} is on device ${majorMinor}, which is not a block device with sysfs statistics (tmpfs, overlay or a network file system?).`,
    );
  }
  const queue = blockQueueLimits(numbers);
  if (queue === null) {
    throw new ReadaheadError(
      "READAHEAD_MEASUREMENT_UNAVAILABLE",
      `Device ${r.device.name} (${majorMinor}) has no readable queue/read_ahead_kb in sysfs.`,
    );
  }
  return {
    majorMinor,
    name: r.device.name,
    ...queue,
    fsType: mountedFileSystem(numbers),
  };
}

/** Read counters of `device` from `/proc/diskstats`. */
export function readDiskstats(device: Pick<BlockDevice, "majorMinor" | "name">): DiskReadCounters {
  let all: Map<string, DiskReadCounters>;
  try {
    all = readAllDiskstats();
  } catch {
    throw new ReadaheadError(
      "READAHEAD_MEASUREMENT_UNAVAILABLE",
      "/proc/diskstats cannot be read on this machine.",
    );
  }
  const line = all.get(device.majorMinor);
  if (line === undefined) {
    throw new ReadaheadError(
      "READAHEAD_MEASUREMENT_UNAVAILABLE",
      `/proc/diskstats has no line for device ${device.name} (${device.majorMinor}).`,
    );
  }
  return line;
}
