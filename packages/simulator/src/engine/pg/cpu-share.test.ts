/**
 * The CPU share: scanning processes count from start to end, I/O workers
 * only while they are on a CPU.
 */
import { describe, expect, it } from "vitest";
import { CpuShare } from "./cpu-share.js";

describe("CpuShare", () => {
  it("stretches CPU work by busy / cores only beyond the core count", () => {
    const share = new CpuShare(2);
    share.active = 2;
    expect(share.cpuFactor()).toBe(1);
    share.active = 3;
    expect(share.cpuFactor()).toBe(1.5);
  });

  it("counts a helper from the start of its CPU work to its end, and not when no time is given", () => {
    const share = new CpuShare(2);
    share.active = 2;
    const h = share.addHelper();
    share.busy(h, 100, 200);
    expect(share.cpuFactor(99)).toBe(1);
    expect(share.cpuFactor(100)).toBe(1.5);
    expect(share.cpuFactor(199)).toBe(1.5);
    expect(share.cpuFactor(200)).toBe(1);
    expect(share.cpuFactor()).toBe(1);
  });

  it("a helper asking for its own share counts itself", () => {
    const share = new CpuShare(1);
    share.active = 1;
    share.addHelper();
    expect(share.cpuFactor(0, 1)).toBe(2);
  });
});
