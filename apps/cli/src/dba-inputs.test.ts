/**
 * What a DBA types, and what scanlab understands by it.
 *
 * Each row is a command line a DBA would write from what postgresql.conf,
 * SHOW, `SELECT version()` or `uname -r` gave them: versions and kernels as
 * releases name them, settings in PostgreSQL's underscore spelling, sizes as
 * PostgreSQL reads them (a bare number in the setting's own unit; kB, MB, GB
 * and TB are powers of 1024), and durations with PostgreSQL's units. Each
 * gives the documented interpretation, read back from `--print-scenario`,
 * or one sentence and exit 2.
 *
 * The CLI runs in this process (`runCli`), as `scanlab` would run it; the
 * sweep, which runs its cells on worker threads of the built CLI, runs the
 * built executable.
 */
import { describe, expect, it } from "vitest";
import { runBin } from "./e2e/run-bin.js";
import { runInProcess as scanlab } from "./e2e/run-in-process.js";

interface Scenario {
  machine: {
    os: string;
    sharedBuffers: string;
    ram: string;
    maxConnections?: number;
    osOptions?: Record<string, number>;
  };
  tables: { size: string; tuplesPerPage: number }[];
  queries: Record<string, unknown>[];
}

/** A row: what is typed, and the scenario field it sets (or the sentence it gets). */
type Row =
  | [typed: string, read: (s: Scenario) => unknown, understood: unknown]
  | [typed: string, refusal: RegExp];

const q = (s: Scenario) => s.queries[0]!;
const os = (s: Scenario) => s.machine.os;

