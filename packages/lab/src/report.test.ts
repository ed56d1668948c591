import { describe, expect, it } from "vitest";
import {
  assembleReport,
  type Cell,
  LAB_REPORT_VERSION,
  type LabMachine,
  labReportHtml,
  planLab,
} from "./index.js";
import { syntheticReport, syntheticRuns } from "./test-support/synthetic-report.js";

const machine: LabMachine = {
  cores: 2,
  ramBytes: 24 * 2 ** 30,
  sharedBuffersBytes: 32 << 20,
  maxConnections: 20,
  os: "linux-5.4",
  readAheadKb: 128,
  device: "samsung-990-pro-1tb",
};

const plan = planLab({ pgMajors: [15], quick: true, deviceReadAheadKb: 128, readAheadRefusal: null });

/** Synthetic runs: warm cells 5 us a block, cold ones 10 us, for every cell (no PostgreSQL involved). */
const SYNTHETIC = { usPerBlock: { warm: 5, cold: 10 }, factors: [1.0, 1.1, 0.9], version: "15.14" };
const runsFor = (cell: Cell) => syntheticRuns(plan, cell, SYNTHETIC);
const report = (scalePredicted = 1) => syntheticReport(plan, machine, { ...SYNTHETIC, scalePredicted });

// Every quick cell is simulated (a few 64-128 MiB scans): generous timeout for a loaded 2-core machine.
const SIM_TIMEOUT_MS = 300_000;

describe("assembleReport", () => {
  it(
    "has a stable shape with a version field, medians and predictions for every cell",
    () => {
      const r = report();
      expect(r.version).toBe(LAB_REPORT_VERSION);
      expect(Object.keys(r).sort()).toEqual(
        [
          "cells",
          "coldMethod",
          "comparisons",
          "cpu",
          "deviceProbes",
          "finishedAt",
          "interrupted",
          "machine",
          "quick",
          "refused",
          "runsPerCell",
          "servers",
          "startedAt",
          "summary",
          "tables",
          "timeSource",
          "version",
        ].sort(),
      );
      expect(r.cells).toHaveLength(plan.cells.length);
      for (const c of r.cells) {
        expect(Object.keys(c).sort()).toEqual(
          [
            "bytesRatio",
            "bytesWithin",
            "cell",
            "measured",
            "missWithinRuns",
            "notes",
            "predicted",
            "runs",
            "timeRatio",
            "timeWithin",
          ].sort(),
        );
        // Median of 1.0, 1.1, 0.9 x the nominal time is the nominal time.
        const blocks = plan.tables.find((t) => t.name === c.cell.table)!.blocks;
        expect(c.measured!.timeMs).toBeCloseTo((blocks * (c.cell.cache === "warm" ? 5 : 10)) / 1000, 6);
        expect(c.predicted!.timeMs).toBeGreaterThan(0);
        if (c.cell.role === "fit") expect(c.timeWithin).toBeNull();
        else expect(typeof c.timeWithin).toBe("boolean");
        // A miss is either inside the cell's own runs or not; a hit or a fit cell is neither.
        if (c.timeWithin === false) expect(typeof c.missWithinRuns).toBe("boolean");
        else expect(c.missWithinRuns).toBeNull();
      }
      expect(r.summary.predicted).toBe(plan.cells.filter((c) => c.role === "predict").length);
      expect(r.summary.comparisons).toBe(r.comparisons.length);
      const json = JSON.parse(JSON.stringify(r));
      expect(json.version).toBe(LAB_REPORT_VERSION);
    },
    SIM_TIMEOUT_MS,
  );

  it(
    "fits CPU costs on the fit cells only: predicted cells' measurements do not move the fit",
    () => {
      const a = report(1);
      const b = report(3);
      expect(a.cpu[0]!.source).toBe("fit");
      const fitIds = new Set(plan.cells.filter((c) => c.role === "fit").map((c) => c.id));
      expect(new Set(a.cpu[0]!.fitCells)).toEqual(fitIds);
      expect(b.cpu[0]!.perPageUs).toBe(a.cpu[0]!.perPageUs);
      expect(b.cpu[0]!.perTupleUs).toBe(a.cpu[0]!.perTupleUs);
      // 5 us a block warm on both densities: all page work once the pread is taken off.
      expect(a.cpu[0]!.perTupleUs).toBeCloseTo(0, 9);
      // The predicted times do not depend on the predicted cells' own measurements either.
      const pa = a.cells.filter((c) => c.cell.role === "predict").map((c) => c.predicted!.timeMs);
      const pb = b.cells.filter((c) => c.cell.role === "predict").map((c) => c.predicted!.timeMs);
      expect(pb).toEqual(pa);
    },
    SIM_TIMEOUT_MS,
  );

  it(
    "uses the documented defaults and says so without a fit",
    () => {
      const r = assembleReport({
        startedAt: "x",
        interrupted: true,
        quick: true,
        plan,
        tables: plan.tables,
        measured: plan.cells
          .filter((c) => c.role === "predict")
          .slice(0, 1)
          .map((cell) => ({ cell, runs: runsFor(cell), notes: [] })),
        servers: [],
        machine,
        deviceLabel: "x",
        deviceName: null,
        coldMethod: "x",
        fit: true,
      });
      expect(r.cpu[0]!.source).toBe("default");
      expect(r.cpu[0]!.fitCells).toEqual([]);
      expect(r.interrupted).toBe(true);
      expect(r.cells).toHaveLength(1);
    },
    SIM_TIMEOUT_MS,
  );
});

describe("labReportHtml", () => {
  it(
    "is one page with an inline SVG chart and every cell",
    () => {
      const r = report();
      const html = labReportHtml(r);
      expect(html).toMatch(/^<!doctype html>/);
      expect(html).toContain("<svg");
      expect((html.match(/<circle /g) ?? []).length).toBe(r.cells.length);
      for (const c of r.cells) expect(html).toContain(c.cell.id.replaceAll("&", "&amp;"));
      expect(html).not.toMatch(/<script|src=|href=/); // no script, nothing loaded from elsewhere
    },
    SIM_TIMEOUT_MS,
  );
});
