/**
 * Derived figures: what a device does at a given queue depth and read size.
 *
 * `throughputAt` runs the device model itself in a closed loop, the way fio
 * runs a job with `iodepth=Q`: Q reads are submitted at time 0, and each time
 * one completes the next is submitted at that instant, so exactly Q reads are
 * in flight all the time. After a warm-up it counts completions over a window
 * and reports IOPS, bytes per second and the mean latency. Because the loop is
 * closed, Little's law holds by construction (Q = IOPS x mean latency), which
 * the tests use as a check of the models' bookkeeping; and because it goes
 * through the model, a datasheet figure reproduced here is reproduced by the
 * simulator too.
 *
 * Offsets: `sequential` is one stream (each read starts where the previous one
 * submitted ended, like fio `rw=read`), `random` draws read-aligned offsets
 * uniformly over `spanBytes` with a seeded generator: by default the whole disk
 * for a rotating disk (datasheet average seeks are over the full stroke), and
 * 8 GiB otherwise (Intel's IOPS test span, apps/docs/src/reference/storage-device-models.md#intel-ssd-320).
 */

import { mulberry32 } from "@scanlab/core";
import { createDeviceModel } from "./create-device-model.js";
import type { DeviceProfile } from "./profile-schema.js";
import { GiB, US_PER_S } from "./units.js";

/** Workload of {@link throughputAt}. */
export interface ThroughputWorkload {
  /** Reads kept in flight (>= 1). */
  readonly queueDepth: number;
  /** Bytes per read. */
  readonly requestBytes: number;
  /** `random` (default) or `sequential` (one stream). */
  readonly pattern?: "random" | "sequential";
  /** Random offsets are drawn over [startOffsetBytes, startOffsetBytes + spanBytes). */
  readonly spanBytes?: number;
  /** First offset (default 0). */
  readonly startOffsetBytes?: number;
  /** Reads counted after the warm-up (default max(2000, 20 x queueDepth)). */
  readonly requests?: number;
  /** Seed of the random offsets (default 1). */
  readonly seed?: number;
}

/** What {@link throughputAt} measured through the model. */
export interface ThroughputResult {
  /** Completed reads per second. */
  readonly iops: number;
  /** Bytes per second. */
  readonly bytesPerSecond: number;
  /** Mean completion latency in microseconds. */
  readonly meanLatencyUs: number;
}

/**
 * Runs the device model in a closed loop at a queue depth and read size and
 * reports what it delivers (see the header of `throughput.ts`).
 *
 * @example
 * ```ts
 * import { getBuiltinProfile, throughputAt } from "@scanlab/device-profiles";
 * const intel320 = getBuiltinProfile("intel-ssd-320-120gb");
 * const r = throughputAt(intel320, { queueDepth: 32, requestBytes: 4096 });
 * console.log(Math.round(r.iops)); // 38000, the datasheet's random 4 KB read at QD32
 * ```
 */
export function throughputAt(profile: DeviceProfile, workload: ThroughputWorkload): ThroughputResult {
  const q = Math.floor(workload.queueDepth);
  if (!(q >= 1)) throw new RangeError(`throughputAt: queueDepth must be >= 1, got ${workload.queueDepth}`);
  const bytes = workload.requestBytes;
  if (!(bytes > 0)) throw new RangeError(`throughputAt: requestBytes must be > 0, got ${bytes}`);
  const sequential = workload.pattern === "sequential";
  const start = workload.startOffsetBytes ?? 0;
  const span = workload.spanBytes ?? defaultSpanBytes(profile);
  const slots = Math.max(1, Math.floor(span / bytes));
  const random = mulberry32(workload.seed ?? 1);
  // Sample sizes are our choice (no reference gives them): enough reads that the queue fills (4 x depth, at
  // least 200) before counting, and 20 x depth (at least 2000) counted reads for a steady mean.
  const measured = workload.requests ?? Math.max(2000, 20 * q);
  const warmup = Math.max(200, 4 * q);

  const model = createDeviceModel(profile);
  let nextSequential = start;
  const nextOffset = (): number => {
    if (sequential) {
      const o = nextSequential;
      nextSequential += bytes;
      return o;
    }
    return start + Math.floor(random.nextFloat() * slots) * bytes;
  };
  const submittedUs = new Float64Array(q);
  const completionUs = new Float64Array(q);
  for (let i = 0; i < q; i++) completionUs[i] = model.submit(nextOffset(), bytes, 0);

  let completed = 0;
  let windowStartUs = 0;
  let windowEndUs = 0;
  let latencySumUs = 0;
  while (completed < warmup + measured) {
    let slot = 0;
    for (let i = 1; i < q; i++) if (completionUs[i]! < completionUs[slot]!) slot = i;
    const t = completionUs[slot]!;
    completed++;
    if (completed === warmup) windowStartUs = t;
    else if (completed > warmup) {
      latencySumUs += t - submittedUs[slot]!;
      windowEndUs = t;
    }
    submittedUs[slot] = t;
    completionUs[slot] = model.submit(nextOffset(), bytes, t);
  }
  const iops = (measured * US_PER_S) / (windowEndUs - windowStartUs);
  return { iops, bytesPerSecond: iops * bytes, meanLatencyUs: latencySumUs / measured };
}

function defaultSpanBytes(profile: DeviceProfile): number {
  if (profile.kind === "hdd") return profile.capacityBytes;
  if (profile.kind === "raid0" && profile.member.kind === "hdd")
    return profile.member.capacityBytes * profile.memberCount;
  // Flash has no seek, so the span only has to exceed any cache; 8 GiB is our choice, not a datasheet figure.
  return 8 * GiB;
}
