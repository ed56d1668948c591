import { describe, expect, it } from "vitest";
import { getBuiltinProfile } from "./builtin-profiles.js";
import { countedIos } from "./cloud-budget.js";
import { createDeviceModel } from "./create-device-model.js";
import { parseDeviceProfile } from "./parse-profile.js";
import type { CloudVolumeProfile } from "./profile-schema.js";
import { burstingVolume } from "./test-profiles.js";
import { throughputAt } from "./throughput.js";

const gp3 = getBuiltinProfile("aws-ebs-gp3-baseline") as CloudVolumeProfile;
const KiB = 1024;

describe("EBS I/O counting (apps/docs/src/reference/storage-device-models.md#aws-ebs-volumes, ebs-io-characteristics)", () => {
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

  it("needs about 3 reads in flight to reach 3 000 IOPS at 1 ms (apps/docs/src/reference/storage-device-models.md#aws-ebs-volumes [I])", () => {
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

describe("burst buckets over time, with the figures of apps/docs/src/reference/storage-device-models.md#aws-ebs-volumes", () => {
  const MiB = 1024 * 1024;
  const TiB = 1024 * 1024 * MiB;
  const volume = (fields: Record<string, unknown>) =>
    parseDeviceProfile(
      {
        kind: "cloud-volume",
        name: "test-volume",
        title: "test",
        basis: "assumption",
        sources: ["apps/docs/src/reference/storage-device-models.md#aws-ebs-volumes"],
        note: "",
        maxIoBytes: 1024 * KiB,
        readLatencyUs: 1000, // apps/docs/src/reference/storage-device-models.md#aws-ebs-volumes gives no st1/gp2 latency: 1 ms assumed for the test
        ...fields,
      },
      "test",
    );

  it("st1, 1 TiB: 250 MiB/s while 1 TiB of byte credits last, then the 40 MiB/s baseline", () => {
    // apps/docs/src/reference/storage-device-models.md#aws-ebs-volumes, st1: baseline 40 MiB/s per TiB, burst 250 MiB/s per TiB, bucket of 1 TiB of credits per TiB
    // refilled at the baseline rate, 500 IOPS of 1 MiB I/Os. Sequential 1 MiB reads all queued at t = 0:
    // read k is admitted at max(k / 500 s, k MiB / 250 MiB/s, k MiB / 40 MiB/s - 1 TiB / 40 MiB/s).
    // 1 TiB / 40 MiB/s = 1 048 576 / 40 = 26 214.4 s. The burst lasts while k / 250 >= k / 40 - 26 214.4,
    // i.e. k <= 26 214.4 / (1/40 - 1/250) = 1 248 305 reads, 4 993 s (1 TiB / (250 - 40) MiB/s).
    const st1 = volume({
      iopsLimit: 500,
      throughputLimitBytesPerSecond: 40 * MiB,
      ioCountingUnitBytes: 1024 * KiB,
      mergeSequentialIos: true,
      burst: { throughputLimitBytesPerSecond: 250 * MiB, byteCredits: TiB },
    });
    const m = createDeviceModel(st1);
    const at = new Map<number, number>();
    const probes = new Set([1_000_000, 1_248_000, 1_400_000]);
    for (let k = 0; k <= 1_400_000; k++) {
      const done = m.submit(k * MiB, MiB, 0);
      if (probes.has(k)) at.set(k, done);
    }
    expect(at.get(1_000_000)! / 1e6).toBeCloseTo(1_000_000 / 250 + 0.001, 6); // 4 000 s: burst rate
    expect(at.get(1_248_000)! / 1e6).toBeCloseTo(1_248_000 / 250 + 0.001, 6); // 4 992 s: still bursting
    expect(at.get(1_400_000)! / 1e6).toBeCloseTo(1_400_000 / 40 - 26_214.4 + 0.001, 6); // 8 785.6 s: baseline
  });

  it("gp2, 100 GiB: bursts to 3 000 IOPS from a 5.4 M-credit bucket for 5.4 M / (3 000 - 300) = 2 000 s", () => {
    // apps/docs/src/reference/storage-device-models.md#aws-ebs-volumes, gp2 for comparison: 3 IOPS/GiB (300 at 100 GiB), burst to 3 000 from a 5.4 M-credit bucket.
    // Random 16 KiB reads queued at t = 0 (16 KiB x 3 000/s = 47 MiB/s, under the throughput limit): read k is
    // admitted at max(k / 3 000 s, k / 300 s - 5.4 M / 300 s) = max(k / 3 000, k / 300 - 18 000) s.
    const gp2 = volume({
      iopsLimit: 300,
      throughputLimitBytesPerSecond: 250 * MiB,
      ioCountingUnitBytes: 256 * KiB,
      mergeSequentialIos: true,
      burst: { iopsLimit: 3000, ioCredits: 5.4e6 },
    });
    const m = createDeviceModel(gp2);
    const at = new Map<number, number>();
    const probes = new Set([3_000_000, 5_990_000, 6_300_000]);
    for (let k = 0; k <= 6_300_000; k++) {
      const done = m.submit((k % 2 === 0 ? k : 2 ** 30 - k) * 16 * KiB, 16 * KiB, 0); // never sequential
      if (probes.has(k)) at.set(k, done);
    }
    expect(at.get(3_000_000)! / 1e6).toBeCloseTo(1000 + 0.001, 6); // burst rate
    expect(at.get(5_990_000)! / 1e6).toBeCloseTo(5_990_000 / 3000 + 0.001, 6); // 1 996.7 s: still bursting
    expect(at.get(6_300_000)! / 1e6).toBeCloseTo(6_300_000 / 300 - 18_000 + 0.001, 6); // 3 000 s: baseline
  });
});
