/**
 * DOC: from measured read points to a flash profile.
 *
 * fio (`fio-import.ts`) and the Node calibration (`node.ts`) both end with a
 * list of measured points: pattern, read size, queue depth, IOPS, bytes per
 * second and mean latency. A flash profile needs four figures, read off those
 * points the way a datasheet would state them:
 *
 * - readLatencyQd1Us: the mean latency of the smallest random read measured at
 *   queue depth 1 (that read size becomes latencyReadBytes);
 * - randomReadIops: the highest IOPS of random reads of that size, at any
 *   depth (and at least 1 / latency, what the QD1 point itself implies);
 *   randomReadQueueDepth: the depth it was measured at, raised if
 *   needed to Little's law's IOPS x latency (noise can make a point look
 *   faster than its depth allows);
 * - sequentialReadBytesPerSecond: the highest bandwidth of any point. The data
 *   path is at least that fast whatever the pattern, and it must carry the
 *   random peak and a QD1 read in its measured time (flash-queue.ts), so it is
 *   at least randomReadIops x read size and read size / latency as well. When
 *   only QD1 sequential reads were measured (the Node calibration), this is a
 *   lower bound, and the profile's note says so.
 *
 * These figures describe the device the way a datasheet would. The model
 * itself runs on `queueModel`: the flash queue's parameters fitted by least
 * squares to all the points (`queue-fit.ts`), so the model reproduces the
 * measured curve between the datasheet figures too (a gradual knee, the
 * bandwidth at each read size), and `internalReadAhead` when the fit finds
 * that sequential reads are served from a read-ahead. All the points are kept in the profile
 * (`measurements`); `modelAtPoints` compares them with the model.
 *
 * The largest I/O is the device's max_sectors_kb when the caller read it
 * (`calibrate` does, from sysfs), else the built-ins' 512 KiB, assumed.
 */
import { mibPerSFromBytesPerSecond, THROUGHPUT_UNIT } from "@scanlab/core";
import { DeviceProfileError } from "./errors.js";
import { parseDeviceProfile } from "./parse-profile.js";
import type { FlashProfile, MachineCpuCosts, ReadMeasurement } from "./profile-schema.js";
import { fitFlashQueue } from "./queue-fit.js";
import { KiB, US_PER_S } from "./units.js";

/** Labels and options of {@link profileFromMeasurements}. */
export interface MeasuredProfileOptions {
  /** Profile name (default `measured-ssd`). */
  readonly name?: string;
  /** Human-readable title. */
  readonly title?: string;
  /** Flash kind (default `ssd`: interface unknown). */
  readonly kind?: "sata-ssd" | "nvme" | "ssd";
  /** How it was measured (tool, engine, options, file, date), kept as `measuredWith` and in `sources`. */
  readonly measuredWith: string;
  /** Extra source lines. */
  readonly sources?: readonly string[];
  /** Extra assumption text. */
  readonly note?: string;
  /** Largest I/O (default 512 KiB, the built-ins' assumption). */
  readonly maxIoBytes?: number;
  /** Where `maxIoBytes` was read (e.g. the sysfs file and its value); absent = assumed. */
  readonly maxIoSource?: string;
  /** CPU costs of reads from the page cache measured on the same machine. */
  readonly cpu?: MachineCpuCosts;
  /** Fit the flash queue to the points (default true). */
  readonly fit?: boolean;
  /** Capacity of the device, when known. */
  readonly capacityBytes?: number;
}

/**
 * Builds a flash profile from measured read points (see the header of
 * `measured-profile.ts`).
 *
 * @throws DeviceProfileError (code FIO_JSON_INVALID) when no random read at queue depth 1 was measured
 *
 * @example
 * ```ts
 * import { profileFromMeasurements } from "@scanlab/device-profiles";
 * const p = profileFromMeasurements(
 *   [
 *     { pattern: "random", blockBytes: 4096, queueDepth: 1, iops: 10000, bytesPerSecond: 40.96e6, meanLatencyUs: 100 },
 *     { pattern: "random", blockBytes: 4096, queueDepth: 32, iops: 200000, bytesPerSecond: 819.2e6, meanLatencyUs: 160 },
 *     { pattern: "sequential", blockBytes: 131072, queueDepth: 32, iops: 15000, bytesPerSecond: 1.97e9, meanLatencyUs: 2100 },
 *   ],
 *   { measuredWith: "example figures" },
 * );
 * console.log(p.readLatencyQd1Us, p.randomReadIops, p.sequentialReadBytesPerSecond); // 100 200000 1970000000
 * ```
 */
