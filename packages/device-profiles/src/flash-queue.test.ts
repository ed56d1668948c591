import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { getBuiltinProfile } from "./builtin-profiles.js";
import { createDeviceModel } from "./create-device-model.js";
import { FlashQueueModel, flashQueueParameters } from "./flash-queue.js";
import type { FlashProfile } from "./profile-schema.js";
import { roundFlash } from "./test-profiles.js";
import { throughputAt } from "./throughput.js";

describe("flash queue derivation (flash-queue.ts header)", () => {
  it("turns L = 100 us, B = 409.6 MB/s, R = 40 000 at QD32 into 3 units whose model reaches R at QD32", () => {
    // budget = 100 - 4096/409.6 = 90 us; R x budget = 3.6 -> N = 3; unitBusy <= N / R = 75 us, solved so QD32 gives R.
    const p = flashQueueParameters(roundFlash());
    expect(p.units).toBe(3);
    expect(p.budgetUs).toBeCloseTo(90, 9);
    expect(p.unitBusyUs).toBeLessThanOrEqual(75);
    expect(p.unitBusyUs).toBeGreaterThan(60);
    expect(p.fixedLatencyUs).toBeCloseTo(90 - p.unitBusyUs, 9);
    expect(p.commandUs).toBe(0);
    expect(p.stripeBytes).toBe(4096);
    expect(throughputAt(roundFlash(), { queueDepth: 32, requestBytes: 4096 }).iops / 40_000).toBeCloseTo(
      1,
      2,
    );
  });

  it("works the Intel SSD 320 example of the header: 2 units, 8 KiB at QD1 in about 90 us", () => {
    // apps/docs/src/reference/storage-device-models.md#intel-ssd-320: L = 75 us, B = 270 MB/s, R = 38 000; budget 59.8 us, R x budget = 2.27 -> 2 units.
    const p = flashQueueParameters(
      roundFlash({ readLatencyQd1Us: 75, sequentialReadBytesPerSecond: 270e6, randomReadIops: 38_000 }),
    );
    expect(p.units).toBe(2);
    expect(p.unitBusyUs).toBeLessThanOrEqual(2e6 / 38_000);
    expect(p.unitBusyUs).toBeGreaterThan(0.9 * (2e6 / 38_000));
  });

  it("keeps at least one unit when the IOPS figure is below what QD1 already gives", () => {
    // R = 5 000 < 1 / 90 us: one unit, busy for the whole budget (the ceiling is then 1 / 90 us).
    const p = flashQueueParameters(roundFlash({ randomReadIops: 5_000 }));
    expect(p.units).toBe(1);
    expect(p.unitBusyUs).toBeCloseTo(90, 9);
    expect(p.fixedLatencyUs).toBeCloseTo(0, 9);
  });
});

/** 4 units busy 60 us, a 10 us fixed delay, a data path of 5 us per read + 1000 bytes/us, 8 KiB pages. */
const worked = (units = 4) =>
  roundFlash({
    maxIoBytes: 4 * 1048576,
    queueModel: {
      units,
      unitBusyUs: 60,
      fixedLatencyUs: 10,
      transferBytesPerSecond: 1e9,
      commandUs: 5,
      stripeBytes: 8192,
    },
  });

