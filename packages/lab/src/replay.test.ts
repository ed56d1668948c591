/**
 * Replaying a report: the runs stay, the predictions are made again. The
 * report here is assembled from synthetic runs (no PostgreSQL), on tables
 * capped at 2048 blocks so each prediction is a small simulation.
 */
import { describe, expect, it } from "vitest";
import { LAB_REPORT_VERSION, type LabReport, parseLabReport, planLab, replayLab } from "./index.js";
import { syntheticReport } from "./test-support/synthetic-report.js";

const plan = planLab({
  pgMajors: [15],
  quick: true,
  deviceReadAheadKb: 128,
  readAheadRefusal: null,
  maxTableBlocks: 2048,
});

/** The 2-core machine the synthetic reports were "measured" on; each report names its device. */
const MACHINE = {
  cores: 2,
  ramBytes: 24 * 2 ** 30,
  sharedBuffersBytes: 32 << 20,
  maxConnections: 20,
  os: "linux-6.10",
  readAheadKb: 128,
} as const;

const measuredOn = (device: string): LabReport =>
  syntheticReport(
    plan,
    { ...MACHINE, device },
    {
      usPerBlock: { warm: 6, cold: 11 },
      factors: [1.0, 1.2, 0.9],
      notes: (cell) => [`note on ${cell.id}`],
      version: "15.20",
    },
  );

// Every quick cell is simulated twice or three times over: generous timeout for a loaded 2-core machine.
const SIM_TIMEOUT_MS = 300_000;

describe("replayLab", () => {
  it(
    "gives the same report when nothing changed, and keeps the runs when the device model does",
    () => {
      const original = measuredOn("samsung-990-pro-1tb");
      // Through JSON, as a file written by `scanlab lab --json` would be.
      const read = parseLabReport(
        JSON.parse(JSON.stringify({ scanlab: "x", schemaVersion: 1, command: "lab", result: original })),
        "lab.json",
      );
      const viaJson = (r: LabReport) => JSON.parse(JSON.stringify(r));
      expect(viaJson(replayLab(read))).toEqual(viaJson(original));

      const other = replayLab(read, {
        device: "intel-ssd-320-120gb",
        deviceLabel: "built-in intel-ssd-320-120gb",
      });
      expect(other.machine.device).toBe("intel-ssd-320-120gb");
      expect(other.machine.deviceLabel).toBe("built-in intel-ssd-320-120gb");
      expect(other.cells.map((c) => c.runs)).toEqual(original.cells.map((c) => c.runs));
      expect(other.cells.map((c) => c.notes)).toEqual(original.cells.map((c) => c.notes));
      expect(other.cpu).toEqual(original.cpu); // the fit rests on warm runs alone, which did not change
      // A SATA drive of 2011 does not read a cold table as fast as a 990 Pro: some cold prediction moves.
      const cold = (r: LabReport) =>
        r.cells.filter((c) => c.cell.cache === "cold").map((c) => c.predicted!.timeMs);
      expect(cold(other)).not.toEqual(cold(original));
    },
    SIM_TIMEOUT_MS,
  );

  it(
    "predicts with the default CPU costs when asked not to fit, and never on a fit cell",
    () => {
      const r = replayLab(measuredOn("samsung-990-pro-1tb"), { fit: false });
      expect(r.cpu.every((c) => c.source === "default" && c.fitCells.length === 0)).toBe(true);
      const fitted = replayLab(measuredOn("samsung-990-pro-1tb"));
      const predictedIds = fitted.cells.filter((c) => c.cell.role === "predict").map((c) => c.cell.id);
      for (const id of fitted.cpu.flatMap((c) => c.fitCells)) expect(predictedIds).not.toContain(id);
    },
    SIM_TIMEOUT_MS,
  );
});

