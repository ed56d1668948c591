/**
 * CPU cost helpers against the formulas and defaults documented in
 * cpu-costs.ts (apps/docs/src/reference/storage-device-models.md#copying-8-kb-from-the-page-cache for the pread, [I] for the rest).
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_CPU_COSTS, pageWorkUs, preadUs, resolveCpuCosts } from "./cpu-costs.js";
import { DEFAULT_CPU_JITTER } from "./cpu-jitter.js";

describe("DEFAULT_CPU_COSTS", () => {
  it("uses the jitter documented in cpu-jitter.ts (+-30%, apps/docs/src/reference/readahead-predictions.md#simulation-assumptions)", () => {
    expect(DEFAULT_CPU_COSTS.jitter).toBe(DEFAULT_CPU_JITTER);
    expect(DEFAULT_CPU_JITTER).toBe(0.3);
  });

  it("is frozen: no caller can change the defaults for everyone", () => {
    expect(Object.isFrozen(DEFAULT_CPU_COSTS)).toBe(true);
  });

  it("a cached 8 kB pread costs 0.35 + 8192 / 12000 = 1.033 us, against the measured ~1.05 us of apps/docs/src/reference/storage-device-models.md#copying-8-kb-from-the-page-cache", () => {
    expect(preadUs(DEFAULT_CPU_COSTS, 8192)).toBeCloseTo(0.35 + 8192 / 12000, 12);
    expect(preadUs(DEFAULT_CPU_COSTS, 8192)).toBeGreaterThan(1.0);
    expect(preadUs(DEFAULT_CPU_COSTS, 8192)).toBeLessThan(1.1);
  });

  it("a shared-buffer hit is about a tenth of a pread", () => {
    const ratio = DEFAULT_CPU_COSTS.sharedBufferHitUs / preadUs(DEFAULT_CPU_COSTS, 8192);
    expect(ratio).toBeGreaterThan(0.08);
    expect(ratio).toBeLessThan(0.12);
  });
});

describe("pageWorkUs", () => {
  it("is perPageUs + tuplesPerPage x perTupleUs: 100 tuples -> 1 + 5 = 6 us", () => {
    expect(pageWorkUs(DEFAULT_CPU_COSTS, 100)).toBeCloseTo(6, 12);
    expect(pageWorkUs(DEFAULT_CPU_COSTS, 0)).toBe(1);
    expect(pageWorkUs({ ...DEFAULT_CPU_COSTS, perPageUs: 2, perTupleUs: 0.5 }, 60)).toBeCloseTo(32, 12);
  });
});

describe("preadUs", () => {
  it("is readSyscallUs + bytes / copyBytesPerUs", () => {
    expect(preadUs(DEFAULT_CPU_COSTS, 0)).toBe(0.35);
    expect(preadUs(DEFAULT_CPU_COSTS, 131072)).toBeCloseTo(0.35 + 131072 / 12000, 12);
    expect(preadUs({ ...DEFAULT_CPU_COSTS, readSyscallUs: 1, copyBytesPerUs: 4096 }, 8192)).toBeCloseTo(
      3,
      12,
    );
  });
});

describe("resolveCpuCosts", () => {
  it("no overrides gives the defaults, as a fresh object", () => {
    const c = resolveCpuCosts(undefined);
    expect(c).toEqual(DEFAULT_CPU_COSTS);
    expect(c).not.toBe(DEFAULT_CPU_COSTS);
    expect(resolveCpuCosts({})).toEqual(DEFAULT_CPU_COSTS);
  });

  it("a scenario's cpu block replaces only the fields it names", () => {
    const c = resolveCpuCosts({ perTupleUs: 0.2, jitter: 0 });
    expect(c.perTupleUs).toBe(0.2);
    expect(c.jitter).toBe(0);
    expect(c.perPageUs).toBe(1.0);
    expect(c.workerForkUs).toBe(300);
    expect(pageWorkUs(c, 100)).toBeCloseTo(21, 12);
    expect(DEFAULT_CPU_COSTS.perTupleUs).toBe(0.05);
  });

  it("a field given as undefined keeps its default (a spread would copy the undefined and make every cost NaN)", () => {
    const c = resolveCpuCosts({ perPageUs: undefined, perTupleUs: 0.2 });
    expect(c.perPageUs).toBe(1.0);
    expect(pageWorkUs(c, 100)).toBeCloseTo(21, 12);
  });
});
