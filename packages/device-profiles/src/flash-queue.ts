/**
 * DOC: the flash queue model (SATA SSD, NVMe, an SSD of unknown interface).
 *
 * A read on an SSD goes through three stages:
 *
 *   1. the command path (host interface, controller firmware, completion):
 *      a fixed delay that does not hold any shared resource;
 *   2. a flash read on one of the drive's internal parallel units (dies,
 *      planes, channels as the firmware schedules them). A unit is busy for
 *      the same time whatever the read size: the first page has to be sensed
 *      before anything moves, and the datasheets give no second figure to make
 *      it size-dependent;
 *   3. the data transfer over the shared data path (flash channels into the
 *      controller, then the SATA link or PCIe lanes) at the sequential read
 *      bandwidth, one read after another.
 *
 * A datasheet gives four numbers, and they pin these stages down:
 *
 *   L  latency of one small read (b_L bytes, 4 KiB) at queue depth 1
 *   B  sequential read bandwidth at a deep queue (the data path's rate)
 *   R  maximum random-read IOPS, reached at queue depth Q_R
 *
 * - The data path moves B bytes/s. A b-byte read holds it for b / B: that is
 *   the sequential ceiling, reached whenever enough large reads are queued.
 * - At queue depth 1 nothing waits, so L = fixed + unitBusy + b_L / B. The
 *   time a small read spends outside the data path is budget = L - b_L / B.
 * - The unit stage caps small reads at N / unitBusy reads per second; that
 *   must be R. Little's law at the knee says about R x budget reads are in the
 *   unit stage when it saturates, so N = floor(R x budget) units (at least 1,
 *   at most Q_R), each busy unitBusy = N / R, and what is left of the budget
 *   is the fixed command-path delay: fixed = budget - unitBusy >= 0.
 * - Q_R is a check, not a parameter: a device cannot reach R with Q_R reads in
 *   flight unless R x L_R <= Q_R (Little's law with the QD1 latency L_R of
 *   an R-sized read); `profile-consistency.ts` rejects profiles that break it,
 *   e.g. a multi-queue aggregate IOPS figure quoted "at QD32".
 *
 * Worked example, Intel SSD 320 120 GB (apps/docs/src/reference/storage-device-models.md#intel-ssd-320): L = 75 us,
 * B = 270 MB/s, R = 38 000 at QD32. b_L / B = 4096 / 270 = 15.2 us, budget =
 * 59.8 us, R x budget = 2.27, so N = 2 units busy 52.6 us each and a 7.2 us
 * command path. Then an 8 KiB read at QD1 takes 7.2 + 52.6 + 30.3 = 90 us
 * (apps/docs/src/reference/storage-device-models.md infers "about 100 us"), a 128 KiB read 545 us, i.e. 240 MB/s
 * ("about 250 MB/s ... the link, not the flash, is what limits large reads even
 * at QD1"), QD32 4 KiB reads reach min(32 / 75 us, 2 / 52.6 us, 270 MB/s /
 * 4 KiB) = 38 000 IOPS and QD32 128 KiB reads 270 MB/s.
 *
 * Because every unit is busy for the same time and reads arrive in time order,
 * the unit that frees first is always the one used longest ago: the N units
 * are a ring, and a read costs O(1) whatever N is. The data path is FIFO too.
 *
 * Not modelled (no source gives a figure): the drive's NCQ depth limit (reads
 * beyond it wait in the host queue, which changes nothing in a FIFO model),
 * writes, garbage collection, thermal throttling, SLC caching (writes only,
 * apps/docs/src/reference/storage-device-models.md#samsung-990-pro). In-drive read-ahead for sequential streams is an
 * option (`internalReadAhead`): after `triggerSequentialReads` reads that each
 * start where the previous one ended, a read skips the unit stage and costs
 * `hitLatencyUs` instead. No built-in profile enables it: apps/docs/src/reference/storage-device-models.md says for
 * every drive that in-drive read-ahead is "not specified" or "unknown".
 */
import {
  badRead,
  type DeviceModel,
  type DeviceStats,
  linuxReadAheadKb,
  StatsRecorder,
} from "./device-model.js";
import type { FlashProfile } from "./profile-schema.js";
import { US_PER_S } from "./units.js";

/** The queue a flash profile turns into (see the file header for the derivation). */
export interface FlashQueueParameters {
  /** Internal parallel units N. */
  readonly units: number;
  /** Time a read holds a unit, in microseconds (the same for every read size). */
  readonly unitBusyUs: number;
  /** Command-path delay that holds no resource, in microseconds. */
  readonly fixedLatencyUs: number;
  /** Data-path rate in bytes per microsecond (the sequential read bandwidth). */
  readonly transferBytesPerUs: number;
  /** Time outside the data path of a small read at QD1: L - b_L / B, in microseconds. */
  readonly budgetUs: number;
}

/**
 * Derives the queue (units, unit busy time, command-path delay, data-path rate)
 * from a flash profile's datasheet figures. See the header of `flash-queue.ts`.
 *
 * @example
 * ```ts
 * import { flashQueueParameters, getBuiltinProfile } from "@scanlab/device-profiles";
 * const p = getBuiltinProfile("intel-ssd-320-120gb");
 * if (p.kind === "sata-ssd") console.log(flashQueueParameters(p).units); // 2
 * ```
 */