const rows: Row[] = [
  // PostgreSQL versions: every major from 9.6 to 19, also as a release names itself.
  ["--pg 9.6", (s) => q(s).pg, "9.6"],
  ["--pg 10", (s) => q(s).pg, "10"],
  ["--pg 11", (s) => q(s).pg, "11"],
  ["--pg 12", (s) => q(s).pg, "12"],
  ["--pg 13", (s) => q(s).pg, "13"],
  ["--pg 15", (s) => q(s).pg, "15"],
  ["--pg 16", (s) => q(s).pg, "16"],
  ["--pg 19", (s) => q(s).pg, "19"],
  ["--pg 16.4", (s) => q(s).pg, "16"],
  ["--pg 9.6.24", (s) => q(s).pg, "9.6"],
  ["--pg PostgreSQL-17", (s) => q(s).pg, "17"],
  ["--pg pg18", (s) => q(s).pg, "18"],
  ["--pg 9.5", /--pg "9\.5" is not known: use one of 9\.6, 10, .*, 19\./],
  ["--pg 20", /--pg "20" is not known/],
  // Kernels, as `uname -r` prints them, mapped to their readahead model.
  ["--os linux-6.1", os, "linux-6.1"],
  ["--os linux-5.15", os, "linux-5.15"],
  ["--os linux-6.10", os, "linux-6.10"],
  ["--os linux-6.1.0-18-amd64", os, "linux-6.1"],
  ["--os Linux-6.8", os, "linux-6.8"],
  ["--os freebsd-13", os, "freebsd-13"],
  ["--os linux-3.10", /--os "linux-3\.10" is not an OS scanlab models: use linux-4\.20 to linux-6\.18/],
  // Settings in PostgreSQL's own spelling.
  ["--shared_buffers 1GB", (s) => s.machine.sharedBuffers, "1GB"],
  ["--shared_buffers=2GB", (s) => s.machine.sharedBuffers, "2GB"],
  ["--effective_io_concurrency 16", (s) => q(s).effectiveIoConcurrency, 16],
  ["--max_parallel_workers_per_gather 4", (s) => q(s).workers, 4],
  ["--max-parallel-workers-per-gather 3", (s) => q(s).workers, 3],
  ["--parallel_workers 6", (s) => q(s).workers, 6],
  ["--synchronize_seqscans off", (s) => q(s).synchronizeSeqscans, false],
  ["--parallel_leader_participation false", (s) => q(s).parallelLeaderParticipation, false],
  ["--max_connections 500", (s) => s.machine.maxConnections, 500],
  ["--pg 18 --io_method worker", (s) => q(s).ioMethod, "worker"],
  ["--no_such_setting 1", /unknown option '--no_such_setting'/],
  // Sizes where a PostgreSQL setting is meant: a bare number is the setting's unit.
  ["--shared-buffers 16384", (s) => s.machine.sharedBuffers, "128MB"],
  ["--shared-buffers 131072", (s) => s.machine.sharedBuffers, "1GB"],
  ["--shared-buffers 128MB", (s) => s.machine.sharedBuffers, "128MB"],
  ["--shared-buffers 1.5GB", (s) => s.machine.sharedBuffers, "1536MB"],
  ["--shared-buffers 8", /--shared-buffers "8" comes to 8 pages of 8 kB: it must be from 16 to 1073741823/],
  ["--shared-buffers 1Gb", /--shared-buffers "1Gb" is not valid: write a number of pages of 8 kB or a size/],
  ["--pg 17 --io-combine-limit 16", (s) => q(s).ioCombineLimit, 16],
  ["--pg 17 --io-combine-limit 128kB", (s) => q(s).ioCombineLimit, 16],
  ["--pg 17 --io_combine_limit 256kB", (s) => q(s).ioCombineLimit, 32],
  ["--pg 17 --io-combine-limit 100kB", (s) => q(s).ioCombineLimit, 12],
  ["--pg 18 --io-combine-limit 1MB", (s) => q(s).ioCombineLimit, 128],
  ["--pg 17 --io-combine-limit 2MB", /comes to 256 blocks of 8 kB: it must be from 1 to 128/],
  // Kernel settings in kB, also as a size.
  ["--read-ahead-kb 128", (s) => s.machine.osOptions?.readAheadKb, 128],
  ["--read_ahead_kb 1MB", (s) => s.machine.osOptions?.readAheadKb, 1024],
  ["--max-sectors-kb 512kB", (s) => s.machine.osOptions?.maxSectorsKb, 512],
  // Sizes of things (bytes, PostgreSQL's powers of 1024).
  ["--table-size 100GB", (s) => s.tables[0]!.size, "100GB"],
  ["--table-size 1TB", (s) => s.tables[0]!.size, "1TB"],
  ["--table-size 1Gb", /--table-size "1Gb" is not a size/],
  ["--ram 64GB", (s) => s.machine.ram, "64GB"],
  // Durations with PostgreSQL's units; a bare number is seconds.
  ["--clients 2 --duration 30", (s) => q(s).duration, "30"],
  ["--clients 2 --duration 10s", (s) => q(s).duration, "10s"],
  ["--clients 2 --duration 3min", (s) => q(s).duration, "3min"],
  ["--clients 2 --duration 2h", (s) => q(s).duration, "2h"],
  ["--clients 2 --duration 1d", (s) => q(s).duration, "1d"],
  [
    "--clients 2 --duration 1week",
    /--duration "1week" is not a duration: write a number with a unit \(us, ms, s, min, h, d\)/,
  ],
  // Booleans in PostgreSQL's spellings, fractions as a share or a percentage.
  ["--synchronize-seqscans on", (s) => q(s).synchronizeSeqscans, true],
  ["--synchronize-seqscans 0", (s) => q(s).synchronizeSeqscans, false],
  ["--workload bitmap --selectivity 5%", (s) => (q(s).bitmap as { selectivity: number }).selectivity, 0.05],
  ["--workload bitmap --selectivity 0.25", (s) => (q(s).bitmap as { selectivity: number }).selectivity, 0.25],
];

describe("what a DBA types", () => {
  it("has at least 40 rows", () => {
    expect(rows.length).toBeGreaterThanOrEqual(40);
  });

  it.each(rows)("scanlab simulate %s", async (typed, ...expected) => {
    const args = ["simulate", ...typed.split(" "), "--print-scenario"];
    const r = await scanlab(args);
    if (expected[0] instanceof RegExp) {
      expect(r.stdout).toBe("");
      expect(r.code).toBe(2);
      expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(r.stderr).toMatch(expected[0]);
      return;
    }
    const [read, understood] = expected as [(s: Scenario) => unknown, unknown];
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(read(JSON.parse(r.stdout) as Scenario)).toEqual(understood);
  });

  // A sweep of 4 small cells: generous timeout for a loaded 2-core machine.
  it("--vary takes a setting in its PostgreSQL spelling, and its sizes as PostgreSQL reads them", async () => {
    const r = await runBin([
      "sweep",
      "--table-size",
      "8MB",
      "--pg",
      "17",
      "--vary",
      "io_combine_limit=8,128kB",
      "--vary",
      "max_parallel_workers_per_gather=0,2",
      "--json",
    ]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout).result as {
      vary: { name: string; values: number[]; labels: string[] }[];
    };
    expect(json.vary).toEqual([
      { name: "io-combine-limit", values: [8, 16], labels: ["8", "16"] },
      { name: "workers", values: [0, 2], labels: ["0", "2"] },
    ]);
  }, 120_000);
});
