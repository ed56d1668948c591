/**
 * Bounds that say what they are: commands that ask for more than the
 * simulator's budget, for tables past PostgreSQL's block numbers, or for
 * more scan workers than the machine runs, finish promptly, by running
 * within the budget or by refusing with one sentence (exit 2, no stack
 * trace) that names the limit and what to change. Each row once ran for
 * minutes, or was killed for memory.
 *
 * No timing is asserted: "promptly" is the file's timeout (vitest.config.ts),
 * and each refusal happens before anything is simulated.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { maxScanWorkers } from "@scanlab/file-scan";
import { afterAll, describe, expect, it } from "vitest";
import { runBin } from "./run-bin.js";

const dir = mkdtempSync(join(tmpdir(), "scanlab-bounds-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One sentence on stderr, no stack trace. */
function oneSentence(stderr: string): string {
  const lines = stderr.trim().split("\n");
  expect(lines).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at |Error:/);
  return lines[0]!;
}

describe("work over the budget is refused up front, with what to change", () => {
  const advise = ["advise", "--device", "samsung-990-pro-1tb", "--os", "linux-5.4"];
  const rows: { args: string[]; says: RegExp[] }[] = [
    { args: ["simulate", "--duration", "1h"], says: [/budget of 25 million/, /--duration/, /--over-budget/] },
    {
      args: [...advise, "--table-size", "1GB", "--clients", "1000"],
      says: [/This advice \(\d+ simulations\)/, /fewer --clients/],
    },
    {
      args: [...advise, "--table-size", "10GB", "--clients", "1000"],
      says: [/fewer --clients/, /--sim-size/],
    },
    {
      args: ["simulate", "--table-size", "10TB", "--workers", "64", "--clients", "1000"],
      says: [/fewer --clients/],
    },
    {
      args: ["sweep", "--clients", "1000", "--vary", "workers=0,2"],
      says: [/This sweep of 2 points/, /fewer --clients/],
    },
    {
      args: ["simulate", "--table-size", "2TB", "--pg", "14", "--exact", "--clients", "2"],
      says: [/drop --exact/],
    },
    {
      args: [
        "simulate",
        "--workload",
        "bitmap",
        "--dataset",
        "random",
        "--selectivity",
        "10%",
        "--table-size",
        "16TB",
      ],
      says: [/GiB of memory/, /budget of 1\.0 GiB/, /smaller --table-size/],
    },
  ];
  for (const { args, says } of rows) {
    it(`scanlab ${args.join(" ")}`, async () => {
      const r = await runBin(args);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      const line = oneSentence(r.stderr);
      for (const s of says) expect(line).toMatch(s);
    });
  }

  it("--json changes nothing: the refusal is on stderr, stdout stays empty", async () => {
    const r = await runBin(["simulate", "--duration", "1h", "--json"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    oneSentence(r.stderr);
  });
});

describe("tables up to PostgreSQL's last block simulate in seconds; one block more is refused as PostgreSQL refuses it", () => {
  // Each of these once ran past 120 s (the warp never cut past block 2^31).
  for (const args of [
    ["--table-size", "31TB"],
    ["--table-blocks", "4294967294"],
  ]) {
    it(`scanlab simulate ${args.join(" ")} --json`, async () => {
      const r = await runBin(["simulate", ...args, "--json"]);
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout).result as {
        simulation: { warp: { cuts: number }; queries: { runs: { finished: boolean; blocks: number }[] }[] };
      };
      expect(out.simulation.warp.cuts).toBeGreaterThanOrEqual(1);
      const run = out.simulation.queries[0]!.runs[0]!;
      expect(run.finished).toBe(true);
      expect(run.blocks).toBeGreaterThan(2 ** 31);
    });
  }

  it("sweep --vary table-size=17TB,1GB runs both points", async () => {
    const r = await runBin(["sweep", "--vary", "table-size=17TB,1GB", "--json"]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout).result as { points: { metrics: { timeS: number } | null }[] };
    expect(out.points).toHaveLength(2);
    for (const p of out.points) expect(p.metrics!.timeS).toBeGreaterThan(0);
  });

  for (const args of [
    ["--table-size", "32TB"],
    ["--table-blocks", "4294967295"],
  ]) {
    it(`scanlab simulate ${args.join(" ")} is refused`, async () => {
      const r = await runBin(["simulate", ...args]);
      expect(r.code).toBe(2);
      expect(oneSentence(r.stderr)).toMatch(/4294967294/);
    });
  }
});

describe("a long run reports progress on stderr, also off a terminal, but not with --json", () => {
  // 60 cold 1 GB scans: about 1.4 million steps, over the progress threshold (1 million), well
  // under the budget.
  const args = ["simulate", "--table-size", "1GB", "--clients", "60"];

  it("without --json: progress lines on stderr, the result on stdout", async () => {
    const r = await runBin(args);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/simulating .*% .* of 60\.0 GiB scanned/);
    expect(r.stdout).toMatch(/60 \/ 60/);
    expect(r.stdout).not.toMatch(/simulating/);
  });

  it("--duration reports simulated time of the end", async () => {
    // Two minutes of pgbench -T on a cached 1 GB table: about 1.2 million steps.
    const r = await runBin(["simulate", "--table-size", "1GB", "--duration", "2min"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/simulating .*% simulated .* of 120 s/);
  });

  it("with --json: nothing on stderr", async () => {
    const r = await runBin([...args, "--json"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    JSON.parse(r.stdout);
  });
});

describe("scan worker counts are bounded by the machine's cores and memory", () => {
  const file = join(dir, "f.bin");
  writeFileSync(file, Buffer.alloc(64 * 1024 * 1024, 7));
  const limit = maxScanWorkers();

  for (const workers of [1024, 1000, limit + 1]) {
    it(`scan --workers ${workers} on a 64 MB file is refused, naming the limit`, async () => {
      const r = await runBin(["scan", file, "--workers", String(workers)]);
      expect(r.code).toBe(2);
      const line = oneSentence(r.stderr);
      expect(line).toContain(`limit of ${limit} scan workers`);
      expect(line).toContain(`${availableParallelism()} core`);
    });
  }

  it("scan --workers at the limit runs", async () => {
    const r = await runBin(["scan", file, "--workers", String(limit), "--json"]);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout).result as { workers: number }).workers).toBe(limit);
  });
});