describe("flash queue model, worked examples (a fitted queueModel)", () => {
  it("8 kB at QD1: 60 (unit) + 5 + 8.192 (data path) + 10 (fixed) = 83.192 us", () => {
    const m = createDeviceModel(worked());
    expect(m.submit(0, 8192, 1000)).toBeCloseTo(1083.192, 9);
    expect(throughputAt(worked(), { queueDepth: 1, requestBytes: 8192 }).iops).toBeCloseTo(1e6 / 83.192, 3);
  });

  it("8 kB at saturation: the 4 units, 4 / 60 us = 66 667 IOPS (the data path could carry 1 / 13.192 us = 75 800)", () => {
    const r = throughputAt(worked(), { queueDepth: 512, requestBytes: 8192 });
    expect(r.iops / (4e6 / 60)).toBeGreaterThan(0.97);
    expect(r.iops / (4e6 / 60)).toBeLessThanOrEqual(1.001);
  });

  it("1 MB at QD1: 60 + 5 + 1048.576 + 10 = 1123.576 us", () => {
    const m = createDeviceModel(worked());
    expect(m.submit(0, 1048576, 0)).toBeCloseTo(1123.576, 9);
  });

  it("1 MB at saturation: the data path, 1 / 1053.576 us = 949 IOPS, 995 MB/s", () => {
    const r = throughputAt(worked(), { queueDepth: 16, requestBytes: 1048576, pattern: "sequential" });
    expect(r.iops).toBeCloseTo(1e6 / 1053.576, 0);
    expect(r.bytesPerSecond / 1e6).toBeCloseTo(995.3, 0);
  });

  it("bends gradually: random reads collide on units, so QD4 gives less than 4 x QD1 and less than the ceiling", () => {
    // One unit: every read waits for the one before. Four units at QD4: collisions (balls into bins) cost some.
    const qd = (q: number) => throughputAt(worked(), { queueDepth: q, requestBytes: 8192 }).iops;
    const one = qd(1);
    const four = qd(4);
    expect(four).toBeLessThan(0.9 * Math.min(4 * one, 4e6 / 60));
    expect(four).toBeGreaterThan(2 * one);
    expect(throughputAt(worked(1), { queueDepth: 4, requestBytes: 8192 }).iops).toBeCloseTo(1e6 / 60, -1);
  });

  it("charges every read the unit its first page hashes to, whatever the order (the same reads give the same times)", () => {
    const a = createDeviceModel(worked());
    const b = createDeviceModel(worked());
    const offsets = [0, 8192, 5 * 8192, 77 * 8192, 8192];
    expect(offsets.map((o) => a.submit(o, 8192, 0))).toEqual(offsets.map((o) => b.submit(o, 8192, 0)));
  });

  it("splits reads above maxIoBytes into pieces that complete together", () => {
    const m = createDeviceModel(roundFlash());
    m.submit(0, 2 * 1048576, 0);
    expect(m.stats().deviceRequests).toBe(2);
    expect(m.stats().requests).toBe(1);
  });

  it("is idle again after reset()", () => {
    const m = createDeviceModel(roundFlash());
    for (let i = 0; i < 10; i++) m.submit(i * 4096, 4096, 0);
    m.reset();
    expect(m.submit(0, 4096, 0)).toBeCloseTo(100, 9);
    expect(m.stats().requests).toBe(1);
  });

  it("rejects a read of 0 bytes as a programming error", () => {
    const m = createDeviceModel(roundFlash());
    expect(() => m.submit(0, 0, 0)).toThrow(RangeError);
  });
});

describe("queueing laws through the closed loop", () => {
  it("QD1 gives 1 / latency; QD32 the datasheet's R", () => {
    const p = roundFlash();
    const iops = (q: number) => throughputAt(p, { queueDepth: q, requestBytes: 4096 }).iops;
    expect(iops(1) / 10_000).toBeCloseTo(1, 3);
    expect(iops(32) / 40_000).toBeCloseTo(1, 2);
  });

  it("satisfies Little's law at and beyond saturation: QD = IOPS x mean latency", () => {
    const p = roundFlash();
    for (const q of [1, 3, 8, 32, 100]) {
      const r = throughputAt(p, { queueDepth: q, requestBytes: 4096 });
      // Exact in steady state; within 0.5 % over a finite counting window (collisions vary within it).
      expect((r.iops * r.meanLatencyUs) / 1e6 / q).toBeCloseTo(1, 2);
    }
  });

  it("caps large reads at the sequential bandwidth whatever the depth", () => {
    const p = roundFlash();
    const r = throughputAt(p, { queueDepth: 16, requestBytes: 131072, pattern: "sequential" });
    expect(r.bytesPerSecond).toBeCloseTo(409.6e6, -3);
  });

  it("reports utilisation and mean queue depth like iostat", () => {
    const m = createDeviceModel(roundFlash());
    // Two back-to-back QD1 reads: [0, 100) and [100, 200): busy the whole 200 us, depth 1.
    const first = m.submit(0, 4096, 0);
    m.submit(4096, 4096, first);
    const s = m.stats();
    expect(s.busyUs).toBeCloseTo(200, 9);
    expect(s.utilisation).toBeCloseTo(1, 9);
    expect(s.meanQueueDepth).toBeCloseTo(1, 9);
    expect(s.meanLatencyUs).toBeCloseTo(100, 9);
  });
});

