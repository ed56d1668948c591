/**
 * What every device model answers, and the bookkeeping they share.
 *
 * The simulator owns time. It calls `submit(offsetBytes, bytes, nowUs)` with
 * nondecreasing `nowUs` and gets the read's completion time back at once; the
 * model keeps only the state it needs to answer the next call (when each
 * internal unit is next free, where the disk head is, how much budget a cloud
 * volume has left). It never reads a clock, draws no random numbers and
 * allocates nothing per request, so the same trace gives the same answers and
 * tens of millions of reads cost seconds (`npm run bench`).
 *
 * Reads larger than `maxIoBytes` are split into `maxIoBytes` pieces, as the
 * Linux block layer splits a bio above the queue's `max_sectors_kb`, and
 * complete when the last piece does. RAID0 also splits at chunk boundaries
 * (md's `chunk_sectors`, apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0).
 *
 * `stats()` reports what iostat would: requests, bytes, busy time (the union of
 * the intervals with at least one read in flight, iostat's %util), and the
 * mean number of reads in flight (sum of latencies over the span: Little's
 * law). The figures count every read submitted so far, including the parts of
 * their service that lie after the last `nowUs` seen.
 */
import type { DeviceKind, DeviceProfile } from "./profile-schema.js";

/** Counters of a device model since it was created (or last reset). */
export interface DeviceStats {
  /** Reads submitted (as the caller submitted them, before any splitting). */
  readonly requests: number;
  /** Bytes read. */
  readonly bytes: number;
  /** I/Os the device actually served after splitting (pieces, RAID member I/Os, counted cloud I/Os). */
  readonly deviceRequests: number;
  /** Time with at least one read in flight, in microseconds (iostat %util numerator). */
  readonly busyUs: number;
  /** Sum of (completion - submission) over all reads, in microseconds. */
  readonly totalLatencyUs: number;
  /** Mean completion latency in microseconds (0 before the first read). */
  readonly meanLatencyUs: number;
  /** Submission time of the first read, in microseconds (NaN before the first read). */
  readonly firstSubmitUs: number;
  /** Latest completion time of any read so far, in microseconds. */
  readonly lastCompletionUs: number;
  /** lastCompletionUs - firstSubmitUs (0 before the first read). */
  readonly spanUs: number;
  /** busyUs / spanUs: the fraction of the span the device was busy (0..1). */
  readonly utilisation: number;
  /** totalLatencyUs / spanUs: mean reads in flight over the span (Little's law). */
  readonly meanQueueDepth: number;
}

/**
 * A device model: a pure state machine that turns reads into completion times.
 *
 * @example
 * ```ts
 * import { createDeviceModel, getBuiltinProfile } from "@scanlab/device-profiles";
 * const ssd = createDeviceModel(getBuiltinProfile("intel-ssd-320-120gb"));
 * const done = ssd.submit(0, 8192, 0);     // one 8 KiB read at t = 0
 * console.log(done.toFixed(1), "us");     // about 90 us
 * console.log(ssd.readAheadKbDefault);   // 128
 * ```
 */
export interface DeviceModel {
  /** The profile the model was built from. */
  readonly profile: DeviceProfile;
  /** The profile's kind. */
  readonly kind: DeviceKind;
  /** Largest read the device (or RAID member) accepts in one I/O; the OS splits above it. */
  readonly maxIoBytes: number;
  /**
   * The `read_ahead_kb` Linux (~5.9 and later) sets for this device: max(2 x io_opt, 128 KiB),
   * apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0. Older kernels gave every device 128 KiB except md raid0, whose
   * `raid0_run()` set the same value as this.
   */
  readonly readAheadKbDefault: number;
  /**
   * Submits a read and returns its completion time.
   * @param offsetBytes byte offset on the device
   * @param bytes read size in bytes (> 0)
   * @param nowUs submission time in microseconds, nondecreasing across calls
   * @returns completion time in microseconds (>= nowUs)
   */
  submit(offsetBytes: number, bytes: number, nowUs: number): number;
  /** Counters since creation or the last `reset()`. */
  stats(): DeviceStats;
  /** Forgets all state (queues, head position, budgets, counters): an idle device at time 0. */
  reset(): void;
}

/** Linux's default read-ahead, 128 KiB (`VM_READAHEAD_PAGES`; apps/docs/src/reference/experiments.md#t12-constants-the-simulator-encodes, apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0). */
export const LINUX_DEFAULT_READ_AHEAD_KB = 128;

/**
 * The `read_ahead_kb` Linux (>= 5.9) sets for a block device: max(2 x io_opt,
 * 128 KiB). apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0: C. Hellwig, "block: lift setting the
 * readahead size into the block layer"; the same value as md raid0's older
 * "readahead at least twice a whole stripe" rule.
 *
 * @param optimalIoBytes the device's io_opt in bytes (0 when it reports none)
 */
export function linuxReadAheadKb(optimalIoBytes: number): number {
  return Math.max((2 * optimalIoBytes) / 1024, LINUX_DEFAULT_READ_AHEAD_KB);
}

/** @internal Shared counters; every model owns one and calls `record` once per submitted read. */
export class StatsRecorder {
  requests = 0;
  bytes = 0;
  deviceRequests = 0;
  busyUs = 0;
  totalLatencyUs = 0;
  firstSubmitUs = Number.NaN;
  lastCompletionUs = 0;
  private busyUntilUs = Number.NEGATIVE_INFINITY;

  record(nowUs: number, completionUs: number, bytes: number): void {
    if (this.requests === 0) this.firstSubmitUs = nowUs;
    this.requests++;
    this.bytes += bytes;
    this.totalLatencyUs += completionUs - nowUs;
    // Submissions arrive in time order, so the union of [now, completion)
    // intervals grows only at its end.
    if (completionUs > this.busyUntilUs) {
      this.busyUs += completionUs - Math.max(nowUs, this.busyUntilUs);
      this.busyUntilUs = completionUs;
      this.lastCompletionUs = completionUs;
    }
  }

  snapshot(): DeviceStats {
    const spanUs = this.requests === 0 ? 0 : this.lastCompletionUs - this.firstSubmitUs;
    return {
      requests: this.requests,
      bytes: this.bytes,
      deviceRequests: this.deviceRequests,
      busyUs: this.busyUs,
      totalLatencyUs: this.totalLatencyUs,
      meanLatencyUs: this.requests === 0 ? 0 : this.totalLatencyUs / this.requests,
      firstSubmitUs: this.firstSubmitUs,
      lastCompletionUs: this.lastCompletionUs,
      spanUs,
      utilisation: spanUs > 0 ? this.busyUs / spanUs : 0,
      meanQueueDepth: spanUs > 0 ? this.totalLatencyUs / spanUs : 0,
    };
  }

  reset(): void {
    this.requests = 0;
    this.bytes = 0;
    this.deviceRequests = 0;
    this.busyUs = 0;
    this.totalLatencyUs = 0;
    this.firstSubmitUs = Number.NaN;
    this.lastCompletionUs = 0;
    this.busyUntilUs = Number.NEGATIVE_INFINITY;
  }
}

/** @internal Programming-error check shared by the models (cheap enough for the hot path). */
export function badRead(offsetBytes: number, bytes: number, nowUs: number): RangeError {
  return new RangeError(
    `submit(offsetBytes=${offsetBytes}, bytes=${bytes}, nowUs=${nowUs}): bytes must be > 0, offset >= 0 and nowUs finite`,
  );
}