describe("replaying a report whose selection left a tuple density out", () => {
  // `--cells "seq narrow"` as an older scanlab ran it: no bitmap_random cell, so the only sequential fit
  // cell is pg15 seq narrow warm (226 tuples a page). A run stopped between the fit cells leaves the same.
  const subset = planLab({
    pgMajors: [15],
    quick: true,
    deviceReadAheadKb: 128,
    readAheadRefusal: null,
    maxTableBlocks: 2048,
    only: (c) => c.id.includes("seq narrow"),
    fit: false,
  });
  const older = syntheticReport(
    subset,
    { ...MACHINE, device: "samsung-990-pro-1tb" },
    { usPerBlock: { warm: 6, cold: 11 }, factors: [1.0, 1.2, 0.9], version: "15.20" },
  );

  it(
    "keeps the one-density fit, all of it per page, and says in its warning that page and tuple costs cannot be told apart",
    () => {
      const r = replayLab(parseLabReport(JSON.parse(JSON.stringify(older)), "lab.json"));
      const cpu = r.cpu[0]!;
      expect(cpu.source).toBe("fit");
      expect(cpu.fitCells).toEqual(["pg15 seq narrow warm"]);
      expect(cpu.perTupleUs).toBe(0);
      expect(cpu.warning).toBe(
        "the sequential fit cell pg15 seq narrow warm has 226 tuples a page, and one tuple density cannot tell a page's cost from a tuple's: all CPU work is charged per page, which overestimates scans of sparser tables and underestimates denser ones.",
      );
      // Without a fit there is nothing to warn about: the defaults are used as asked.
      expect(replayLab(older, { fit: false }).cpu[0]!.warning).toBeUndefined();
    },
    SIM_TIMEOUT_MS,
  );

  it(
    "has no warning when the report holds both densities",
    () => {
      expect(measuredOn("samsung-990-pro-1tb").cpu.map((c) => c.warning)).toEqual([undefined]);
    },
    SIM_TIMEOUT_MS,
  );
});

describe("parseLabReport", () => {
  const good = JSON.parse(JSON.stringify(measuredOn("samsung-990-pro-1tb"))) as Record<string, unknown>;

  it.each([
    ["an array", [], "lab.json is not a lab report scanlab can replay: it is not a JSON object."],
    [
      "another version",
      { ...good, version: LAB_REPORT_VERSION + 1 },
      `lab.json is not a lab report scanlab can replay: its version is ${LAB_REPORT_VERSION + 1}, and this scanlab reads version ${LAB_REPORT_VERSION}.`,
    ],
    [
      "a simulate document",
      { scanlab: "1", schemaVersion: 1, command: "simulate", result: {} },
      "lab.json is not a lab report scanlab can replay: its version is undefined, and this scanlab reads version 1.",
    ],
    [
      "no cells",
      { ...good, cells: undefined },
      "lab.json is not a lab report scanlab can replay: it has no cells list.",
    ],
    [
      "device probes without points",
      { ...good, deviceProbes: [{ pg: 15 }] },
      "lab.json is not a lab report scanlab can replay: its device probes are not a list of measured points per server.",
    ],
    [
      "a cell on a table it does not list",
      { ...good, tables: [] },
      `lab.json is not a lab report scanlab can replay: cell ${plan.cells[0]!.id} scans a table the report does not list.`,
    ],
  ])("refuses %s in one sentence", (_what, json, message) => {
    expect(() => parseLabReport(json, "lab.json")).toThrow(message);
  });

  it("reads a report from before the device probe as one without probes", () => {
    const { deviceProbes: _, ...older } = good;
    expect(parseLabReport(older, "lab.json").deviceProbes).toEqual([]);
  });
});

// The device as a probe saw it: a virtual disk's fresh file, 14 000 random 8 kB reads a second at queue
// depth 1 and 52 000 at 16, far faster than the built-in SATA drive the report names.
const fresh = [
  [1, 13_912],
  [16, 52_422],
].map(([queueDepth, iops]) => ({
  pattern: "random" as const,
  blockBytes: 8192,
  queueDepth: queueDepth!,
  iops: iops!,
  bytesPerSecond: iops! * 8192,
  meanLatencyUs: (queueDepth! * 1e6) / iops!,
}));

describe("replaying a report with a device probe", () => {
  it(
    "predicts the probed server's cold cells on the probed device, and on the profile's with probe: false",
    () => {
      const original = measuredOn("intel-ssd-320-120gb");
      const probed: LabReport = {
        ...original,
        deviceProbes: [
          { pg: 15, table: "bitmap_random", file: "/x/16384", measuredWith: "fio", points: fresh },
        ],
      };
      const cold = (r: LabReport) =>
        r.cells.filter((c) => c.cell.cache === "cold").map((c) => c.predicted!.timeMs);
      const onProbe = replayLab(probed);
      expect(onProbe.deviceProbes).toHaveLength(1);
      expect(cold(onProbe)).not.toEqual(cold(original));
      expect(cold(replayLab(probed, { probe: false }))).toEqual(cold(original));
    },
    SIM_TIMEOUT_MS,
  );
});
