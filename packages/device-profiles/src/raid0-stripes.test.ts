import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { getBuiltinProfile } from "./builtin-profiles.js";
import { createDeviceModel } from "./create-device-model.js";
import type { Raid0Profile } from "./profile-schema.js";
import { Raid0Model, raid0Location } from "./raid0-stripes.js";

const KiB = 1024;
const raid = getBuiltinProfile("raid0-6x-intel-s3600-100gb") as Raid0Profile;

describe("md raid0 layout (devices.md 2)", () => {
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
    // Each S3700 (50 us, 500 MB/s, 75 000 IOPS -> 3 units of 40 us, 1.808 us command path) gets two 512 KiB reads:
    // unit busy 40 us, then both transfers back to back on its data path: 40 + 2 x 524288/500 + 1.808 us.
    expect(done).toBeCloseTo(40 + (2 * 524288) / 500 + 1.808, 6);
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
