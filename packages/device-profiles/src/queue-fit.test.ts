import { describe, expect, it } from "vitest";
import { fitCpuCosts } from "./calibrate.js";
import { closedLoopIops } from "./flash-queue.js";
import { profileFromMeasurements } from "./measured-profile.js";
import type { ReadMeasurement } from "./profile-schema.js";
import { modelAtPoints } from "./queue-fit.js";

// A synthetic device: 6 units of 70 us, a 12 us fixed delay, a data path of 4 us per read + 1.5 GB/s, 8 KiB pages.
const truth = {
  units: 6,
  unitBusyUs: 70,
  fixedLatencyUs: 12,
  transferBytesPerUs: 1500,
  commandUs: 4,
  stripeBytes: 8192,
  depthLimit: Number.POSITIVE_INFINITY,
};
const plan: [ReadMeasurement["pattern"], number, number][] = [
  ["random", 8192, 1],
  ["random", 8192, 4],
  ["random", 8192, 16],
  ["random", 8192, 64],
  ...[8192, 32768, 131072, 524288, 1048576, 4194304].flatMap(
    (b) =>
      [
        ["sequential", b, 1],
        ["sequential", b, 16],
      ] as [ReadMeasurement["pattern"], number, number][],
  ),
];
// The synthetic "measurement" uses another seed than the model's closed loop, as a real device would.
const measure = (
  device: Parameters<typeof closedLoopIops>[0],
  readAhead: Parameters<typeof closedLoopIops>[7] = null,
): ReadMeasurement[] =>
  plan.map(([pattern, blockBytes, queueDepth]) => {
    const iops = closedLoopIops(device, blockBytes, queueDepth, pattern, 7, 4194304, undefined, readAhead);
    return {
      pattern,
      blockBytes,
      queueDepth,
      iops,
      bytesPerSecond: iops * blockBytes,
      meanLatencyUs: (queueDepth * 1e6) / iops,
    };
  });
const points = measure(truth);

describe("fitting the flash queue to measured points (queue-fit.ts)", () => {
  const profile = profileFromMeasurements(points, { measuredWith: "synthetic points", maxIoBytes: 4194304 });

  it("reproduces every point of a synthetic device within 10 %", () => {
    for (const r of modelAtPoints(profile)) {
      expect(r.ratio, `${r.point.pattern} ${r.point.blockBytes} QD${r.point.queueDepth}`).toBeGreaterThan(
        0.9,
      );
      expect(r.ratio, `${r.point.pattern} ${r.point.blockBytes} QD${r.point.queueDepth}`).toBeLessThan(1.1);
    }
  }, 120_000);

  it("keeps the points and the fitted queue in the profile, 8 KiB pages from the random reads", () => {
    expect(profile.measurements).toHaveLength(points.length);
    expect(profile.queueModel?.stripeBytes).toBe(8192);
    expect(profile.latencyReadBytes).toBe(8192);
    expect(profile.note).toMatch(/queueModel: least-squares fit of the flash queue to the 16 points/);
  });

  it("finds no read-ahead in a device that has none: sequential small reads cost what random ones do", () => {
    expect(profile.internalReadAhead).toBeUndefined();
    expect(profile.note).toMatch(/no read-ahead for sequential streams/);
  });
});

// A virtual disk whose host reads ahead: one server of 220 us, a 40 us fixed delay, a data path of
// 1 us per read + 850 MB/s, and a 256 KiB read-ahead whose hits add 50 us. Random 8 KiB reads stop at
// about 4 500 a second, while sequential 8 KiB reads at QD16 pass 40 000.
const hostTruth = {
  ...truth,
  units: 1,
  unitBusyUs: 220,
  fixedLatencyUs: 40,
  transferBytesPerUs: 850,
  commandUs: 1,
};
const hostReadAhead = { triggerSequentialReads: 2, hitLatencyUs: 50, bufferBytes: 262144 };
const hostPoints = measure(hostTruth, hostReadAhead);

describe("fitting a device that reads ahead of sequential streams (queue-fit.ts)", () => {
  const profile = profileFromMeasurements(hostPoints, {
    measuredWith: "synthetic points",
    maxIoBytes: 4194304,
  });

  it("the points themselves: small sequential reads far faster than random ones", () => {
    const at = (pattern: string, q: number) =>
      hostPoints.find((m) => m.pattern === pattern && m.blockBytes === 8192 && m.queueDepth === q)!.iops;
    expect(at("random", 16)).toBeLessThan(5000);
    expect(at("sequential", 16)).toBeGreaterThan(8 * at("random", 16));
  });

  it("fits a read-ahead, and then reproduces every point within 15 %", () => {
    expect(profile.internalReadAhead).toMatchObject({ triggerSequentialReads: 2 });
    for (const r of modelAtPoints(profile)) {
      const label = `${r.point.pattern} ${r.point.blockBytes} QD${r.point.queueDepth}`;
      expect(r.ratio, label).toBeGreaterThan(0.85);
      expect(r.ratio, label).toBeLessThan(1.15);
    }
  }, 180_000);
});

describe("CPU cost of a read from the page cache (calibrate.ts fitCpuCosts)", () => {
  it("two block sizes give the line through them: 8 KiB in 1.05 us and 128 KiB in 14.2 us", () => {
    // apps/docs/src/reference/storage-device-models.md#copying-8-kb-from-the-page-cache: slope (14.2 - 1.05) / 122 880 us per byte.
    const c = fitCpuCosts([
      { blockBytes: 8192, usPerRead: 1.05 },
      { blockBytes: 131072, usPerRead: 14.2 },
    ]);
    expect(c.copyBytesPerUs).toBeCloseTo(122_880 / 13.15, 6);
    expect(c.readSyscallUs).toBeCloseTo(1.05 - 8192 / (122_880 / 13.15), 9);
  });

  it("three points on a line 0.35 us + bytes / 12 000 give back 0.35 and 12 000", () => {
    const c = fitCpuCosts(
      [8192, 32768, 131072].map((b) => ({ blockBytes: b, usPerRead: 0.35 + b / 12_000 })),
    );
    expect(c.readSyscallUs).toBeCloseTo(0.35, 9);
    expect(c.copyBytesPerUs).toBeCloseTo(12_000, 6);
  });

  it("never gives a negative fixed cost: points through the origin or below it fit a copy only", () => {
    const c = fitCpuCosts([
      { blockBytes: 8192, usPerRead: 0.5 },
      { blockBytes: 131072, usPerRead: 12 },
    ]);
    expect(c.readSyscallUs).toBe(0);
    expect(c.copyBytesPerUs).toBeGreaterThan(0);
  });
});