export function profileFromMeasurements(
  measurements: readonly ReadMeasurement[],
  options: MeasuredProfileOptions,
): FlashProfile {
  const qd1Random = measurements
    .filter((m) => m.pattern === "random" && m.queueDepth === 1 && m.meanLatencyUs > 0)
    .sort((a, b) => a.blockBytes - b.blockBytes)[0];
  if (qd1Random === undefined) {
    throw new DeviceProfileError(
      "FIO_JSON_INVALID",
      `The measurements of ${options.measuredWith} have no random read at queue depth 1, which a profile's latency needs.`,
    );
  }
  const smallBytes = qd1Random.blockBytes;
  const latencyUs = qd1Random.meanLatencyUs;
  let peak = qd1Random;
  for (const m of measurements) {
    if (m.pattern === "random" && m.blockBytes === smallBytes && m.iops > peak.iops) peak = m;
  }
  const iops = Math.max(peak.iops, US_PER_S / latencyUs);
  let bandwidth = iops * smallBytes;
  for (const m of measurements) bandwidth = Math.max(bandwidth, m.bytesPerSecond);
  bandwidth = Math.max(bandwidth, (smallBytes / latencyUs) * US_PER_S);
  const needed = (iops * latencyUs) / US_PER_S;
  const queueDepth = Math.max(peak.queueDepth, Math.ceil(needed - 1e-9));
  const deepSequential = measurements.some((m) => m.pattern === "sequential" && m.queueDepth > 1);
  const describe = (m: ReadMeasurement) =>
    `${m.pattern} ${m.blockBytes / KiB} KiB QD${m.queueDepth}: ${Math.round(m.iops)} IOPS, ` +
    `${mibPerSFromBytesPerSecond(m.bytesPerSecond).toFixed(1)} ${THROUGHPUT_UNIT}, ${m.meanLatencyUs.toFixed(1)} us`;
  const maxIoBytes = options.maxIoBytes ?? 512 * KiB;
  const fit = options.fit === false ? undefined : fitFlashQueue(measurements, maxIoBytes);
  return parseDeviceProfile(
    {
      kind: options.kind ?? "ssd",
      name: options.name ?? "measured-ssd",
      title: options.title ?? `Measured device (${options.measuredWith})`,
      basis: "measurement",
      measuredWith: options.measuredWith,
      sources: [`measurement: ${options.measuredWith}`, ...(options.sources ?? [])],
      note:
        `Measured (measured-profile.ts): latency from ${describe(qd1Random)}; IOPS peak from ${describe(peak)}` +
        `${peak.queueDepth < queueDepth ? ` (depth raised to ${queueDepth} by Little's law)` : ""}; ` +
        `sequential ceiling = highest measured bandwidth${deepSequential ? "" : " (only QD1 sequential reads were measured: a lower bound)"}.` +
        (fit === undefined
          ? ""
          : ` queueModel: least-squares fit of the flash queue to the ${measurements.length} points (queue-fit.ts), rms ln(model/measured) ${fit.rmsLogError.toFixed(3)}` +
            (fit.readAhead === false
              ? "; no read-ahead for sequential streams (the points are better told without one)."
              : `; a read-ahead for sequential streams of ${fit.readAhead.bufferBytes / KiB} KiB, a hit ${fit.readAhead.hitLatencyUs.toFixed(1)} us.`)) +
        ` Largest I/O ${maxIoBytes / KiB} KiB (${options.maxIoSource ?? "assumed, the built-ins' figure"}).` +
        (options.note ? ` ${options.note}` : ""),
      maxIoBytes,
      ...(options.capacityBytes !== undefined ? { capacityBytes: options.capacityBytes } : {}),
      readLatencyQd1Us: latencyUs,
      latencyReadBytes: smallBytes,
      sequentialReadBytesPerSecond: bandwidth,
      sequentialReadBlockBytes: bestSequentialBlock(measurements),
      randomReadIops: iops,
      randomReadBlockBytes: smallBytes,
      randomReadQueueDepth: queueDepth,
      measurements: measurements.map((m) => ({ ...m })),
      ...(fit === undefined ? {} : { queueModel: fit.queueModel }),
      ...(fit === undefined || fit.readAhead === false ? {} : { internalReadAhead: fit.readAhead }),
      ...(options.cpu === undefined ? {} : { cpu: options.cpu }),
    },
    `measurement ${options.measuredWith}`,
  ) as FlashProfile;
}

function bestSequentialBlock(measurements: readonly ReadMeasurement[]): number {
  let best: ReadMeasurement | undefined;
  for (const m of measurements) {
    if (m.pattern === "sequential" && (best === undefined || m.bytesPerSecond > best.bytesPerSecond))
      best = m;
  }
  // No sequential measurement: Linux's default 128 KiB read-ahead (apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0), the built-ins' sequential size.
  return best?.blockBytes ?? 128 * KiB;
}
