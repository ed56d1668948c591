/**
 * DOC: a cloud block volume (AWS EBS) as two budgets and a latency.
 *
 * A cloud volume is not one device but a share of a storage service, sold as
 * budgets: an I/O-per-second limit and a throughput limit (gp3 baseline: 3 000
 * IOPS and 125 MiB/s, apps/docs/src/reference/storage-device-models.md#aws-ebs-volumes). Behind the budgets the service
 * has far more parallelism than one volume may use, so a read admitted by both
 * budgets completes a fixed latency later ("single-digit millisecond" for gp3;
 * the profile says which figure it assumes), however many are in flight.
 *
 * How I/Os are counted (AWS `ebs-io-characteristics`, apps/docs/src/reference/storage-device-models.md#aws-ebs-volumes):
 * an I/O counts once per `ioCountingUnitBytes` (256 KiB on SSD volumes, 1 MiB
 * on HDD volumes), so a 1 MiB read on gp3 costs 4 I/Os; and when small I/Os
 * are physically sequential, EBS merges them into one counted I/O up to the
 * unit (`mergeSequentialIos`): a read that starts where the previous one ended
 * first fills the room left in the previous read's counted unit. A Linux
 * 128 KiB read-ahead therefore counts as one I/O, and an 8 KiB sequential
 * stream as one I/O per 256 KiB.
 *
 * Each budget is a token bucket, implemented as a GCRA ("virtual scheduling"):
 * the bucket's state is the theoretical time `tat` at which it would be empty
 * again; an I/O costing c tokens is admitted at max(now, tat - tolerance) and
 * moves tat to max(tat, admission) + c / rate. Tolerance is the burst bucket's
 * depth in time (credits / baseline rate); with no burst (gp3: "none; sustains
 * provisioned figures indefinitely") it is 0 and the budget is a strict pacer.
 * A volume that bursts (gp2, st1) also has a second pacer at the burst rate,
 * so credits let it run at the burst rate, not infinitely fast. Admission is
 * the latest of the four pacers; O(1) per read, no allocation.
 *
 * Not modelled: the instance-level EBS limits (they differ per instance type,
 * apps/docs/src/reference/storage-device-models.md#aws-ebs-volumes), latency variation (no distribution is published), the
 * "99 % of the time" consistency statements.
 */
import {
  badRead,
  type DeviceModel,
  type DeviceStats,
  linuxReadAheadKb,
  StatsRecorder,
} from "./device-model.js";
import type { CloudVolumeProfile } from "./profile-schema.js";
import { US_PER_S } from "./units.js";

/**
 * How many I/Os a read counts against a cloud volume's IOPS budget on its own
 * (no merging): one per started counting unit.
 *
 * @example
 * ```ts
 * import { countedIos } from "@scanlab/device-profiles";
 * countedIos(1048576, 262144); // 4: a 1 MiB read on gp3 counts as 4 I/Os
 * countedIos(8192, 262144);    // 1
 * ```
 */
export function countedIos(bytes: number, ioCountingUnitBytes: number): number {
  return Math.ceil(bytes / ioCountingUnitBytes);
}

/** The cloud volume model. Create it with {@link createDeviceModel}. */
export class CloudVolumeModel implements DeviceModel {
  readonly profile: CloudVolumeProfile;
  readonly kind = "cloud-volume" as const;
  readonly maxIoBytes: number;
  readonly readAheadKbDefault: number;

  private readonly latencyUs: number;
  private readonly unitBytes: number;
  private readonly merge: boolean;
  private readonly usPerIo: number;
  private readonly usPerIoPeak: number;
  private readonly ioToleranceUs: number;
  private readonly usPerByte: number;
  private readonly usPerBytePeak: number;
  private readonly byteToleranceUs: number;
  private ioTatUs = Number.NEGATIVE_INFINITY;
  private ioPeakTatUs = Number.NEGATIVE_INFINITY;
  private byteTatUs = Number.NEGATIVE_INFINITY;
  private bytePeakTatUs = Number.NEGATIVE_INFINITY;
  private lastEndByte = -1;
  private mergeRoomBytes = 0;
  private readonly recorder = new StatsRecorder();