export function flashQueueParameters(profile: FlashProfile): FlashQueueParameters {
  const transferBytesPerUs = profile.sequentialReadBytesPerSecond / US_PER_S;
  const budgetUs = Math.max(0, profile.readLatencyQd1Us - profile.latencyReadBytes / transferBytesPerUs);
  const iopsPerUs = profile.randomReadIops / US_PER_S;
  // 1e-9: floating-point slack so a product that is a whole number in exact arithmetic does not floor one below it.
  const units = Math.min(Math.max(1, Math.floor(iopsPerUs * budgetUs + 1e-9)), profile.randomReadQueueDepth);
  const unitBusyUs = Math.min(units / iopsPerUs, budgetUs);
  return { units, unitBusyUs, fixedLatencyUs: budgetUs - unitBusyUs, transferBytesPerUs, budgetUs };
}

/**
 * The flash queue model: N units in a ring, a FIFO data path, a fixed delay.
 * Create it with {@link createDeviceModel}.
 */
export class FlashQueueModel implements DeviceModel {
  readonly profile: FlashProfile;
  readonly kind: FlashProfile["kind"];
  readonly maxIoBytes: number;
  readonly readAheadKbDefault: number;
  /** The derived queue. */
  readonly parameters: FlashQueueParameters;

  private readonly unitFreeUs: Float64Array;
  private readonly units: number;
  private readonly unitBusyUs: number;
  private readonly fixedLatencyUs: number;
  private readonly usPerByte: number;
  private readonly readAheadTrigger: number;
  private readonly readAheadHitUs: number;
  private nextUnit = 0;
  private pipeFreeUs = Number.NEGATIVE_INFINITY;
  private lastEndByte = -1;
  private sequentialRun = 0;
  private readonly recorder = new StatsRecorder();

  /** @param profile a parsed flash profile */
  constructor(profile: FlashProfile) {
    this.profile = profile;
    this.kind = profile.kind;
    this.maxIoBytes = profile.maxIoBytes;
    this.readAheadKbDefault = linuxReadAheadKb(profile.optimalIoBytes);
    this.parameters = flashQueueParameters(profile);
    this.units = this.parameters.units;
    this.unitBusyUs = this.parameters.unitBusyUs;
    this.fixedLatencyUs = this.parameters.fixedLatencyUs;
    this.usPerByte = 1 / this.parameters.transferBytesPerUs;
    this.unitFreeUs = new Float64Array(this.units).fill(Number.NEGATIVE_INFINITY);
    this.readAheadTrigger = profile.internalReadAhead?.triggerSequentialReads ?? Number.POSITIVE_INFINITY;
    this.readAheadHitUs = profile.internalReadAhead?.hitLatencyUs ?? 0;
  }

  submit(offsetBytes: number, bytes: number, nowUs: number): number {
    if (!(bytes > 0 && offsetBytes >= 0 && nowUs > Number.NEGATIVE_INFINITY))
      throw badRead(offsetBytes, bytes, nowUs);
    let completionUs: number;
    if (bytes <= this.maxIoBytes) {
      completionUs = this.serve(offsetBytes, bytes, nowUs);
      this.recorder.deviceRequests++;
    } else {
      completionUs = nowUs;
      for (let done = 0; done < bytes; done += this.maxIoBytes) {
        const piece = Math.min(this.maxIoBytes, bytes - done);
        const c = this.serve(offsetBytes + done, piece, nowUs);
        if (c > completionUs) completionUs = c;
        this.recorder.deviceRequests++;
      }
    }
    this.recorder.record(nowUs, completionUs, bytes);
    return completionUs;
  }

  private serve(offsetBytes: number, bytes: number, nowUs: number): number {
    if (offsetBytes === this.lastEndByte) this.sequentialRun++;
    else this.sequentialRun = 0;
    this.lastEndByte = offsetBytes + bytes;
    let dataReadyUs: number;
    if (this.sequentialRun >= this.readAheadTrigger) {
      dataReadyUs = nowUs + this.readAheadHitUs;
    } else {
      const unit = this.nextUnit;
      const freeUs = this.unitFreeUs[unit]!;
      dataReadyUs = Math.max(nowUs, freeUs) + this.unitBusyUs;
      this.unitFreeUs[unit] = dataReadyUs;
      this.nextUnit = unit + 1 === this.units ? 0 : unit + 1;
    }
    const pipeStartUs = Math.max(dataReadyUs, this.pipeFreeUs);
    this.pipeFreeUs = pipeStartUs + bytes * this.usPerByte;
    return this.pipeFreeUs + this.fixedLatencyUs;
  }

  stats(): DeviceStats {
    return this.recorder.snapshot();
  }

  reset(): void {
    this.unitFreeUs.fill(Number.NEGATIVE_INFINITY);
    this.nextUnit = 0;
    this.pipeFreeUs = Number.NEGATIVE_INFINITY;
    this.lastEndByte = -1;
    this.sequentialRun = 0;
    this.recorder.reset();
  }
}
