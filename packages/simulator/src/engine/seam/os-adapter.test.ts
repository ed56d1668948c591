/**
 * The OS adapter end to end, against the device model it wraps: with direct
 * I/O (`os: "none"`) nothing stands between a scan's reads and the device,
 * so a cold serial scan takes exactly the time of its 8 kB reads issued one
 * after another, each followed by the block's CPU.
 */
import { createDeviceModel, getBuiltinProfile } from "@scanlab/device-profiles";
import { describe, expect, it } from "vitest";
import { resolveScenario } from "../../scenario/resolve.js";
import { simulateWith } from "../loop/simulate.js";
import { DEFAULT_CPU_COSTS, pageWorkUs, preadUs } from "../pg/cpu-costs.js";
import { realModels } from "./adapters.js";

describe("direct I/O", () => {
  it("one reader, cold, direct I/O: every block waits for its own 8 kB device read", () => {
    const r = simulateWith(
      resolveScenario({
        name: "test",
        machine: { cores: 8, ram: "4GB", os: "none", device: "intel-ssd-320-120gb", cpu: { jitter: 0 } },
        tables: [{ name: "t", blocks: 10_000, tuplesPerPage: 100 }],
        queries: [{ name: "q", table: "t", pg: "14", workers: 0 }],
      }),
      realModels,
    );
    // The same device model, read the way the scan reads: one 8 kB read at a time, then the CPU.
    const device = createDeviceModel(getBuiltinProfile("intel-ssd-320-120gb"));
    const cpuUs = preadUs(DEFAULT_CPU_COSTS, 8192) + pageWorkUs(DEFAULT_CPU_COSTS, 100);
    let t = 0;
    for (let b = 0; b < 10_000; b++) t = device.submit(b * 8192, 8192, t) + cpuUs;
    expect(r.queries[0]!.meanDurationS).toBeCloseTo(t / 1e6, 6);
    expect(r.device.reads).toBe(10_000);
    expect(r.device.avgReadKb).toBe(8);
  });
});
