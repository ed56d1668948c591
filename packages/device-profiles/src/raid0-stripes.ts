/**
 * DOC: Linux md RAID0 over N identical members.
 *
 * md raid0 cuts the array into chunks (512 KiB by default since mdadm 3.1:
 * `DEFAULT_CHUNK 512`, apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0) and deals them round-robin to the
 * members: chunk k lives on member k mod N, at member offset
 * floor(k / N) x chunk. A read that crosses a chunk boundary is split there
 * (raid0 sets `chunk_sectors`, so the block layer never sends a bio across a
 * chunk), each piece goes to its member's own queue, and the read completes
 * when its last piece does. A read never occupies a member for more than one
 * chunk, so the array's `maxIoBytes` is min(chunk, member's maxIoBytes).
 *
 * md also sets the array's io_min = chunk and io_opt = chunk x N
 * (`drivers/md/raid0.c`), and Linux derives read_ahead_kb = max(2 x io_opt,
 * 128 KiB) from it: 6 x 512 KiB members give 6144 KiB (apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0,
 * the same value the pre-5.9 raid0 rule "readahead at least twice a whole
 * stripe" gave). One such 6 MiB read-ahead becomes 12 chunk-sized member I/Os,
 * two per drive, served in parallel.
 *
 * Not modelled: md's own CPU cost, the host-side ceiling of the controller the
 * members hang off (unknown for the Vondra's 2022 benchmark (pgsql-hackers, “Re: effective_io_concurrency and NVMe devices”) machine, apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0),
 * heterogeneous members (md raid0 zones).
 */
import {
  badRead,
  type DeviceModel,
  type DeviceStats,
  linuxReadAheadKb,
  StatsRecorder,
} from "./device-model.js";
import { FlashQueueModel } from "./flash-queue.js";
import { HddModel } from "./hdd-mechanics.js";
import type { Raid0Profile } from "./profile-schema.js";

/** Where a byte of a RAID0 array lives. */
export interface StripeLocation {
  /** Member index 0..N-1. */
  readonly member: number;
  /** Byte offset on that member. */
  readonly memberOffsetBytes: number;
  /** Bytes from this offset to the end of its chunk. */
  readonly bytesToChunkEnd: number;
}

/**
 * Maps an array offset to its member and member offset (md raid0 layout).
 *
 * @example
 * ```ts
 * import { raid0Location } from "@scanlab/device-profiles";
 * // 6 members, 512 KiB chunks: byte 3 MiB + 10 is chunk 6, the second chunk of member 0.
 * raid0Location(3 * 1048576 + 10, 524288, 6); // { member: 0, memberOffsetBytes: 524298, bytesToChunkEnd: 524278 }
 * ```
 */
export function raid0Location(offsetBytes: number, chunkBytes: number, memberCount: number): StripeLocation {
  const chunk = Math.floor(offsetBytes / chunkBytes);
  const within = offsetBytes - chunk * chunkBytes;
  return {
    member: chunk % memberCount,
    memberOffsetBytes: Math.floor(chunk / memberCount) * chunkBytes + within,
    bytesToChunkEnd: chunkBytes - within,
  };
}

/** The RAID0 model: one member model per disk. Create it with {@link createDeviceModel}. */
export class Raid0Model implements DeviceModel {
  readonly profile: Raid0Profile;
  readonly kind = "raid0" as const;
  readonly maxIoBytes: number;
  readonly readAheadKbDefault: number;
  /** io_opt of the array: chunk x members. */
  readonly optimalIoBytes: number;
  /** The member models, in md order. */
  readonly members: readonly DeviceModel[];

  private readonly chunkBytes: number;
  private readonly memberCount: number;
  private readonly recorder = new StatsRecorder();

  /** @param profile a parsed raid0 profile */
  constructor(profile: Raid0Profile) {
    this.profile = profile;
    this.chunkBytes = profile.chunkBytes;
    this.memberCount = profile.memberCount;
    const member = profile.member;
    const members: DeviceModel[] = [];
    for (let i = 0; i < profile.memberCount; i++) {
      members.push(member.kind === "hdd" ? new HddModel(member) : new FlashQueueModel(member));
    }
    this.members = members;
    this.maxIoBytes = Math.min(profile.chunkBytes, member.maxIoBytes);
    this.optimalIoBytes = profile.chunkBytes * profile.memberCount;
    this.readAheadKbDefault = linuxReadAheadKb(this.optimalIoBytes);
  }

  submit(offsetBytes: number, bytes: number, nowUs: number): number {
    if (!(bytes > 0 && offsetBytes >= 0 && nowUs > Number.NEGATIVE_INFINITY))
      throw badRead(offsetBytes, bytes, nowUs);
    const chunkBytes = this.chunkBytes;
    const n = this.memberCount;
    let completionUs = nowUs;
    let position = offsetBytes;
    let left = bytes;
    while (left > 0) {
      // raid0Location, inlined so that no object is allocated per piece on this hot path.
      const chunk = Math.floor(position / chunkBytes);
      const within = position - chunk * chunkBytes;
      const room = chunkBytes - within;
      const piece = Math.min(left, room);
      const memberOffset = Math.floor(chunk / n) * chunkBytes + within;
      const c = this.members[chunk % n]!.submit(memberOffset, piece, nowUs);
      if (c > completionUs) completionUs = c;
      this.recorder.deviceRequests++;
      position += piece;
      left -= piece;
    }
    this.recorder.record(nowUs, completionUs, bytes);
    return completionUs;
  }

  stats(): DeviceStats {
    return this.recorder.snapshot();
  }

  reset(): void {
    for (const m of this.members) m.reset();
    this.recorder.reset();
  }
}
