import { mulberry32 } from "@scanlab/core";
import { describe, expect, it } from "vitest";
import { getBuiltinProfile } from "./builtin-profiles.js";
import { createDeviceModel } from "./create-device-model.js";
import { HddModel, hddMechanics, seekUs } from "./hdd-mechanics.js";
import type { HddProfile } from "./profile-schema.js";
import { hddWithLookAhead } from "./test-profiles.js";
import { throughputAt } from "./throughput.js";

const hdd = getBuiltinProfile("hdd-7200rpm") as HddProfile;

describe("seek curve (hdd-mechanics.ts header)", () => {
  it("derives the full stroke from HC310's 0.23 ms single-track and 7.4 ms average seek: 0.23 + 7.17 x 15/8", () => {
    const m = hddMechanics(hdd);
    expect(m.fullStrokeSeekUs).toBeCloseTo(230 + (7400 - 230) * (15 / 8), 6); // 13 673.75 us
    expect(m.revolutionUs).toBeCloseTo(8333.33, 1); // HC310 Table 7: 8.33 ms
  });

  it("averages the datasheet's 7.4 ms over uniformly random start and end points", () => {
    const m = hddMechanics(hdd);
    const random = mulberry32(3);
    let sum = 0;
    const n = 200_000;
    for (let i = 0; i < n; i++) sum += seekUs(m, Math.abs(random.nextFloat() - random.nextFloat()));
    expect(sum / n).toBeGreaterThan(7400 * 0.99);
    expect(sum / n).toBeLessThan(7400 * 1.01);
  });

  it("solves the exponent from a given full stroke so the average still matches", () => {
    // 17.06 ms full stroke (apps/docs/src/reference/storage-device-models.md#hard-disks-at-7200-rpm, Constellation.2): k = 7170/16830; p from E[x^p] = 2/((p+1)(p+2)).
    const m = hddMechanics({ ...hdd, fullStrokeSeekUs: 17060 });
    const random = mulberry32(4);
    let sum = 0;
    const n = 200_000;
    for (let i = 0; i < n; i++) sum += seekUs(m, Math.abs(random.nextFloat() - random.nextFloat()));
    expect(sum / n / 7400).toBeGreaterThan(0.99);
    expect(sum / n / 7400).toBeLessThan(1.01);
    expect(seekUs(m, 1)).toBeCloseTo(17060, 6);
  });
});

describe("rotation", () => {
  it("waits half a revolution on average (HC310 Table 7: 4.16 ms)", () => {
    const model = new HddModel(hdd);
    const random = mulberry32(5);
    let sum = 0;
    const n = 50_000;
    for (let i = 0; i < n; i++)
      sum += model.rotationalWaitUs(Math.floor(random.nextFloat() * 6e12), random.nextFloat() * 1e9);
    expect(sum / n).toBeGreaterThan(4166 * 0.98);
    expect(sum / n).toBeLessThan(4166 * 1.02);
  });

  it("never waits a full revolution or more", () => {
    const model = new HddModel(hdd);
    const random = mulberry32(6);
    for (let i = 0; i < 10_000; i++) {
      const w = model.rotationalWaitUs(Math.floor(random.nextFloat() * 6e12), random.nextFloat() * 1e9);
      expect(w).toBeGreaterThanOrEqual(0);
      expect(w).toBeLessThan(8333.34);
    }
  });
});

