/**
 * DOC: the rotating disk model (one actuator, zoned recording, look-ahead).
 *
 * A read on a disk waits for the actuator (one read at a time: NCQ reordering
 * is not modelled, no source gives its gain), then:
 *
 * - Seeks, unless the target is on the track under the head. The seek time
 *   grows with the distance travelled as a fraction x of the stroke (offsets
 *   map linearly to radius: an approximation of zoned recording):
 *
 *       seek(x) = trackToTrack + (fullStroke - trackToTrack) * x^p
 *
 *   Datasheets quote the single-track seek and the *average* seek, the mean
 *   over uniformly random start and end points. Under that distribution x has
 *   density 2(1 - x), so E[x^p] = 2 / ((p + 1)(p + 2)). With the classic
 *   square-root curve (p = 1/2, Ruemmler and Wilkes, "An introduction to disk
 *   drive modeling", IEEE Computer 1994) E[sqrt x] = 8/15, and the full stroke
 *   follows from the two datasheet figures: HC310 (apps/docs/src/reference/storage-device-models.md#hard-disks-at-7200-rpm,
 *   Table 5 and 6) 0.23 + (7.4 - 0.23) * 15/8 = 13.7 ms, against the 15-17 ms
 *   apps/docs/src/reference/storage-device-models.md#hard-disks-at-7200-rpm quotes for other 7200 rpm drives. When a profile gives
 *   `fullStrokeSeekUs`, p is solved from E[x^p] instead, so the average seek
 *   still equals the datasheet's.
 * - Waits for the sector to come round. The platter's angle is a function of
 *   time (angle = t / revolution, mod 1) and a byte's angle is a function of
 *   its offset: the number of tracks before it, mod 1. A track at offset y
 *   holds rate(y) x revolution bytes, so the tracks before offset x are the
 *   integral of dy / (rate(y) x revolution) from 0 to x; with the linear zone
 *   rate below, rate(y) = outer - s y, that is
 *   -ln(1 - s x / outer) / (s x revolution) (x / (outer x revolution) when
 *   s = 0). This keeps the angle consistent with streaming: a byte b bytes
 *   further on comes round b / rate later, as its transfer time says,
 *   anywhere on the disk (x / trackBytes(x) would not be: its slope is off by
 *   s x / rate, 35 % mid-disk on the built-in, so a look-ahead-off gap
 *   would not cost a revolution). The rotational wait is computed, not drawn at random:
 *   the model needs no seed, and over random offsets the wait averages half a
 *   revolution (HC310 Table 7: 8.33 ms per revolution, 4.16 ms average).
 * - Transfers at the zone rate, which falls linearly from the outer diameter
 *   (offset 0) to the inner one (apps/docs/src/reference/storage-device-models.md#hard-disks-at-7200-rpm: OD:ID about 2:1;
 *   Constellation ES.3 175 to 83 MB/s).
 *
 * A sequential stream does not seek or wait for rotation: after a read the
 * drive goes on reading into its cache ("look-ahead", `lookAheadBytes`), so a
 * read that starts within that window after the previous one is served as the
 * data streams under the head, or from the cache at the link rate if it is
 * already there. If the host is slower than the platter and the request goes
 * past what the look-ahead kept, the drive must wait for the sector to come
 * round again: with look-ahead off, every gap between commands costs up to a
 * revolution (apps/docs/src/reference/storage-device-models.md#hard-disks-at-7200-rpm: "a gap between commands can still cost one
 * revolution (8.33 ms) if the look-ahead is off").
 *
 * A random 8 KiB read therefore costs about 7.4 + 4.17 + 0.05 = 11.6 ms, about
 * 85 IOPS (the arithmetic of apps/docs/src/reference/storage-device-models.md#hard-disks-at-7200-rpm), and a sequential stream runs
 * at the zone rate.
 */
import {
  badRead,
  type DeviceModel,
  type DeviceStats,
  linuxReadAheadKb,
  StatsRecorder,
} from "./device-model.js";
import type { HddProfile } from "./profile-schema.js";
import { US_PER_S } from "./units.js";

