/**
 * `simulate` from a file and from flags agree: the same scenario given three
 * ways (flags; the file `--print-scenario` wrote for those flags; a scenario
 * file written by hand) gives the same simulation, and a file with a flag
 * over it equals the flags with that setting.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runBin } from "./run-bin.js";

/** The start of an ANSI colour sequence. */
const ESC = "\u001b[";

const dir = mkdtempSync(join(tmpdir(), "scanlab-sim-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const flags = [
  "--table-size",
  "256MB",
  "--workers",
  "3",
  "--allocator",
  "pg14",
  "--os",
  "linux-5.4",
  "--device",
  "intel-ssd-320-120gb",
  "--effective-io-concurrency",
  "16",
  "--synchronize-seqscans",
  "on",
  "--cores",
  "4",
  "--ram",
  "2GB",
  "--seed",
  "3",
];

/** The same scenario written by hand, as the README documents the format. */
const byHand = {
  name: "hand-written",
  seed: 3,
  machine: { cores: 4, ram: "2GB", sharedBuffers: "128MB", os: "linux-5.4", device: "intel-ssd-320-120gb" },
  tables: [{ name: "t", size: "256MB", tuplesPerPage: 226 }],
  queries: [
    {
      name: "scan",
      table: "t",
      pg: "14",
      workers: 3,
      allocator: { kind: "pg14" },
      effectiveIoConcurrency: 16,
      synchronizeSeqscans: true,
    },
  ],
};

async function resultOf(args: string[]) {
  const r = await runBin(["simulate", ...args, "--json"]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  const json = JSON.parse(r.stdout);
  // The name is the only thing allowed to differ.
  return { ...json.result.simulation, scenario: undefined };
}

describe("simulate", () => {
  it("from flags, from the printed scenario and from a hand-written file agree", async () => {
    const printed = await runBin(["simulate", ...flags, "--print-scenario"]);
    expect(printed.code).toBe(0);
    const printedFile = join(dir, "printed.json");
    writeFileSync(printedFile, printed.stdout);
    const handFile = join(dir, "hand.json");
    writeFileSync(handFile, JSON.stringify(byHand, null, 2));

    const fromFlags = await resultOf(flags);
    expect(fromFlags.queries[0].runs[0].finished).toBe(true);
    expect(await resultOf([printedFile])).toEqual(fromFlags);
    expect(await resultOf([handFile])).toEqual(fromFlags);
  });

  it("a flag over a file equals the flags with that setting", async () => {
    const handFile = join(dir, "hand2.json");
    writeFileSync(handFile, JSON.stringify(byHand));
    const over = await resultOf([handFile, "--synchronize-seqscans", "off", "--workers", "1"]);
    const swapped = flags.map((x, i) =>
      flags[i - 1] === "--synchronize-seqscans" ? "off" : flags[i - 1] === "--workers" ? "1" : x,
    );
    expect(over).toEqual(await resultOf(swapped));
  });

  it("reads a scenario file that starts with a UTF-8 byte-order mark (as Windows editors save it)", async () => {
    const bomFile = join(dir, "bom.json");
    writeFileSync(bomFile, `\ufeff${JSON.stringify(byHand, null, 2)}`);
    const handFile = join(dir, "hand3.json");
    writeFileSync(handFile, JSON.stringify(byHand, null, 2));
    expect(await resultOf([bomFile])).toEqual(await resultOf([handFile]));
  });

  it("is deterministic for a seed", async () => {
    const a = await runBin(["simulate", ...flags, "--json"]);
    const b = await runBin(["simulate", ...flags, "--json"]);
    expect(a.stdout).toBe(b.stdout);
  });

  it("prints a readable summary without --json", async () => {
    const r = await runBin(["simulate", ...flags]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("intel-ssd-320-120gb");
    expect(r.stdout).toMatch(/device reads/);
    expect(r.stdout).not.toContain(ESC);
  });

  it("says when the warp skipped the steady middle of a long scan, and --exact simulates every block", async () => {
    const long = ["--table-size", "24GB", "--clients", "2", "--workers", "2", "--ram", "2GB", "--seed", "3"];
    const warped = await runBin(["simulate", ...long]);
    expect(warped.code).toBe(0);
    // The footnote wraps to the width: read it as one line.
    expect(warped.stdout.replace(/\s+/g, " ")).toMatch(
      /warp: .* credited at the rate measured before it, in \d+ cut/,
    );
    const exact = await runBin(["simulate", ...long, "--exact"]);
    expect(exact.code).toBe(0);
    expect(exact.stdout).not.toMatch(/warp:/);
    const json = await runBin(["simulate", ...long, "--exact", "--json"]);
    expect(JSON.parse(json.stdout).result.simulation.warp.cuts).toBe(0);
  });
});
