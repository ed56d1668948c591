import { describe, expect, it } from "vitest";
import { judgeInterference, UNDISTURBED_TOLERANCE } from "./interference.js";

const MiB = 1 << 20;
const limits = { maxRequestBytes: 4 * MiB, logicalBlockBytes: 512 };

describe("judgeInterference", () => {
  it("a quiet run is exact", () => {
    const i = judgeInterference({ deviceReads: 512, deviceBytes: 256 * MiB, ownBytes: 256 * MiB }, limits);
    expect(i).toEqual({
      foreignBytes: 0,
      foreignRequestsMin: 0,
      foreignRequestsMax: 0,
      ownRequests: 512,
      disturbed: false,
    });
  });

  it("small foreign reads can hide among a sequential run's requests: disturbed", () => {
    // 512 requests of 512 KiB, plus 5 MiB of 4 KiB reads by another program (1,280 more requests).
    const i = judgeInterference({ deviceReads: 1792, deviceBytes: 261 * MiB, ownBytes: 256 * MiB }, limits);
    expect(i.foreignBytes).toBe(5 * MiB);
    expect(i.foreignRequestsMin).toBe(2);
    expect(i.foreignRequestsMax).toBe(1280);
    expect(i.disturbed).toBe(true);
  });

  it("a few foreign bytes among many requests leave the count known within the tolerance", () => {
    // 64 KiB read by others (1 to 16 requests of at least a page) among 1,016 requests.
    const i = judgeInterference(
      { deviceReads: 1016, deviceBytes: 1000 * MiB + 64 * 1024, ownBytes: 1000 * MiB },
      limits,
    );
    expect(i.foreignRequestsMin).toBe(1);
    expect(i.foreignRequestsMax).toBe(16);
    expect(15).toBeLessThanOrEqual(UNDISTURBED_TOLERANCE * (1016 - 16));
    expect(i.disturbed).toBe(false);
    expect(i.ownRequests).toBeGreaterThanOrEqual(1016 - 16);
    expect(i.ownRequests).toBeLessThanOrEqual(1015);
  });

  it("the same foreign bytes among few requests: disturbed", () => {
    const i = judgeInterference(
      { deviceReads: 116, deviceBytes: 100 * MiB + 64 * 1024, ownBytes: 100 * MiB },
      limits,
    );
    expect(i.disturbed).toBe(true);
  });
});
