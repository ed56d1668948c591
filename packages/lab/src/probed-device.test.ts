/**
 * The device a probed server's cells are predicted on: the flash queue
 * fitted to the probe's points, with the CPU costs of the user's profile.
 */
import { describe, expect, it } from "vitest";
import { probedDevice, type TableDeviceProbe } from "./probed-device.js";

const probe: TableDeviceProbe = {
  pg: 18,
  table: "bitmap_random",
  file: "/tmp/lab/base/5/16384",
  measuredWith: "fio-3.33 ioengine=io_uring direct=1 --readonly",
  points: [
    {
      pattern: "random",
      blockBytes: 8192,
      queueDepth: 1,
      iops: 8000,
      bytesPerSecond: 65.5e6,
      meanLatencyUs: 125,
    },
    {
      pattern: "random",
      blockBytes: 8192,
      queueDepth: 16,
      iops: 40000,
      bytesPerSecond: 327.7e6,
      meanLatencyUs: 400,
    },
    {
      pattern: "sequential",
      blockBytes: 1048576,
      queueDepth: 16,
      iops: 800,
      bytesPerSecond: 838.9e6,
      meanLatencyUs: 20000,
    },
  ],
  maxIoBytes: 4194304,
};

// Each call fits the flash queue to the points (a few hundred closed loops): generous for a loaded machine.
const FIT_TIMEOUT_MS = 120_000;

describe("probedDevice", () => {
  it(
    "is the profile measured from the probe's points, with the user's CPU costs",
    () => {
      const cpu = { readSyscallUs: 0.32, copyBytesPerUs: 9088, fillUsPerPage: 0.41 };
      const d = probedDevice({ kind: "sata-ssd", name: "old-file", cpu, readLatencyQd1Us: 314 }, probe);
      expect(d.cpu).toEqual(cpu);
      expect(d.name).toBe("lab-probe-pg18");
      expect(d.readLatencyQd1Us).toBe(125);
      expect(d.randomReadIops).toBe(40000);
      expect(d.maxIoBytes).toBe(4194304);
      expect(d.measurements).toHaveLength(3);
      expect(d.queueModel).toBeDefined();
    },
    FIT_TIMEOUT_MS,
  );

  it(
    "keeps nothing of a built-in profile's name: its CPU figures are the simulator's defaults either way",
    () => {
      const d = probedDevice("intel-ssd-320-120gb", probe);
      expect(d.cpu).toBeUndefined();
      expect(d.kind).toBe("ssd");
    },
    FIT_TIMEOUT_MS,
  );
});
