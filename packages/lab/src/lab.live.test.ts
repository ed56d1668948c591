/**
 * The lab on real PostgreSQL 15 (Debian's postgresql-15): a couple of cells
 * on small tables, three runs each. No timing is asserted (the machine is
 * shared); what is checked is that every run was measured, that the medians
 * are the medians of the runs, that the plan was the asked-for scan, that the
 * JSON has its shape, and that nothing is left behind.
 */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { liveGate } from "@scanlab/pg-harness";
import { afterAll, describe, expect, it } from "vitest";
import { MIN_FIT_RUNS } from "./cells.js";
import { LAB_REPORT_VERSION, median, runLab } from "./index.js";

const gate = liveGate({ pgMajor: 15 });
if (!gate.available && !gate.required) console.warn(`live test skipped: ${gate.reason}`);

const workDir = mkdtempSync(join(tmpdir(), "scanlab-lab-live-"));
chmodSync(workDir, 0o755); // the server runs as an unprivileged user, who must enter it
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

// Starts a cluster, loads two 16 MiB tables, restarts the server 33 times: minutes on a loaded 2-core machine.
const LIVE_TIMEOUT_MS = 900_000;

function postgresProcessesIn(dir: string): number[] {
  const out: number[] = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(dir)) out.push(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

describe.skipIf(!gate.available && !gate.required)("scanlab lab on PostgreSQL 15", () => {
  it(
    "measures a few cells three times each, keeps medians, predicts them, and cleans up",
    async () => {
      if (!gate.available) throw new Error(`SCANLAB_REQUIRE_LIVE=1 but ${gate.reason}`);
      const wanted = new Set([
        "pg15 seq narrow warm",
        "pg15 seq bitmap_random warm",
        "pg15 seq narrow w2 cold",
      ]);
      const report = await runLab({
        pgMajors: [15],
        quick: true,
        runs: 3,
        workDir,
        maxTableBlocks: 2048,
        only: (c) =>
          wanted.has(c.id) || (c.scan === "bitmap" && c.table === "bitmap_random" && c.cache === "cold"),
        device: "samsung-990-pro-1tb",
        deviceLabel: "built-in samsung-990-pro-1tb",
      });
      expect(report.version).toBe(LAB_REPORT_VERSION);
      expect(report.interrupted).toBe(false);
      expect(report.servers[0]!.version).toMatch(/^15\./);
      expect(report.tables.find((t) => t.name === "bitmap_random")!.blocks).toBe(2048);
      expect(report.tables.find((t) => t.name === "narrow")!.tuplesPerPage).toBe(226);
      // The selected cells, and the one fit cell of PG15 the selection left out: the warm bitmap scan.
      expect(report.cells.map((c) => c.cell.id).sort()).toEqual(
        [
          ...wanted,
          "pg15 bitmap bitmap_random sel5% eic0 cold",
          "pg15 bitmap bitmap_random sel5% eic16 cold",
          "pg15 bitmap bitmap_random sel5% eic16 warm",
        ].sort(),
      );
      for (const c of report.cells) {
        // A fit cell's median feeds every prediction: it runs more often.
        expect(c.runs).toHaveLength(c.cell.role === "fit" ? MIN_FIT_RUNS : 3);
        expect(c.measured!.timeMs).toBe(median(c.runs.map((r) => r.executionMs)));
        expect(c.predicted).not.toBeNull();
        // The plan was the asked-for scan with the asked-for workers (otherwise a note says so).
        expect(c.notes.filter((n) => /plan has no|workers launched/.test(n))).toEqual([]);
        for (const r of c.runs) {
          expect(r.executionMs).toBeGreaterThan(0);
          expect(r.sharedHitBlocks + r.sharedReadBlocks).toBeGreaterThan(0);
          if (c.cell.cache === "cold" && r.residentBefore !== null)
            expect(r.residentBefore).toBeLessThanOrEqual(0.01);
          if (c.cell.cache === "warm" && r.residentBefore !== null)
            expect(r.residentBefore).toBeGreaterThanOrEqual(0.99);
        }
        if (c.cell.workers > 0) expect(c.runs.every((r) => r.workersLaunched === c.cell.workers)).toBe(true);
      }
      // The fit used the three warm fit cells, and predicted the others.
      expect(report.cpu[0]!.source).toBe("fit");
      expect(new Set(report.cpu[0]!.fitCells)).toEqual(
        new Set([
          "pg15 seq narrow warm",
          "pg15 seq bitmap_random warm",
          "pg15 bitmap bitmap_random sel5% eic16 warm",
        ]),
      );
      expect(report.comparisons.some((x) => x.varied === "effective_io_concurrency")).toBe(true);
      // The device was measured through the bitmap table's heap file (fio, read-only): random reads at
      // four depths and sequential reads up to half the 16 MiB file.
      expect(report.deviceProbes.map((p) => [p.pg, p.table])).toEqual([[15, "bitmap_random"]]);
      expect(report.deviceProbes[0]!.points.filter((p) => p.pattern === "random")).toHaveLength(4);
      // A serial count(*) of the whole narrow table reads all its pages through shared buffers.
      const seq = report.cells.find((c) => c.cell.id === "pg15 seq narrow warm")!;
      expect(seq.measured!.sharedHitBlocks + seq.measured!.sharedReadBlocks).toBeGreaterThanOrEqual(2048);
      // Cold means a cold table on a running server: the device reads the heap, not the server's own
      // executable back (a 16 MiB heap against about 13 MiB of code when every cache is dropped).
      const cold = report.cells.find((c) => c.cell.id === "pg15 seq narrow w2 cold")!;
      if (cold.measured!.deviceBytes !== null) {
        const heapBytes = 2048 * 8192;
        expect(cold.measured!.deviceBytes).toBeGreaterThanOrEqual(0.9 * heapBytes);
        expect(cold.measured!.deviceBytes).toBeLessThanOrEqual(1.25 * heapBytes);
      }
      // JSON round trip keeps the shape.
      const json = JSON.parse(JSON.stringify(report));
      expect(Object.keys(json)).toContain("summary");
      // Nothing left behind.
      expect(readdirSync(workDir)).toEqual([]);
      expect(postgresProcessesIn(workDir)).toEqual([]);
    },
    LIVE_TIMEOUT_MS,
  );
});