/** The mechanics an hdd profile turns into. */
export interface HddMechanics {
  /** Time of one revolution in microseconds (60 s / rpm). */
  readonly revolutionUs: number;
  /** Single-track seek in microseconds. */
  readonly trackToTrackSeekUs: number;
  /** Full-stroke seek in microseconds (given, or derived from the average seek). */
  readonly fullStrokeSeekUs: number;
  /** Exponent p of the seek curve. */
  readonly seekExponent: number;
}

/**
 * Derives the seek curve and revolution time of a disk profile (file header of
 * `hdd-mechanics.ts`).
 *
 * @example
 * ```ts
 * import { getBuiltinProfile, hddMechanics } from "@scanlab/device-profiles";
 * const p = getBuiltinProfile("hdd-7200rpm");
 * if (p.kind === "hdd") console.log(hddMechanics(p).fullStrokeSeekUs); // about 13 680
 * ```
 */
export function hddMechanics(profile: HddProfile): HddMechanics {
  const revolutionUs = (60 * US_PER_S) / profile.rpm; // 60 s per minute / revolutions per minute
  const t2t = profile.trackToTrackSeekUs;
  if (profile.fullStrokeSeekUs === undefined) {
    return {
      revolutionUs,
      trackToTrackSeekUs: t2t,
      // Square-root seek curve (p = 1/2, Ruemmler and Wilkes 1994; see the header): E[sqrt x] = 8/15.
      fullStrokeSeekUs: t2t + ((profile.averageSeekUs - t2t) * 15) / 8,
      seekExponent: 0.5,
    };
  }
  // E[x^p] = 2 / ((p+1)(p+2)) = k  =>  p^2 + 3p + 2 - 2/k = 0.
  const k = (profile.averageSeekUs - t2t) / (profile.fullStrokeSeekUs - t2t);
  const p = (-3 + Math.sqrt(1 + 8 / k)) / 2;
  return {
    revolutionUs,
    trackToTrackSeekUs: t2t,
    fullStrokeSeekUs: profile.fullStrokeSeekUs,
    seekExponent: p,
  };
}

/** Seek time in microseconds for a move of `fraction` of the full stroke (0..1), beyond the current track. */
export function seekUs(mechanics: HddMechanics, fraction: number): number {
  const x = Math.min(fraction, 1);
  const shape = mechanics.seekExponent === 0.5 ? Math.sqrt(x) : x ** mechanics.seekExponent;
  return mechanics.trackToTrackSeekUs + (mechanics.fullStrokeSeekUs - mechanics.trackToTrackSeekUs) * shape;
}

/** The disk model. Create it with {@link createDeviceModel}. */
export class HddModel implements DeviceModel {
  readonly profile: HddProfile;
  readonly kind = "hdd" as const;
  readonly maxIoBytes: number;
  readonly readAheadKbDefault: number;
  /** The derived mechanics. */
  readonly mechanics: HddMechanics;

  private readonly capacityBytes: number;
  private readonly revolutionUs: number;
  private readonly outerBytesPerUs: number;
  private readonly slopeBytesPerUsPerByte: number;
  private readonly lookAheadBytes: number;
  private readonly linkUsPerByte: number;
  private readonly commandOverheadUs: number;
  private freeUs = Number.NEGATIVE_INFINITY;
  /** End of the last read: where the head is (and where look-ahead starts). */
  private lastEndByte = -1;
  /** Time the byte at lastEndByte passed under the head. */
  private anchorUs = 0;
  private readonly recorder = new StatsRecorder();

  /** @param profile a parsed hdd profile */
  constructor(profile: HddProfile) {
    this.profile = profile;
    this.maxIoBytes = profile.maxIoBytes;
    this.readAheadKbDefault = linuxReadAheadKb(profile.optimalIoBytes);
    this.mechanics = hddMechanics(profile);
    this.capacityBytes = profile.capacityBytes;
    this.revolutionUs = this.mechanics.revolutionUs;
    this.outerBytesPerUs = profile.outerZoneReadBytesPerSecond / US_PER_S;
    this.slopeBytesPerUsPerByte =
      (profile.outerZoneReadBytesPerSecond - profile.innerZoneReadBytesPerSecond) /
      US_PER_S /
      profile.capacityBytes;
    this.lookAheadBytes = profile.lookAheadBytes;
    this.linkUsPerByte = US_PER_S / profile.linkBytesPerSecond;
    this.commandOverheadUs = profile.commandOverheadUs;
  }

