import { describe, expect, it } from "vitest";
import { assertFitDisjoint, fitBitmapCosts, fitCpuCosts } from "./cpu-fit.js";

const PREAD = 1.0;
const sample = (
  cellId: string,
  tuplesPerPage: number,
  perPageUs: number,
  perTupleUs: number,
  blocks = 10_000,
) => ({
  cellId,
  blocks,
  tuplesPerPage,
  timeUs: blocks * (PREAD + perPageUs + tuplesPerPage * perTupleUs),
});

describe("fitCpuCosts", () => {
  it("recovers per-page and per-tuple costs from two tuple densities", () => {
    const fit = fitCpuCosts([sample("narrow", 226, 0.8, 0.02), sample("wide", 27, 0.8, 0.02)], PREAD)!;
    expect(fit.perPageUs).toBeCloseTo(0.8, 9);
    expect(fit.perTupleUs).toBeCloseTo(0.02, 9);
    expect(fit.fitCells).toEqual(["narrow", "wide"]);
    for (const r of fit.residualsUs) expect(Math.abs(r)).toBeLessThan(1e-9);
    expect(fit.degenerate).toBeNull();
  });

  it("puts everything on the page when only one density is known, and says the fit is degenerate", () => {
    // A selection of narrow cells only: 0.8 us a page and 226 x 0.02 us of tuples come back as 5.32 us a page.
    const fit = fitCpuCosts([sample("pg15 seq narrow warm", 226, 0.8, 0.02)], PREAD)!;
    expect(fit.perTupleUs).toBe(0);
    expect(fit.perPageUs).toBeCloseTo(0.8 + 226 * 0.02, 9);
    expect(fit.degenerate).toBe(
      "the sequential fit cell pg15 seq narrow warm has 226 tuples a page, and one tuple density cannot tell a page's cost from a tuple's: all CPU work is charged per page, which overestimates scans of sparser tables and underestimates denser ones.",
    );
  });

  it("is degenerate with several samples of one density too", () => {
    const fit = fitCpuCosts([sample("a", 27, 0.8, 0.02), sample("b", 27, 0.8, 0.02, 5_000)], PREAD)!;
    expect(fit.degenerate).toMatch(
      /^the sequential fit cells a, b all have 27 tuples a page, and one tuple density/,
    );
  });

  it("keeps both costs non-negative when noise makes the slope negative", () => {
    // The denser table measured faster per block than the sparser one: noise, not a negative tuple cost.
    const fit = fitCpuCosts(
      [
        { cellId: "a", blocks: 1000, tuplesPerPage: 226, timeUs: 1000 * 5 },
        { cellId: "b", blocks: 1000, tuplesPerPage: 27, timeUs: 1000 * 6 },
      ],
      PREAD,
    )!;
    expect(fit.perTupleUs).toBe(0);
    expect(fit.perPageUs).toBeCloseTo(4.5, 9);
  });

  it("keeps the page cost non-negative when the intercept would be negative", () => {
    const fit = fitCpuCosts(
      [
        { cellId: "a", blocks: 1000, tuplesPerPage: 226, timeUs: 1000 * (PREAD + 226 * 0.03 - 0.5) },
        { cellId: "b", blocks: 1000, tuplesPerPage: 27, timeUs: 1000 * (PREAD + 27 * 0.03 - 0.5) },
      ],
      PREAD,
    )!;
    expect(fit.perPageUs).toBe(0);
    expect(fit.perTupleUs).toBeGreaterThan(0);
  });

  it("has nothing to fit without usable samples", () => {
    expect(fitCpuCosts([], PREAD)).toBeNull();
    expect(fitCpuCosts([{ cellId: "x", blocks: 0, tuplesPerPage: 226, timeUs: 5 }], PREAD)).toBeNull();
  });
});