describe("seek vs sequential", () => {
  it("costs a random 8 KiB read about 7.4 + 4.17 + 0.05 = 11.6 ms (apps/docs/src/reference/storage-device-models.md#hard-disks-at-7200-rpm), about 85 IOPS", () => {
    const r = throughputAt(hdd, { queueDepth: 1, requestBytes: 8192 });
    expect(r.meanLatencyUs).toBeGreaterThan(11_600 * 0.95);
    expect(r.meanLatencyUs).toBeLessThan(11_600 * 1.05);
    expect(r.iops).toBeGreaterThan(80);
    expect(r.iops).toBeLessThan(90);
  });

  it("streams sequential reads at the outer-zone rate with no seek or rotation (175 MB/s at LBA 0)", () => {
    const r = throughputAt(hdd, { queueDepth: 1, requestBytes: 131072, pattern: "sequential" });
    expect(r.bytesPerSecond / 1e6).toBeGreaterThan(175 * 0.99);
    expect(r.bytesPerSecond / 1e6).toBeLessThan(175 * 1.01);
  });

  it("slows to the inner-zone rate at the end of the disk (83 MB/s, Constellation ES.3)", () => {
    const start = hdd.capacityBytes - 4 * 1024 ** 3;
    const r = throughputAt(hdd, {
      queueDepth: 1,
      requestBytes: 131072,
      pattern: "sequential",
      startOffsetBytes: start,
    });
    expect(r.bytesPerSecond / 1e6).toBeGreaterThan(83 * 0.99);
    expect(r.bytesPerSecond / 1e6).toBeLessThan(83 * 1.01);
  });

  it("hides a host gap between sequential reads with look-ahead, and pays a revolution without it", () => {
    // QD1 stream of 128 KiB reads, the host thinks 100 us between a completion and the next read.
    const run = (p: HddProfile) => {
      const m = createDeviceModel(p);
      let t = m.submit(0, 131072, 0);
      const t0 = t;
      for (let i = 1; i <= 100; i++) t = m.submit(i * 131072, 131072, t + 100);
      return (t - t0) / 100; // us per read
    };
    const transferUs = 131072 / 175; // ~749 us at the outer zone
    // Look-ahead 1 MiB: the drive kept reading during the gap: the read is done ~transfer after the previous.
    expect(run(hdd)).toBeLessThan(transferUs + 100 + 1);
    // Look-ahead off: the byte after the previous read passed 100 us ago; wait the rest of a revolution.
    const off = run(hddWithLookAhead(hdd, 0));
    expect(off).toBeGreaterThan(8333 + transferUs - 5);
    expect(off).toBeLessThan(8333 + transferUs + 5);
  });

  it("reads a short skip forward without a seek: just the skipped bytes pass under the head", () => {
    const m = new HddModel(hddWithLookAhead(hdd, 0));
    const t = m.submit(0, 8192, 0);
    // Queued immediately behind: the head is at byte 8192; the next read starts 8 KiB further on.
    const done = m.submit(16384, 8192, 0);
    // The skipped 8 KiB is on the same track: rotation of 8 KiB then 8 KiB transfer = 2 x 8192/175 us.
    expect(done - t).toBeCloseTo((2 * 8192) / 175, 0);
  });
});

describe("rotation is consistent with streaming anywhere on the disk", () => {
  // Hand arithmetic from apps/docs/src/reference/storage-device-models.md#hard-disks-at-7200-rpm: HC310 7200 rpm -> 60e6 / 7200 = 8333.33 us per revolution;
  // Constellation ES.3 zone rate falls linearly from 175 MB/s (offset 0) to 83 MB/s (the 6 TB capacity),
  // so at offset x the rate is 175 - 92 x / 6e12 bytes per us (MB/s = 10^6 B/s = 1 B/us).
  const revUs = 60e6 / 7200;
  const rateAt = (x: number) => 175 - (92 * x) / 6e12;

  it("mid-disk, look-ahead off: a 100 us host gap costs the rest of a revolution (apps/docs/src/reference/storage-device-models.md#hard-disks-at-7200-rpm: 'one revolution (8.33 ms)')", () => {
    // 3e12 is half-way: 129 MB/s, a 128 KiB read transfers in 131072 / 129 = 1016.1 us. After each read the
    // host waits 100 us; the next byte passed under the head at the end of the transfer, so the drive waits
    // 8333.3 - 100 us for it: per read 100 + 8233.3 + 1016.1 = 9349.4 us.
    const start = 3e12;
    const m = createDeviceModel(hddWithLookAhead(hdd, 0));
    let t = m.submit(start, 131072, 0);
    const t0 = t;
    for (let i = 1; i <= 100; i++) t = m.submit(start + i * 131072, 131072, t + 100);
    const perRead = (t - t0) / 100;
    const expected = revUs + 131072 / rateAt(start);
    expect(Math.abs(perRead - expected)).toBeLessThan(5);
  });

  it("near the inner diameter, a short skip costs the skipped bytes' rotation, not a seek", () => {
    // At 5.9e12 the rate is 175 - 92 x 5.9/6 = 84.53 MB/s. The head ends the first 8 KiB read at byte
    // start + 8192; the second read starts 8 KiB further on the same track: 8192 / 84.53 us of rotation, then
    // 8192 / 84.53 us of transfer = 193.8 us after the first completes.
    const start = 5.9e12;
    const m = new HddModel(hddWithLookAhead(hdd, 0));
    const first = m.submit(start, 8192, 0);
    const second = m.submit(start + 16384, 8192, 0);
    expect(second - first).toBeCloseTo((2 * 8192) / rateAt(start), 0);
  });

  it("a byte b further on comes round b / rate later: rotationalWait(x + b) - rotationalWait(x) = b / rate(x)", () => {
    // Same instant, two offsets 64 KiB apart on one track: the second passes 65536 / rate(x) us after the first.
    const model = new HddModel(hdd);
    for (const x of [1e9, 2e12, 4e12, 5.5e12]) {
      const at = 123_456.7;
      const a = model.rotationalWaitUs(x, at);
      let b = model.rotationalWaitUs(x + 65536, at);
      if (b < a) b += revUs; // wrapped past the head
      expect(b - a, `offset ${x}`).toBeCloseTo(65536 / rateAt(x), 0);
    }
  });
});