  /** Zone transfer rate at an offset, in bytes per microsecond. */
  rateBytesPerUs(offsetBytes: number): number {
    const x = Math.min(offsetBytes, this.capacityBytes);
    return this.outerBytesPerUs - this.slopeBytesPerUsPerByte * x;
  }

  /**
   * Tracks before a byte (its angle in revolutions, before taking mod 1): the
   * integral of dx / (rate(x) x revolution) from 0 to the offset (file header).
   */
  private tracksBefore(offsetBytes: number): number {
    const x = Math.min(offsetBytes, this.capacityBytes);
    const s = this.slopeBytesPerUsPerByte;
    const tracks =
      s > 0
        ? -Math.log1p((-s * x) / this.outerBytesPerUs) / (s * this.revolutionUs)
        : x / (this.outerBytesPerUs * this.revolutionUs);
    // Past the capacity (not a real offset) the inner-zone track size continues.
    return tracks + (offsetBytes - x) / (this.rateBytesPerUs(x) * this.revolutionUs);
  }

  /** Time from `atUs` until the byte at `offsetBytes` is under the head (same track), in microseconds. */
  rotationalWaitUs(offsetBytes: number, atUs: number): number {
    const target = this.tracksBefore(offsetBytes);
    const head = atUs / this.revolutionUs;
    let turn = target - Math.floor(target) - (head - Math.floor(head));
    if (turn < 0) turn += 1;
    return turn * this.revolutionUs;
  }

  submit(offsetBytes: number, bytes: number, nowUs: number): number {
    if (!(bytes > 0 && offsetBytes >= 0 && nowUs > Number.NEGATIVE_INFINITY))
      throw badRead(offsetBytes, bytes, nowUs);
    let completionUs = nowUs;
    for (let done = 0; done < bytes; done += this.maxIoBytes) {
      const piece = Math.min(bytes - done, this.maxIoBytes);
      completionUs = this.serve(offsetBytes + done, piece, nowUs);
      this.recorder.deviceRequests++;
    }
    this.recorder.record(nowUs, completionUs, bytes);
    return completionUs;
  }

  private serve(offsetBytes: number, bytes: number, nowUs: number): number {
    const startUs = Math.max(nowUs, this.freeUs) + this.commandOverheadUs;
    const endByte = offsetBytes + bytes;
    let readyUs: number;
    const ahead = offsetBytes - this.lastEndByte;
    if (this.lastEndByte >= 0 && ahead >= 0 && ahead <= this.lookAheadBytes) {
      // Streaming: the head has been reading on from lastEndByte since anchorUs.
      const rate = this.rateBytesPerUs(this.lastEndByte);
      const limitByte = this.lastEndByte + this.lookAheadBytes;
      const stopUs = this.anchorUs + this.lookAheadBytes / rate;
      if (endByte <= limitByte || startUs <= stopUs) {
        readyUs = this.anchorUs + (endByte - this.lastEndByte) / rate;
      } else {
        // Look-ahead stopped at limitByte; wait for it to come round again.
        const resumeUs = startUs + this.rotationalWaitUs(limitByte, startUs);
        readyUs = resumeUs + (endByte - limitByte) / rate;
      }
    } else {
      const distance = this.lastEndByte < 0 ? offsetBytes : Math.abs(offsetBytes - this.lastEndByte);
      const rate = this.rateBytesPerUs(offsetBytes);
      const trackBytes = rate * this.revolutionUs;
      const arriveUs =
        distance < trackBytes ? startUs : startUs + seekUs(this.mechanics, distance / this.capacityBytes);
      readyUs = arriveUs + this.rotationalWaitUs(offsetBytes, arriveUs) + bytes / rate;
    }
    const linkDoneUs = startUs + bytes * this.linkUsPerByte;
    const completionUs = Math.max(readyUs, linkDoneUs);
    this.lastEndByte = endByte;
    this.anchorUs = readyUs;
    this.freeUs = completionUs;
    return completionUs;
  }

  stats(): DeviceStats {
    return this.recorder.snapshot();
  }

  reset(): void {
    this.freeUs = Number.NEGATIVE_INFINITY;
    this.lastEndByte = -1;
    this.anchorUs = 0;
    this.recorder.reset();
  }
}