describe("assertFitDisjoint", () => {
  it("refuses to predict a cell the fit used", () => {
    expect(() => assertFitDisjoint(["a", "b"], ["c", "b"])).toThrow(/both fitted and predicted: b/);
    expect(() => assertFitDisjoint(["a"], ["c"])).not.toThrow();
  });
});

describe("fitCpuCosts with the simulator's own base per block", () => {
  it("subtracts each sample's base instead of the pread: the same costs come back whatever the read path costs", () => {
    // A read stream's block may cost 0.4 us besides page work where a ReadBuffer loop's costs 1.5 us.
    const withBase = (cellId: string, tuplesPerPage: number, baseUsPerBlock: number) => ({
      cellId,
      blocks: 10_000,
      tuplesPerPage,
      baseUsPerBlock,
      timeUs: 10_000 * (baseUsPerBlock + 0.8 + tuplesPerPage * 0.02),
    });
    const fit = fitCpuCosts([withBase("narrow", 226, 0.4), withBase("wide", 27, 1.5)], PREAD)!;
    expect(fit.perPageUs).toBeCloseTo(0.8, 9);
    expect(fit.perTupleUs).toBeCloseTo(0.02, 9);
    expect(fit.residualsUs.every((r) => Math.abs(r) < 1e-9)).toBe(true);
  });
});

describe("fitBitmapCosts", () => {
  // Two warm bitmap scans of a 256 MiB table with 4,096 shared buffers, 27 matched tuples a page:
  // 10 % matches 3,277 pages (every buffer new to them), 50 % matches 16,384 (only 4,096 new).
  const cell = (cellId: string, pages: number, bitmapTupleUs: number, bufferFirstUseUs: number) => {
    const perTupleSlopeUs = pages * 27;
    const perFirstUseSlopeUs = Math.min(pages, 4096);
    const baseUs = pages * 3.5;
    return {
      cellId,
      baseUs,
      perTupleSlopeUs,
      perFirstUseSlopeUs,
      timeUs: baseUs + bitmapTupleUs * perTupleSlopeUs + bufferFirstUseUs * perFirstUseSlopeUs,
    };
  };

  it("tells a matched tuple's cost from a buffer's first use with two selectivities", () => {
    const fit = fitBitmapCosts([cell("sel10%", 3277, 0.06, 10), cell("sel50%", 16384, 0.06, 10)])!;
    expect(fit.bitmapTupleUs).toBeCloseTo(0.06, 9);
    expect(fit.bufferFirstUseUs).toBeCloseTo(10, 6);
    expect(fit.fitCells).toEqual(["sel10%", "sel50%"]);
    for (const r of fit.residualsUs) expect(Math.abs(r)).toBeLessThan(1e-6);
  });

  it("with one selectivity below shared_buffers the two cannot be told apart: the better single cost is kept", () => {
    const fit = fitBitmapCosts([cell("sel5%", 1638, 0, 10)])!;
    // 1,638 pages x 27 tuples and 1,638 first uses are proportional: one cost carries the whole gap.
    const gap = fit.bitmapTupleUs * 1638 * 27 + fit.bufferFirstUseUs * 1638;
    expect(gap).toBeCloseTo(10 * 1638, 6);
    expect(fit.bitmapTupleUs === 0 || fit.bufferFirstUseUs === 0).toBe(true);
  });

  it("never returns a negative cost: a scan measured faster at the higher selectivity per page keeps costs at 0 or above", () => {
    const a = cell("sel10%", 3277, 0.06, 10);
    const b = { ...cell("sel50%", 16384, 0.06, 10), timeUs: cell("sel50%", 16384, 0, 0).timeUs };
    const fit = fitBitmapCosts([a, b])!;
    expect(fit.bitmapTupleUs).toBeGreaterThanOrEqual(0);
    expect(fit.bufferFirstUseUs).toBeGreaterThanOrEqual(0);
  });

  it("has nothing to fit without a usable sample", () => {
    expect(fitBitmapCosts([])).toBeNull();
  });
});
