/**
 * The SATA controller's read-ahead (flash-queue.ts, "Controller read-ahead"):
 * a hit and a miss, worked by hand on the Intel SSD 320 with the sata-ssd
 * class assumption (trigger 2 reads, 128 KiB buffer in two halves, no added
 * latency).
 */
import { describe, expect, it } from "vitest";
import { getBuiltinProfile } from "./builtin-profiles.js";
import { controllerReadAheadOf, FlashQueueModel } from "./flash-queue.js";
import { parseDeviceProfile } from "./parse-profile.js";
import { type FlashProfile, SATA_CONTROLLER_READ_AHEAD } from "./profile-schema.js";
import { roundFlash } from "./test-profiles.js";

const intel320 = getBuiltinProfile("intel-ssd-320-120gb") as FlashProfile;
const B8K = 8192;

/** QD1: each read submitted when the previous completes; returns each read's latency. */
function qd1(m: FlashQueueModel, offsets: readonly number[], startUs = 0): number[] {
  let t = startUs;
  return offsets.map((o) => {
    const done = m.submit(o, B8K, t);
    const latency = done - t;
    t = done;
    return latency;
  });
}

describe("which profiles read ahead", () => {
  it("every sata-ssd datasheet profile gets the one class assumption; NVMe, unknown-interface and off do not", () => {
    expect(controllerReadAheadOf(intel320)).toBe(SATA_CONTROLLER_READ_AHEAD);
    expect(SATA_CONTROLLER_READ_AHEAD).toEqual({
      triggerSequentialReads: 2,
      hitLatencyUs: 0,
      bufferBytes: 131072,
    });
    expect(controllerReadAheadOf(getBuiltinProfile("samsung-990-pro-1tb") as FlashProfile)).toBeNull();
    expect(controllerReadAheadOf(roundFlash())).toBeNull();
    const off = parseDeviceProfile({ ...intel320, internalReadAhead: false }, "test") as FlashProfile;
    expect(controllerReadAheadOf(off)).toBeNull();
  });
});

describe("Intel SSD 320, sequential 8 KiB reads at QD1", () => {
  const m = new FlashQueueModel(intel320);
  const p = m.parameters;
  const pathUs = p.commandUs + B8K / p.transferBytesPerUs + p.fixedLatencyUs;
  const missUs = 75 + 4096 / 270;

  it("the first three go to the flash (the third is where the stream is detected)", () => {
    m.reset();
    const lat = qd1(m, [0, B8K, 2 * B8K]);
    for (const l of lat) expect(l).toBeCloseTo(missUs, 6);
    expect(m.readAheadHits).toBe(0);
  });

  it("a hit: the fourth waits only for its half of the buffer (sensed since the third's data was in), then the data path", () => {
    m.reset();
    const lat = qd1(m, [0, B8K, 2 * B8K, 3 * B8K, 4 * B8K]);
    // The buffer's first half was sensed from the third read's data-ready time for unitBusy; the fourth is
    // submitted when the third completes, pathUs after that data-ready time.
    expect(lat[3]).toBeCloseTo(Math.max(p.unitBusyUs, pathUs), 6);
    // By the fifth the half is in: the data path and the command path only.
    expect(lat[4]).toBeCloseTo(pathUs, 6);
    expect(lat[4]!).toBeLessThan(0.5 * missUs);
    expect(m.readAheadHits).toBe(2);
  });

  it("a stream of 64 reads (512 KiB, past several refills) averages well under the QD1 miss", () => {
    m.reset();
    const lat = qd1(
      m,
      Array.from({ length: 64 }, (_, i) => i * B8K),
    );
    const mean = lat.slice(3).reduce((a, b) => a + b, 0) / (lat.length - 3);
    expect(mean).toBeLessThan(0.6 * missUs);
    expect(m.readAheadHits).toBe(61);
  });

  it("a miss: a read that goes back (a prefetch overtook the reader) breaks the stream", () => {
    m.reset();
    // Block 4 is read before block 3, as when advice for a later block reaches the drive first: block 4
    // skips ahead inside the buffer (a hit), block 3 goes back (a miss).
    const lat = qd1(m, [0, B8K, 2 * B8K, 4 * B8K, 3 * B8K, 5 * B8K]);
    // As the fourth read of a plain stream: it waits for its half of the buffer, not for the flash.
    expect(lat[3]).toBeCloseTo(Math.max(p.unitBusyUs, pathUs), 6);
    expect(lat[3]!).toBeLessThan(missUs);
    expect(lat[4]!).toBeGreaterThanOrEqual(missUs - 1e-6);
    // Block 5 starts where block 4 ended, but the last read was block 3: the count starts again, flash.
    expect(lat[5]!).toBeGreaterThanOrEqual(missUs - 1e-6);
    expect(m.readAheadHits).toBe(1);
  });

  it("a hit: a read that skips ahead but stays inside the buffer (its data is already there)", () => {
    m.reset();
    // Blocks 3 and 5 are skipped, as a sparse bitmap skips pages: 4 and 6 lie inside the 128 KiB buffer.
    const lat = qd1(m, [0, B8K, 2 * B8K, 4 * B8K, 6 * B8K, 7 * B8K]);
    expect(lat[4]).toBeCloseTo(pathUs, 6);
    expect(lat[5]).toBeCloseTo(pathUs, 6);
    expect(m.readAheadHits).toBe(3);
  });

  it("a miss: a skip past the buffer breaks the stream", () => {
    m.reset();
    // 128 KiB is 16 blocks past the third read's end: block 40 lies beyond what is buffered.
    const lat = qd1(m, [0, B8K, 2 * B8K, 40 * B8K]);
    // A flash read, waiting besides for its unit while the buffer's background reads hold it.
    expect(lat[3]!).toBeGreaterThanOrEqual(missUs - 1e-6);
    expect(m.readAheadHits).toBe(0);
  });

  it("a miss: reads larger than the buffer stay on the flash path", () => {
    m.reset();
    let t = 0;
    for (let i = 0; i < 6; i++) t = m.submit(i * 262144, 262144, t);
    expect(m.readAheadHits).toBe(0);
  });

  it("without read-ahead the same stream pays the flash on every read", () => {
    const off = new FlashQueueModel(
      parseDeviceProfile({ ...intel320, internalReadAhead: false }, "test") as FlashProfile,
    );
    const lat = qd1(off, [0, B8K, 2 * B8K, 3 * B8K, 4 * B8K]);
    for (const l of lat) expect(l).toBeCloseTo(missUs, 6);
  });
});
