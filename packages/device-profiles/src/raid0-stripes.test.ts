import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { getBuiltinProfile } from "./builtin-profiles.js";
import { createDeviceModel } from "./create-device-model.js";
import type { Raid0Profile } from "./profile-schema.js";
import { Raid0Model, raid0Location } from "./raid0-stripes.js";

/** The DC S3700's per-command time from its datasheet's 8 KB random reads (flash-queue.ts): 10^6 / 47 500 - 8192 / 500. */
const S3700_COMMAND_US = 1e6 / 47_500 - 8192 / 500;

const KiB = 1024;
const raid = getBuiltinProfile("raid0-6x-intel-s3600-100gb") as Raid0Profile;

describe("md raid0 layout (apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0)", () => {
  it("deals 512 KiB chunks round-robin over the 6 members", () => {
    expect(raid0Location(0, 512 * KiB, 6)).toEqual({
      member: 0,
      memberOffsetBytes: 0,
      bytesToChunkEnd: 512 * KiB,
    });
    expect(raid0Location(512 * KiB, 512 * KiB, 6).member).toBe(1);
    expect(raid0Location(5 * 512 * KiB + 7, 512 * KiB, 6)).toEqual({
      member: 5,
      memberOffsetBytes: 7,
      bytesToChunkEnd: 512 * KiB - 7,
    });
    // chunk 6 is the second chunk of member 0
    expect(raid0Location(6 * 512 * KiB, 512 * KiB, 6)).toEqual({
      member: 0,
      memberOffsetBytes: 512 * KiB,
      bytesToChunkEnd: 512 * KiB,
    });
  });

  it("is a bijection: every (member, member offset) maps back to the array offset", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.integer({ min: 2, max: 16 }),
        fc.constantFrom(64 * KiB, 512 * KiB, 1024 * KiB),
        (offset, n, chunk) => {
          const loc = raid0Location(offset, chunk, n);
          const stripe = Math.floor(loc.memberOffsetBytes / chunk);
          const within = loc.memberOffsetBytes % chunk;
          return (
            (stripe * n + loc.member) * chunk + within === offset && loc.bytesToChunkEnd === chunk - within
          );
        },
      ),
    );
  });

  it("sets read_ahead_kb = max(2 x io_opt, 128 KiB) = 6144 KiB and never sends more than a chunk to a member", () => {
    const m = createDeviceModel(raid);
    expect(m.readAheadKbDefault).toBe(6144);
    expect(m.maxIoBytes).toBe(512 * KiB);
  });
});

describe("raid0 model", () => {
  it("turns one 6 MiB read-ahead into 12 chunk-sized member I/Os, two per drive, in parallel", () => {
    const m = new Raid0Model(raid);
    const done = m.submit(0, 6 * 1024 * KiB, 0);
    expect(m.stats().deviceRequests).toBe(12);
    for (const member of m.members) {
      expect(member.stats().requests).toBe(2);
      expect(member.stats().bytes).toBe(1024 * KiB);
    }
    // Each S3700 (L = 50 us for 4 KiB, 500 MB/s, per-command time c = 10^6 / 47 500 - 8192 / 500 = 4.67 us,
    // flash-queue.ts) gets two 512 KiB reads: the first takes L - 4096/500 + 524288/500 as at QD1 (its c is
    // inside L), the second follows it on the data path, c + 524288/500 later.
    expect(done).toBeCloseTo(50 - 4096 / 500 + S3700_COMMAND_US + (2 * 524288) / 500, 6);
  });

  it("splits a read that crosses a chunk boundary over two members", () => {
    const m = new Raid0Model(raid);
    m.submit(512 * KiB - 4 * KiB, 8 * KiB, 0);
    expect(m.members[0]!.stats().bytes).toBe(4 * KiB);
    expect(m.members[1]!.stats().bytes).toBe(4 * KiB);
    expect(m.stats().deviceRequests).toBe(2);
  });

  it("serves a small read like one member alone", () => {
    const m = createDeviceModel(raid);
    const member = createDeviceModel(raid.member);
    expect(m.submit(3 * 512 * KiB, 8 * KiB, 0)).toBeCloseTo(member.submit(0, 8 * KiB, 0), 9);
  });
});

