/**
 * `simulate --pg N` and `--os NAME` for versions between and beyond the
 * modelled ones: the run prints which model ran per mechanism once, puts the
 * same mapping in its JSON (`pgModel`, `osModel`, strings only), and
 * simulates; a version no model covers is one sentence and exit 2.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runBin } from "./run-bin.js";

/** A small cold scan, quick on a loaded machine. */
const base = [
  "simulate",
  "--table-size",
  "64MB",
  "--workers",
  "2",
  "--device",
  "intel-ssd-320-120gb",
  "--seed",
  "1",
];

const json = async (args: string[]) => {
  const r = await runBin([...base, ...args, "--json"]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout).result as {
    pgModel: Record<string, string>[];
    osModel: Record<string, string | null>;
    simulation: { queries: { runs: { finished: boolean }[]; meanDurationS: number }[] };
  };
};

describe("--pg for every version from 9.6 to 19", () => {
  const cases: [string, Record<string, string>, RegExp][] = [
    [
      "16",
      { allocator: "pg14", syncscan: "pg96", bitmapPrefetch: "pg13", readStreams: "none", ring: "pg96" },
      /held against a real PostgreSQL 16/,
    ],
    [
      "15",
      { allocator: "pg14", syncscan: "pg96", bitmapPrefetch: "pg13", readStreams: "none", ring: "pg96" },
      /held against a real PostgreSQL 15/,
    ],
    [
      "12",
      { allocator: "pg11", syncscan: "pg96", bitmapPrefetch: "pg12", readStreams: "none", ring: "pg96" },
      /no real server tested$/,
    ],
    [
      "10",
      { allocator: "pg96", syncscan: "pg96", bitmapPrefetch: "pg96", readStreams: "none", ring: "pg96" },
      /no real server tested$/,
    ],
    [
      "19",
      { allocator: "pg14", syncscan: "pg17", bitmapPrefetch: "pg18", readStreams: "pg19", ring: "pg18" },
      /no real server tested \(no PostgreSQL 19 build to test against\)/,
    ],
  ];
  it.concurrent.each(cases)(
    "--pg %s: the mapping in the JSON, and a finished run",
    async (pg, models, evidence) => {
      const out = await json(["--pg", pg]);
      expect(out.pgModel).toHaveLength(1);
      expect(out.pgModel[0]).toMatchObject({ requested: pg, ...models });
      expect(out.pgModel[0]!.line).toMatch(new RegExp(`^PG${pg}: `));
      expect(out.pgModel[0]!.line).toMatch(evidence);
      for (const v of Object.values(out.pgModel[0]!)) expect(typeof v).toBe("string");
      expect(out.simulation.queries[0]!.runs.every((r) => r.finished)).toBe(true);
      expect(out.simulation.queries[0]!.meanDurationS).toBeGreaterThan(0);
    },
  );

  it("prints the mapping once, before the query line", async () => {
    // Wide enough for the mapping's line to stay one line.
    const r = await runBin([...base, "--pg", "16"], { env: { COLUMNS: "250" } });
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n").filter((l) => l.includes("model PG16:"));
    expect(lines).toEqual([
      "  model PG16: allocator as PG14-19; syncscan as PG9.6-16; bitmap prefetch as PG13-17; ring as PG9.6-17; no read streams (PG17+); held against a real PostgreSQL 16 (conformance matrix)",
    ]);
    expect(r.stdout.indexOf("model PG16:")).toBeLessThan(r.stdout.indexOf("query scan: PG 16"));
  });

  it("the same JSON twice (stable output)", async () => {
    const a = await runBin([...base, "--pg", "12", "--json"]);
    const b = await runBin([...base, "--pg", "12", "--json"]);
    expect(a.stdout).toBe(b.stdout);
  });

  it("a scenario file's pg 16 runs and maps as --pg 16", async () => {
    const printed = await runBin([...base, "--pg", "16", "--print-scenario"]);
    const scenario = JSON.parse(printed.stdout) as { queries: { pg: string }[] };
    expect(scenario.queries[0]!.pg).toBe("16");
    const dir = mkdtempSync(join(tmpdir(), "scanlab-versions-"));
    try {
      const file = join(dir, "pg16.json");
      writeFileSync(file, printed.stdout);
      const fromFile = await runBin(["simulate", file, "--json"]);
      expect(fromFile.code).toBe(0);
      const a = JSON.parse(fromFile.stdout).result as { pgModel: unknown; simulation: unknown };
      const b = await json(["--pg", "16"]);
      expect(a.pgModel).toEqual(b.pgModel);
      expect(a.simulation).toEqual(b.simulation);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("--os for kernel releases", () => {
  it("--os linux-6.1 (Debian 12) runs the linux-6.1 preset, prints and returns the mapping", async () => {
    const out = await json(["--os", "linux-6.1"]);
    expect(out.osModel).toMatchObject({
      requested: "linux-6.1",
      preset: "linux-6.1",
      defaultReadAhead: "io_opt",
    });
    const r = await runBin([...base, "--os", "linux-6.1"], { env: { COLUMNS: "250" } });
    expect(r.stdout.split("\n").filter((l) => l.includes("model linux-6.1:"))).toHaveLength(1);
    expect(r.stdout).toContain("read loop as 5.12+ (filemap_read)");
  });

  it("--os linux-5.15 runs the same as linux-6.1; linux-5.4 as itself", async () => {
    const a = await json(["--os", "linux-5.15"]);
    const b = await json(["--os", "linux-6.1"]);
    expect(a.osModel.preset).toBe("linux-6.1");
    expect(a.simulation).toEqual(b.simulation);
    expect((await json(["--os", "linux-5.4"])).osModel).toMatchObject({
      preset: "linux-5.4",
      defaultReadAhead: "128kB",
    });
  });
});

describe("versions no model covers: one sentence, exit 2", () => {
  const bad: [string[], string][] = [
    [["--pg", "9"], '--pg "9" is not known: use one of 9.6, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19.'],
    [["--pg", "20"], '--pg "20" is not known: use one of 9.6, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19.'],
    [
      ["--os", "linux-2.4"],
      '--os "linux-2.4" is not an OS scanlab models: use linux-4.20 to linux-6.18 (e.g. linux-5.4, linux-6.1, linux-6.10), freebsd-11 to freebsd-14, windows or none.',
    ],
    [["--os", "linux-6.19"], '--os "linux-6.19" is not an OS scanlab models'],
  ];
  it.concurrent.each(bad)("%j", async (args, sentence) => {
    const r = await runBin([...base, ...args]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(sentence);
  });
});
