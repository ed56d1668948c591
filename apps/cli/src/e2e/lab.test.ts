/**
 * `scanlab lab` bad input: each case exits 2 with one sentence on stderr and
 * no stack trace, before any cluster starts, and leaves nothing in the
 * temporary directory. And `--replay`: an earlier report predicted again,
 * without PostgreSQL.
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assembleReport, type Cell, planLab } from "@scanlab/lab";
import { afterAll, describe, expect, it } from "vitest";
import { runBin } from "./run-bin.js";

const dir = mkdtempSync(join(tmpdir(), "scanlab-cli-lab-"));
chmodSync(dir, 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const broken = join(dir, "broken-profile.json");
writeFileSync(broken, '{ "kind": "flash", "name": ');
const notJson = join(dir, "not-a-report.json");
writeFileSync(notJson, "lab finished at 10:00\n");
const simulateDoc = join(dir, "simulate.json");
writeFileSync(
  simulateDoc,
  JSON.stringify({ scanlab: "0", schemaVersion: 1, command: "simulate", result: {} }),
);
const wrongKind = join(dir, "tape-profile.json");
writeFileSync(wrongKind, JSON.stringify({ kind: "tape", name: "x" }));

const cases: { args: string[]; mentions: RegExp }[] = [
  { args: ["--pg", "12"], mentions: /--pg 12 is not a PostgreSQL version the lab can run/ },
  { args: ["--pg", "fifteen"], mentions: /--pg fifteen/ },
  { args: ["--pg", "15,"], mentions: /empty item/ },
  { args: ["--pg", "15", "--profile", broken], mentions: /broken-profile\.json/ },
  { args: ["--pg", "15", "--profile", wrongKind], mentions: /tape-profile\.json|kind/ },
  { args: ["--pg", "15", "--profile", join(dir, "missing.json")], mentions: /missing\.json does not exist/ },
  { args: ["--pg", "15", "--runs", "2"], mentions: /runs/ },
  {
    args: ["--pg", "15", "--cells", "no such cell", "--work-dir", dir],
    mentions: /no cell is selected: cell ids look like "pg15 /,
  },
  { args: ["--pg", "15", "--cells", "seq,"], mentions: /--cells "seq," has an empty item/ },
  { args: ["--pg", "15", "--json", join(dir, "no-such-dir", "out.json")], mentions: /--json/ },
  { args: ["--pg", "15", "--report", dir], mentions: /--report .* is a directory/ },
  {
    args: ["--pg", "15", "--work-dir", join(dir, "nowhere")],
    mentions: /work directory .*nowhere does not exist/,
  },
  { args: ["--replay", notJson], mentions: /not-a-report\.json/ },
  { args: ["--replay", simulateDoc], mentions: /simulate\.json is not a lab report scanlab can replay/ },
  { args: ["--replay", join(dir, "gone.json")], mentions: /gone\.json does not exist/ },
  {
    args: ["--replay", simulateDoc, "--pg", "15", "--quick"],
    mentions: /--replay predicts the runs of an earlier lab report again, so --pg, --quick do not apply/,
  },
];

describe("scanlab lab: bad input", () => {
  for (const c of cases) {
    it(`refuses ${c.args.join(" ")}`, async () => {
      const tmp = mkdtempSync(join(tmpdir(), "scanlab-cli-lab-tmp-"));
      try {
        const r = await runBin(["lab", ...c.args], { env: { TMPDIR: tmp } });
        expect(r.code).toBe(2);
        const lines = r.stderr.trim().split("\n");
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(c.mentions);
        expect(r.stderr).not.toMatch(/\n\s+at /);
        expect(readdirSync(tmp)).toEqual([]);
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    });
  }
});

describe("scanlab lab --replay", () => {
  // A report of synthetic runs on 2048-block tables (no PostgreSQL): the replay predicts its cells again.
  const plan = planLab({
    pgMajors: [15],
    quick: true,
    deviceReadAheadKb: 128,
    readAheadRefusal: null,
    maxTableBlocks: 2048,
  });
  const runsFor = (cell: Cell) =>
    [1, 1.1, 0.95].map((f) => ({
      executionMs: f * (cell.cache === "warm" ? 1.5 : 3),
      clientMs: 20,
      deviceBytes: cell.cache === "warm" ? 0 : 2048 * 8192,
      deviceReads: cell.cache === "warm" ? 0 : 128,
      sharedHitBlocks: 0,
      sharedReadBlocks: 2048,
      residentBefore: cell.cache === "warm" ? 1 : 0,
      workersLaunched: cell.workers * cell.clients,
    }));
  const earlier = assembleReport({
    startedAt: "2026-01-01T00:00:00.000Z",
    interrupted: false,
    quick: true,
    plan,
    tables: plan.tables,
    measured: plan.cells.map((cell) => ({ cell, runs: runsFor(cell), notes: [] })),
    servers: [{ pg: 15, bin: "/usr/lib/postgresql/15/bin", version: "15.20" }],
    machine: {
      cores: 2,
      ramBytes: 8 * 2 ** 30,
      sharedBuffersBytes: 32 << 20,
      maxConnections: 20,
      os: "linux-6.10",
      readAheadKb: 128,
      device: "samsung-990-pro-1tb",
    },
    deviceLabel: "built-in samsung-990-pro-1tb",
    deviceName: "vda",
    coldMethod: "synthetic runs",
    fit: true,
  });
  const file = join(dir, "lab.json");
  writeFileSync(file, JSON.stringify({ scanlab: "0", schemaVersion: 1, command: "lab", result: earlier }));

  // Simulates every quick cell of a 16 MiB table: seconds, but the CLI starts twice on a loaded machine.
  it("predicts the same runs again, on the report's device model or another", {
    timeout: 120_000,
  }, async () => {
    const same = await runBin(["lab", "--replay", file, "--json"]);
    expect(same.code).toBe(0);
    const doc = JSON.parse(same.stdout);
    expect(doc.command).toBe("lab");
    expect(doc.result.summary).toEqual(JSON.parse(JSON.stringify(earlier.summary)));
    expect(doc.result.cells.map((c: { runs: unknown }) => c.runs)).toEqual(earlier.cells.map((c) => c.runs));

    const other = await runBin(["lab", "--replay", file, "--profile", "intel-ssd-320-120gb"]);
    expect(other.code).toBe(0);
    expect(other.stdout).toMatch(/device model intel-ssd-320-120gb\)/);
    expect(other.stdout).toMatch(/Time within ±20 %: \d+ of \d+ predicted cells/);
  });
});
