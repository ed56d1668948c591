import { describe, expect, it } from "vitest";
import { DeviceProfileError } from "./errors.js";
import { flashQueueParameters } from "./flash-queue.js";
import { throughputAt } from "./throughput.js";
import { unknownVmSsdProfile, VM_SSD_CLASS_DEFAULTS } from "./vm-ssd-class.js";

describe("unknown SSD in a virtual machine (profile class)", () => {
  it("derives the one unknown from a QD1 stream: 128 KiB at 500 MB/s is 262 us per read", () => {
    // L = 131072 / 500 MB/s - (131072 - 4096) / 3.0 GB/s = 262.144 - 42.325 = 219.819 us.
    const p = unknownVmSsdProfile({ qd1ReadBytesPerSecond: 500e6 });
    expect(p.readLatencyQd1Us).toBeCloseTo(262.144 - (131072 - 4096) / 3000, 6);
    const r = throughputAt(p, { queueDepth: 1, requestBytes: 131072, pattern: "sequential" });
    expect(r.bytesPerSecond / 1e6).toBeCloseTo(500, 6);
  });

  it("keeps the class ceilings and states its assumptions", () => {
    const p = unknownVmSsdProfile({ readLatencyQd1Us: 200, source: "T1 serial baseline" });
    expect(p.sequentialReadBytesPerSecond).toBe(VM_SSD_CLASS_DEFAULTS.sequentialReadBytesPerSecond);
    expect(p.randomReadIops).toBe(VM_SSD_CLASS_DEFAULTS.randomReadIops);
    expect(p.basis).toBe("assumption");
    expect(p.sources).toContain("T1 serial baseline");
    expect(p.note).toMatch(/Assumed: SSD-class backing store/);
    // Little's law: 400 000 x 200 us = 80 in flight -> depth 128.
    expect(p.randomReadQueueDepth).toBe(128);
    expect(flashQueueParameters(p).units).toBe(Math.floor(400_000 * (200 - 4096 / 3000) * 1e-6));
  });

  it("lets parallel streams scale until the assumed ceiling", () => {
    const p = unknownVmSsdProfile({ qd1ReadBytesPerSecond: 500e6 });
    const two = throughputAt(p, { queueDepth: 2, requestBytes: 131072, pattern: "sequential" });
    const many = throughputAt(p, { queueDepth: 64, requestBytes: 131072, pattern: "sequential" });
    expect(two.bytesPerSecond / 1e6).toBeCloseTo(1000, 0);
    expect(many.bytesPerSecond / 1e6).toBeCloseTo(3000, 0);
  });

  it("rejects a QD1 figure at or above the ceiling, and a call with neither or both unknowns", () => {
    expect(() => unknownVmSsdProfile({ qd1ReadBytesPerSecond: 3.5e9 })).toThrow(DeviceProfileError);
    expect(() => unknownVmSsdProfile({})).toThrow(
      /exactly one of readLatencyQd1Us and qd1ReadBytesPerSecond/,
    );
    expect(() => unknownVmSsdProfile({ readLatencyQd1Us: 100, qd1ReadBytesPerSecond: 1e8 })).toThrow(
      /exactly one/,
    );
  });
});
