/**
 * Every command's `--json` is one envelope, `{ scanlab, schemaVersion,
 * command, result }`, whose result has the command's exported type: each
 * command runs on a small input, and its real output is type-checked against
 * `ScanlabJson<command>` by the TypeScript compiler (json-type-check.ts).
 * The same check is shown to fail on documents mutated the ways the output
 * used to differ from its type (an old field name, a wrong type, a missing
 * field, an extra field, a bare array). `calibrate` and `lab` measure the
 * machine; their documents are checked in their live tests.
 *
 * The simulating commands start worker threads from dist/, so they run the
 * built CLI (run-bin.ts); `profiles` and `trace` run in this process.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { resolveDeviceArg } from "../device-arg.js";
import type { ScanlabCommand } from "../json-output.js";
import { type JsonDocumentCase, typeCheckJson } from "./json-type-check.js";
import { FIXTURES, PKG, runBin } from "./run-bin.js";
import { runInProcess } from "./run-in-process.js";

const dir = mkdtempSync(join(tmpdir(), "scanlab-json-envelope-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const version = JSON.parse(readFileSync(join(PKG, "package.json"), "utf8")).version as string;

const MiB = 1024 * 1024;
const scanFile = join(dir, "table.dat");
writeFileSync(scanFile, Buffer.alloc(4 * MiB, 1));
const strace = join(dir, "serial.strace");
writeFileSync(strace, gunzipSync(readFileSync(join(FIXTURES, "pg15-serial.strace.gz"))));
const profileFile = join(dir, "my-disk.json");

/** What each command is run with (small inputs: a few seconds of simulation in all). */
const RUNS: { command: ScanlabCommand; args: string[]; inProcess?: boolean }[] = [
  {
    command: "reproduce",
    args: ["reproduce", "T4", "--rows", "int-spinlock", "--no-calibration", "--seed", "7"],
  },
  { command: "simulate", args: ["simulate", "--table-size", "64MB", "--workers", "1", "--seed", "1"] },
  {
    command: "sweep",
    args: [
      "sweep",
      "--table-size",
      "32MB",
      "--vary",
      "workers=0,1",
      "--vary",
      "shared-buffers=16MB,32MB",
      "--seed",
      "1",
    ],
  },
  { command: "scan", args: ["scan", scanFile, "--workers", "2", "--allocator", "pg14"] },
  {
    command: "advise",
    args: [
      "advise",
      "--device",
      "intel-ssd-320-120gb",
      "--os",
      "linux-5.4",
      "--table-size",
      "800GB",
      "--cores",
      "4",
      "--sim-size",
      "64MB",
      "--seed",
      "1",
    ],
  },
  { command: "profiles list", args: ["profiles", "list"], inProcess: true },
  {
    command: "profiles show",
    args: ["profiles", "show", "intel-ssd-320-120gb", "--out", profileFile],
    inProcess: true,
  },
  {
    command: "trace import",
    args: ["trace", "import", join(FIXTURES, "blkparse-hand.txt")],
    inProcess: true,
  },
  { command: "trace import", args: ["trace", "import", strace], inProcess: true },
];

/** Each command's document, by the index of its run. */
const docs: { name: string; command: ScanlabCommand; json: string }[] = [];

describe("--json: one envelope and the command's exported type", () => {
  it("every command prints { scanlab, schemaVersion, command, result }", async () => {
    for (const run of RUNS) {
      const args = [...run.args, "--json"];
      const r = run.inProcess ? await runInProcess(args) : await runBin(args);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
      const doc = JSON.parse(r.stdout) as Record<string, unknown>;
      expect(Object.keys(doc)).toEqual(["scanlab", "schemaVersion", "command", "result"]);
      expect(doc.scanlab).toBe(version);
      expect(doc.schemaVersion).toBe(1);
      expect(doc.command).toBe(run.command);
      docs.push({ name: run.args.slice(0, 3).join(" "), command: run.command, json: r.stdout });
    }
    expect(docs).toHaveLength(RUNS.length);
  });

  it("swept and advised values are numbers where the setting is a quantity", () => {
    const sweep = JSON.parse(docs.find((d) => d.command === "sweep")!.json).result;
    expect(sweep.vary).toEqual([
      { name: "workers", values: [0, 1], labels: ["0", "1"] },
      { name: "shared-buffers", values: [16 * MiB, 32 * MiB], labels: ["16MB", "32MB"] },
    ]);
    expect(sweep.points[0].values).toEqual({ workers: 0, "shared-buffers": 16 * MiB });
    expect(sweep.points[3].values).toEqual({ workers: 1, "shared-buffers": 32 * MiB });
    expect(sweep.points[3].metrics.mibPerS).toBeGreaterThan(0);
    const advise = JSON.parse(docs.find((d) => d.command === "advise")!.json).result;
    const eic = advise.recommendations.find((r: { setting: string }) =>
      r.setting.startsWith("effective_io_concurrency"),
    );
    expect(eic.sweep.map((s: { value: unknown }) => typeof s.value)).toContain("number");
  });

  it("profiles show --out writes a plain profile file that --device reads", () => {
    const written = JSON.parse(readFileSync(profileFile, "utf8"));
    expect(written.name).toBe("intel-ssd-320-120gb");
    expect(written.scanlab).toBeUndefined();
    expect(resolveDeviceArg(profileFile).label).toBe("intel-ssd-320-120gb");
  });

  it("each document type-checks against ScanlabJson<command>, and mutated ones do not", () => {
    const doc = (command: ScanlabCommand) => JSON.parse(docs.find((d) => d.command === command)!.json);
    const simulate = doc("simulate");
    simulate.result.simulation.queries[0].mbPerS = simulate.result.simulation.queries[0].mibPerS;
    delete simulate.result.simulation.queries[0].mibPerS;
    const sweep = doc("sweep");
    sweep.result.points[0].metrics.timeS = String(sweep.result.points[0].metrics.timeS);
    const reproduce = doc("reproduce");
    delete reproduce.schemaVersion;
    const profiles = doc("profiles list");
    profiles.result = profiles.result.profiles;
    const scan = doc("scan");
    scan.result.runs[0].result.mbPerSec = scan.result.runs[0].result.mibPerS;
    const trace = doc("trace import");
    trace.result.format = trace.result.format === "blkparse" ? "strace" : "blkparse";
    const mutated: JsonDocumentCase[] = [
      { name: "simulate, mbPerS for mibPerS", command: "simulate", json: JSON.stringify(simulate) },
      { name: "sweep, a time as a string", command: "sweep", json: JSON.stringify(sweep) },
      { name: "reproduce, no schemaVersion", command: "reproduce", json: JSON.stringify(reproduce) },
      { name: "profiles list, a bare array", command: "profiles list", json: JSON.stringify(profiles) },
      { name: "scan, an extra field", command: "scan", json: JSON.stringify(scan) },
      { name: "trace import, the other format", command: "trace import", json: JSON.stringify(trace) },
    ];
    const checked = typeCheckJson([...docs, ...mutated]);
    for (const d of docs) expect(checked.get(d.name), d.name).toEqual([]);
    for (const m of mutated) expect(checked.get(m.name)!.length, m.name).toBeGreaterThan(0);
    // The errors name what is wrong.
    expect(checked.get("simulate, mbPerS for mibPerS")!.join("\n")).toMatch(/mbPerS/);
    expect(checked.get("reproduce, no schemaVersion")!.join("\n")).toMatch(/schemaVersion/);
  });
});