describe("raid0 splitting and completion, by hand (apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0: 6 x DC S3700, 512 KiB chunks)", () => {
  // One S3700 member (apps/docs/src/reference/storage-device-models.md#intel-dc-s3700-and-s3610: 50 us, 500 MB/s = 500 B/us, 75 000 IOPS at QD32): budget 50 - 4096/500 =
  // 41.808 us, 75 000 x 41.808 us = 3.14 -> 3 units busy 3/75 000 s = 40 us, command path 1.808 us
  // (flash-queue.ts header). An idle member serves b bytes in 40 + b/500 + 1.808 us.
  const idle = (b: number) => 40 + b / 500 + 1.808;

  it("splits an unaligned 1 MiB + 8 KiB read into 4 KiB, 512 KiB, 512 KiB and 4 KiB on members 0-3", () => {
    // Starts 4 KiB before the end of chunk 0: 4 KiB of chunk 0 (member 0), all of chunks 1 and 2 (members 1, 2),
    // then 4 KiB of chunk 3 (member 3). It completes when the 512 KiB pieces do: 40 + 1048.576 + 1.808 us.
    const m = new Raid0Model(raid);
    const done = m.submit(512 * KiB - 4 * KiB, 1024 * KiB + 8 * KiB, 0);
    expect(m.members.map((x) => x.stats().bytes)).toEqual([4 * KiB, 512 * KiB, 512 * KiB, 4 * KiB, 0, 0]);
    expect(m.members.map((x) => x.stats().requests)).toEqual([1, 1, 1, 1, 0, 0]);
    expect(m.stats().deviceRequests).toBe(4);
    expect(done).toBeCloseTo(idle(512 * KiB), 6);
  });

  it("wraps from the last member to the first: chunk 5 -> member 5, chunk 6 -> member 0 at member offset 512 KiB", () => {
    // An 8 KiB read across the chunk 5 / chunk 6 boundary. Member 0's piece lands at member offset 512 KiB,
    // right after where a 512 KiB read of chunk 0 ended: visible as a sequential read to an HDD member.
    const m = new Raid0Model(raid);
    m.submit(6 * 512 * KiB - 4 * KiB, 8 * KiB, 0);
    expect(m.members.map((x) => x.stats().bytes)).toEqual([4 * KiB, 0, 0, 0, 0, 4 * KiB]);
  });

  it("completes when the slowest member piece does, not the first", () => {
    // t = 0: 512 KiB of chunk 1 keeps member 1's data path busy until idle(512 KiB) less its fixed delay.
    // Then an 8 KiB read across the chunk 0 / chunk 1 boundary, also at t = 0: member 0's 4 KiB piece is done at
    // idle(4096) = 50 us, but member 1's piece waits for the data path, c + 4096/500 more:
    // 50 - 4096/500 + 524288/500 + c + 4096/500 = 1103.245 us (c = 4.67 us, as above).
    const m = new Raid0Model(raid);
    m.submit(512 * KiB, 512 * KiB, 0);
    const expected = 50 + 524288 / 500 + S3700_COMMAND_US;
    expect(m.submit(512 * KiB - 4 * KiB, 8 * KiB, 0)).toBeCloseTo(expected, 6);
    // and the array's own counters see one read of 8 KiB that lasted that long
    expect(m.stats().requests).toBe(2);
    expect(m.stats().lastCompletionUs).toBeCloseTo(expected, 6);
  });

  it("serves pieces on different members in parallel: 6 chunks at once take one chunk's time", () => {
    // A full 3 MiB stripe (io_opt, apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0) is one 512 KiB read per member: idle(512 KiB) = 1090.384 us,
    // not 6 x 1048.576 us.
    const m = new Raid0Model(raid);
    expect(m.submit(0, 3 * 1024 * KiB, 0)).toBeCloseTo(idle(512 * KiB), 6);
  });
});

describe("raid0 of disks: member offsets reach the member's mechanics", () => {
  it("a stream across the stripe is sequential on each member (no seek after the first chunk)", () => {
    // Two HDD members, 64 KiB chunks: array bytes [0, 256 KiB) are chunks 0-3, i.e. member 0 gets [0, 64 KiB)
    // and [64 KiB, 128 KiB), a sequential pair. Submitted at once, member 0's second chunk streams straight on:
    // it completes 65536 / 175 us (apps/docs/src/reference/storage-device-models.md#hard-disks-at-7200-rpm: 175 MB/s at the outer diameter) after the first.
    const hdd = getBuiltinProfile("hdd-7200rpm");
    const m = new Raid0Model({
      ...raid,
      member: hdd as Raid0Profile["member"],
      chunkBytes: 64 * KiB,
      memberCount: 2,
    });
    m.submit(0, 64 * KiB, 0);
    const first = m.members[0]!.stats().lastCompletionUs;
    m.submit(128 * KiB, 64 * KiB, 0);
    const second = m.members[0]!.stats().lastCompletionUs;
    expect(second - first).toBeCloseTo(65536 / 175, 3);
  });
});
