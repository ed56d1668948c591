import { describe, expect, it } from "vitest";
import { getBuiltinProfile } from "./builtin-profiles.js";
import { countedIos } from "./cloud-budget.js";
import { createDeviceModel } from "./create-device-model.js";
import type { CloudVolumeProfile } from "./profile-schema.js";
import { burstingVolume } from "./test-profiles.js";
import { throughputAt } from "./throughput.js";

const gp3 = getBuiltinProfile("aws-ebs-gp3-baseline") as CloudVolumeProfile;
const KiB = 1024;

describe("EBS I/O counting (devices.md 6, ebs-io-characteristics)", () => {
  it("counts one I/O per started 256 KiB on SSD volumes", () => {
    expect(countedIos(8 * KiB, 256 * KiB)).toBe(1);
    expect(countedIos(256 * KiB, 256 * KiB)).toBe(1);
    expect(countedIos(257 * KiB, 256 * KiB)).toBe(2);
    expect(countedIos(1024 * KiB, 256 * KiB)).toBe(4);
  });

  it("merges physically sequential 8 KiB reads into one counted I/O per 256 KiB", () => {
    const m = createDeviceModel(gp3);
    for (let i = 0; i < 64; i++) m.submit(i * 8 * KiB, 8 * KiB, 0);
    expect(m.stats().deviceRequests).toBe(2); // 64 x 8 KiB = 512 KiB = 2 units
    const noMerge = createDeviceModel({ ...gp3, mergeSequentialIos: false });
    for (let i = 0; i < 64; i++) noMerge.submit(i * 8 * KiB, 8 * KiB, 0);
    expect(noMerge.stats().deviceRequests).toBe(64);
  });

  it("counts a Linux 128 KiB read-ahead as one I/O and a 1 MiB read as four", () => {
    const m = createDeviceModel(gp3);
    m.submit(0, 128 * KiB, 0);
    expect(m.stats().deviceRequests).toBe(1);
    m.submit(10 * 1024 * KiB, 1024 * KiB, 0);
    expect(m.stats().deviceRequests).toBe(5);
  });
});

describe("gp3 baseline budgets", () => {
  it("paces random 8 KiB reads at 3 000 IOPS: read k is admitted at k/3000 s and completes 1 ms later", () => {
    const m = createDeviceModel(gp3);
    const done = Array.from({ length: 10 }, (_, k) => m.submit(k * 1024 * 1024 * 1024, 8 * KiB, 0));
    done.forEach((c, k) => {
      expect(c).toBeCloseTo((k * 1e6) / 3000 + 1000, 6);
    });
  });

  it("needs about 3 reads in flight to reach 3 000 IOPS at 1 ms (devices.md 6 [I])", () => {
    expect(throughputAt(gp3, { queueDepth: 1, requestBytes: 8 * KiB }).iops).toBeCloseTo(1000, 3);
    expect(throughputAt(gp3, { queueDepth: 3, requestBytes: 8 * KiB }).iops).toBeCloseTo(3000, 1);
    expect(throughputAt(gp3, { queueDepth: 32, requestBytes: 8 * KiB }).iops).toBeCloseTo(3000, 1);
  });

  it("caps a sequential scan at 125 MiB/s whatever the queue depth", () => {
    const r = throughputAt(gp3, { queueDepth: 16, requestBytes: 128 * KiB, pattern: "sequential" });
    expect(r.bytesPerSecond / (1024 * 1024)).toBeCloseTo(125, 3);
    const big = throughputAt(gp3, { queueDepth: 16, requestBytes: 1024 * KiB, pattern: "sequential" });
    expect(big.bytesPerSecond / (1024 * 1024)).toBeCloseTo(125, 3);
  });
});

describe("burst bucket", () => {
  it("runs at the burst rate while credits last, then at the baseline", () => {
    // Baseline 100 IOPS (10 ms per I/O), burst 3 000 IOPS, 1 000 credits = 10 s of tolerance.
    // Read k is admitted at max(k/3000 s, k x 10 ms - 10 s): the burst pacer rules until
    // k/3000 = k/100 - 10, i.e. k ~ 1034; after that the baseline.
    const m = createDeviceModel(burstingVolume());
    const done: number[] = [];
    for (let k = 0; k < 2000; k++) done.push(m.submit(k * 1_048_576, 4096, 0));
    expect(done[500]).toBeCloseTo((500 * 1e6) / 3000 + 1000, 3);
    expect(done[1500]).toBeCloseTo(1500 * 10_000 - 10e6 + 1000, 3);
  });

  it("refills: after a long idle time the burst is available again", () => {
    const m = createDeviceModel(burstingVolume());
    for (let k = 0; k < 1500; k++) m.submit(k * 1_048_576, 4096, 0);
    const later = 60e6; // a minute later the bucket is full again
    expect(m.submit(0, 4096, later)).toBeCloseTo(later + 1000, 6);
    expect(m.submit(1_048_576, 4096, later)).toBeCloseTo(later + 1e6 / 3000 + 1000, 6);
  });
});