describe("in-drive read-ahead given in a profile (flash-queue.ts, controller read-ahead)", () => {
  it("serves a sequential stream from the buffer after the trigger, skipping the unit", () => {
    const p = roundFlash({ internalReadAhead: { triggerSequentialReads: 2, hitLatencyUs: 5 } });
    const m = new FlashQueueModel(p);
    const { fixedLatencyUs: fixed, unitBusyUs } = m.parameters;
    // Reads 1-3 (run lengths 0, 1, 2) go to the flash; the third detects the stream and the buffer is
    // sensed behind it from its data-ready time. The fourth waits for that (or 5 us), then 10 us of path.
    let t = 0;
    for (const o of [0, 4096, 8192]) t = m.submit(o, 4096, t);
    const fourth = m.submit(12288, 4096, t) - t;
    expect(fourth).toBeCloseTo(Math.max(15 + fixed, unitBusyUs), 9);
    t += fourth;
    // The fifth finds its half in: 5 + 10 (path) + fixed after submission.
    expect(m.submit(16384, 4096, t) - t).toBeCloseTo(15 + fixed, 9);
    // A jump breaks the stream: the full 100 us again.
    const s2 = t + 1000;
    expect(m.submit(10 * 1048576, 4096, s2) - s2).toBeCloseTo(100, 9);
  });
});

describe("Intel SSD 320 at QD1, by hand from apps/docs/src/reference/storage-device-models.md#intel-ssd-320 (75 us 4 KiB latency, 270 MB/s = 270 B/us)", () => {
  // At QD1 nothing waits, so a b-byte read takes L + (b - 4096) / B (flash-queue.ts header).
  const intel320 = getBuiltinProfile("intel-ssd-320-120gb");
  it("8 KiB: 75 + 4096 / 270 = 90.17 us", () => {
    const m = createDeviceModel(intel320);
    expect(m.submit(0, 8192, 500)).toBeCloseTo(500 + 75 + 4096 / 270, 6);
  });

  it("128 KiB: 75 + 126 976 / 270 = 545.28 us, i.e. 240 MB/s (apps/docs/src/reference/storage-device-models.md#intel-ssd-320 [I]: 'the link ... limits large reads even at QD1')", () => {
    const m = createDeviceModel(intel320);
    const done = m.submit(0, 131072, 0);
    expect(done).toBeCloseTo(75 + 126_976 / 270, 6);
    expect(131072 / done).toBeCloseTo(240.4, 1); // bytes per us = MB/s
  });

  it("a read submitted after the device went idle again costs the same as the first", () => {
    const m = createDeviceModel(intel320);
    m.submit(0, 131072, 0); // done at 545.28 us
    expect(m.submit(1 << 30, 8192, 10_000)).toBeCloseTo(10_000 + 75 + 4096 / 270, 6);
  });
});

describe("ceilings and time order under any workload (property)", () => {
  // The data path moves at most B bytes per us and the N units serve at most R reads per us
  // (each held N / R us, flash-queue.ts header), so whatever is submitted from t0 on and has completed by
  // T satisfies bytes <= B (T - t0) and reads <= R (T - t0); and a read never completes before its own QD1 time.
  const profiles = ["intel-ssd-320-120gb", "intel-dc-s3700-100gb", "samsung-990-pro-1tb"].map((n) =>
    getBuiltinProfile(n),
  ) as FlashProfile[];
  it("never exceeds the datasheet bandwidth or IOPS, and never completes a read early", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: profiles.length - 1 }),
        // Small reads test the IOPS ceiling, large ones the bandwidth: each run draws from one of the sets.
        fc.constantFrom([512, 4096], [4096, 8192, 65536, 131072, 1048576]).chain((sizes) =>
          fc.array(
            fc.record({
              gapUs: fc.constantFrom(0, 0, 0, 1, 5, 50, 500),
              bytes: fc.constantFrom(...sizes),
              offset: fc.integer({ min: 0, max: 2 ** 30 }),
            }),
            { minLength: 1, maxLength: 300 },
          ),
        ),
        (i, reads) => {
          const p = profiles[i]!;
          const B = p.sequentialReadBytesPerSecond / 1e6; // bytes per us
          const R = p.randomReadIops / 1e6; // reads per us
          const m = createDeviceModel(p);
          let now = 0;
          let bytes = 0;
          let pieces = 0;
          let last = 0;
          for (const r of reads) {
            now += r.gapUs;
            const done = m.submit(r.offset, r.bytes, now);
            const qd1 = p.readLatencyQd1Us + (Math.min(r.bytes, p.maxIoBytes) - p.latencyReadBytes) / B;
            if (done < now + qd1 - 1e-9) return false;
            bytes += r.bytes;
            pieces += Math.ceil(r.bytes / p.maxIoBytes);
            last = Math.max(last, done);
          }
          return bytes <= B * last * (1 + 1e-12) && pieces <= R * last * (1 + 1e-12);
        },
      ),
      { numRuns: 300 },
    );
  });
});