  /** @param profile a parsed cloud-volume profile */
  constructor(profile: CloudVolumeProfile) {
    this.profile = profile;
    this.maxIoBytes = profile.maxIoBytes;
    this.readAheadKbDefault = linuxReadAheadKb(profile.optimalIoBytes);
    this.latencyUs = profile.readLatencyUs;
    this.unitBytes = profile.ioCountingUnitBytes;
    this.merge = profile.mergeSequentialIos;
    this.usPerIo = US_PER_S / profile.iopsLimit;
    this.usPerByte = US_PER_S / profile.throughputLimitBytesPerSecond;
    const burst = profile.burst;
    this.usPerIoPeak = US_PER_S / (burst?.iopsLimit ?? profile.iopsLimit);
    this.ioToleranceUs = (burst?.ioCredits ?? 0) * this.usPerIo;
    this.usPerBytePeak =
      US_PER_S / (burst?.throughputLimitBytesPerSecond ?? profile.throughputLimitBytesPerSecond);
    this.byteToleranceUs = (burst?.byteCredits ?? 0) * this.usPerByte;
  }

  submit(offsetBytes: number, bytes: number, nowUs: number): number {
    if (!(bytes > 0 && offsetBytes >= 0 && nowUs > Number.NEGATIVE_INFINITY))
      throw badRead(offsetBytes, bytes, nowUs);
    // Counted I/Os, with EBS's merging of physically sequential small I/Os.
    let ios: number;
    if (this.merge && offsetBytes === this.lastEndByte && this.mergeRoomBytes > 0) {
      if (bytes <= this.mergeRoomBytes) {
        ios = 0;
        this.mergeRoomBytes -= bytes;
      } else {
        const rest = bytes - this.mergeRoomBytes;
        ios = Math.ceil(rest / this.unitBytes);
        this.mergeRoomBytes = ios * this.unitBytes - rest;
      }
    } else {
      ios = Math.ceil(bytes / this.unitBytes);
      this.mergeRoomBytes = this.merge ? ios * this.unitBytes - bytes : 0;
    }
    this.lastEndByte = offsetBytes + bytes;
    // Admission: the latest of the four pacers (GCRA, see the header).
    let admitUs = nowUs;
    const ioReady = this.ioTatUs - this.ioToleranceUs;
    if (ioReady > admitUs) admitUs = ioReady;
    if (this.ioPeakTatUs > admitUs) admitUs = this.ioPeakTatUs;
    const byteReady = this.byteTatUs - this.byteToleranceUs;
    if (byteReady > admitUs) admitUs = byteReady;
    if (this.bytePeakTatUs > admitUs) admitUs = this.bytePeakTatUs;
    if (ios > 0) {
      this.ioTatUs = Math.max(this.ioTatUs, admitUs) + ios * this.usPerIo;
      this.ioPeakTatUs = Math.max(this.ioPeakTatUs, admitUs) + ios * this.usPerIoPeak;
    }
    this.byteTatUs = Math.max(this.byteTatUs, admitUs) + bytes * this.usPerByte;
    this.bytePeakTatUs = Math.max(this.bytePeakTatUs, admitUs) + bytes * this.usPerBytePeak;
    const completionUs = admitUs + this.latencyUs;
    this.recorder.deviceRequests += ios;
    this.recorder.record(nowUs, completionUs, bytes);
    return completionUs;
  }

  stats(): DeviceStats {
    return this.recorder.snapshot();
  }

  reset(): void {
    this.ioTatUs = Number.NEGATIVE_INFINITY;
    this.ioPeakTatUs = Number.NEGATIVE_INFINITY;
    this.byteTatUs = Number.NEGATIVE_INFINITY;
    this.bytePeakTatUs = Number.NEGATIVE_INFINITY;
    this.lastEndByte = -1;
    this.mergeRoomBytes = 0;
    this.recorder.reset();
  }
}
