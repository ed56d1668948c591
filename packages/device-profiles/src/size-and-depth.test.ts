/**
 * Worked examples of the flash queue's throughput as a function of request
 * size and queue depth (flash-queue.ts header): one SATA drive whose datasheet
 * quotes two random-read sizes, at queue depth 1 and at saturation, for 8 KiB
 * and 1 MiB reads. Figures by hand from
 * apps/docs/src/reference/storage-device-models.md#intel-dc-s3700-and-s3610:
 * DC S3700, L = 50 us (4 KiB), B = 500 MB/s = 500 bytes/us, 75 000 random
 * 4 KB and 47 500 random 8 KB reads per second at QD32, largest I/O 512 KiB.
 */
import { describe, expect, it } from "vitest";
import { getBuiltinProfile } from "./builtin-profiles.js";
import { createDeviceModel } from "./create-device-model.js";
import { flashQueueParameters, SATA_COMMAND_US } from "./flash-queue.js";
import type { FlashProfile } from "./profile-schema.js";
import { throughputAt } from "./throughput.js";

const s3700 = getBuiltinProfile("intel-dc-s3700-100gb") as FlashProfile;
/** c = 10^6 / 47 500 - 8192 / 500. */
const C_US = 1e6 / 47_500 - 8192 / 500;
const MiB = 1048576;

describe("the per-command time, from the datasheet's two random-read sizes", () => {
  it("is 10^6 / 47 500 - 8192 / 500 = 4.67 us for the DC S3700", () => {
    expect(flashQueueParameters(s3700).commandUs).toBeCloseTo(4.669, 3);
    expect(flashQueueParameters(s3700).commandUs).toBeCloseTo(C_US, 9);
  });

  it("is the SATA class value (the mean of the DC S3700's and DC S3610's) for the Intel 320, which quotes one size", () => {
    const s3610 = 1e6 / 52_000 - 8192 / 550;
    expect(SATA_COMMAND_US).toBeCloseTo((C_US + s3610) / 2, 2);
    const intel320 = getBuiltinProfile("intel-ssd-320-120gb") as FlashProfile;
    expect(flashQueueParameters(intel320).commandUs).toBe(SATA_COMMAND_US);
  });

  it("is 0 for an NVMe datasheet, which quotes one size", () => {
    expect(flashQueueParameters(getBuiltinProfile("samsung-990-pro-1tb") as FlashProfile).commandUs).toBe(0);
  });
});

describe("DC S3700 at queue depth 1", () => {
  it("8 KiB: L + 4096 / B = 58.19 us (the per-command time is inside the quoted latency)", () => {
    const m = createDeviceModel(s3700);
    expect(m.submit(0, 8192, 100)).toBeCloseTo(100 + 50 + 4096 / 500, 6);
  });

  it("1 MiB: two 512 KiB pieces, one after the other on the data path: L + c + (1 MiB - 4096) / B = 2143.6 us", () => {
    const m = createDeviceModel(s3700);
    const done = m.submit(0, MiB, 0);
    expect(m.stats().deviceRequests).toBe(2);
    expect(done).toBeCloseTo(50 + C_US + (MiB - 4096) / 500, 6);
    expect(MiB / done).toBeCloseTo(489.2, 1); // bytes per us = MB/s
  });
});

describe("DC S3700 at saturation (QD32, a closed loop that keeps 32 reads in flight)", () => {
  it("8 KiB random: the data path, 10^6 / (c + 8192 / B) = 47 500 reads per second (the datasheet's 8 KB figure)", () => {
    const r = throughputAt(s3700, { queueDepth: 32, requestBytes: 8192 });
    expect(r.iops / 47_500).toBeGreaterThan(0.97);
    expect(r.iops / 47_500).toBeLessThan(1.01);
  });

  it("4 KiB random still reaches the datasheet's 75 000", () => {
    const r = throughputAt(s3700, { queueDepth: 32, requestBytes: 4096 });
    expect(r.iops / 75_000).toBeCloseTo(1, 2);
  });

  it("1 MiB random: 1 MiB per 2 x c + 1 MiB / B = 497.8 MB/s, so small reads saturate at fewer bytes per second", () => {
    const big = throughputAt(s3700, { queueDepth: 32, requestBytes: MiB });
    expect(big.bytesPerSecond / 1e6).toBeCloseTo(MiB / (2 * C_US + MiB / 500), 0);
    const small = throughputAt(s3700, { queueDepth: 32, requestBytes: 8192 });
    expect(small.bytesPerSecond).toBeLessThan(0.8 * big.bytesPerSecond);
  });
});
