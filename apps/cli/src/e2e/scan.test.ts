/**
 * `scan` on a real temporary file, as a user runs it: every block read
 * exactly once, the per-worker run shapes each allocator should give
 * (apps/docs/src/reference/experiments.md#t1-freebsd-ufs-striding-and-64-block-chunks: pg11 hands out one block per call, so two workers read
 * runs of about one block; PG14 chunks give long runs), and Ctrl-C: exit 130
 * with the blocks read so far. The cold runs are in scan.live.test.ts.
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runBin } from "./run-bin.js";

// A real file system, not tmpfs, when one is at hand (eviction and device counters then mean something).
const base = existsSync("/var/tmp") ? "/var/tmp" : tmpdir();
const dir = mkdtempSync(join(base, "scanlab-cli-scan-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const MiB = 1024 * 1024;
const file = join(dir, "table.dat");
const data = Buffer.alloc(16 * MiB);
for (let i = 0; i < data.length; i += 4096) data[i] = (i / 4096) & 0xff;
writeFileSync(file, data);
const NBLOCKS = (16 * MiB) / 8192;

describe("scan", () => {
  it("a work module that throws is a runtime failure: exit 1 and one sentence, not the usage status", async () => {
    const throwing = join(dir, "throws.mjs");
    writeFileSync(throwing, 'export default function () { throw new Error("boom"); }\n');
    const r = await runBin(["scan", file, "--work-module", throwing]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("scanlab scan: the per-block work module threw on block 0 (boom).\n");
    // A module that does not exist is a mistake in the command line: still 2.
    const missing = await runBin(["scan", file, "--work-module", join(dir, "no-such.mjs")]);
    expect(missing.code).toBe(2);
  });

  it("reads every block once and reports the result", async () => {
    const r = await runBin(["scan", file, "--workers", "2", "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout).result;
    const run = json.runs[0];
    expect(run.policy).toBe("pg14");
    expect(run.result.blocks).toBe(NBLOCKS);
    expect(run.result.cover.exact).toBe(true);
    expect(run.result.perWorker).toHaveLength(2);
    expect(run.result.aborted).toBe(false);
  });

  it("prints the result table on stdout", async () => {
    const r = await runBin(["scan", file, "--workers", "2", "--allocator", "munro2020"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("munro2020");
    expect(r.stdout).toMatch(/MiB\/s/);
    expect(r.stdout).toMatch(/w1/);
  });

  it("Ctrl-C (SIGINT) stops cleanly: exit 130 and the blocks read so far", async () => {
    const marker = join(dir, "started");
    const slow = join(dir, "slow-work.mjs");
    // 2 ms of work per block: 2048 blocks over 2 workers take about 2 s.
    writeFileSync(
      slow,
      `import { writeFileSync, existsSync } from "node:fs";
export default function () {
  if (!existsSync(${JSON.stringify(marker)})) writeFileSync(${JSON.stringify(marker)}, "1");
  const t = performance.now();
  while (performance.now() - t < 2) {}
  return 1;
}
`,
    );
    let child: ChildProcess | undefined;
    const waitAndInterrupt = async () => {
      for (let i = 0; i < 600 && !existsSync(marker); i++) await new Promise((r) => setTimeout(r, 25));
      await new Promise((r) => setTimeout(r, 200));
      child!.kill("SIGINT");
    };
    const result = runBin(["scan", file, "--workers", "2", "--work-module", slow, "--json"], {
      onSpawn: (c) => {
        child = c;
      },
    });
    await waitAndInterrupt();
    const r = await result;
    expect(r.code).toBe(130);
    const json = JSON.parse(r.stdout).result;
    expect(json.interrupted).toBe(true);
    const scan = json.runs[0].result;
    expect(scan.aborted).toBe(true);
    expect(scan.blocks).toBeGreaterThan(0);
    expect(scan.blocks).toBeLessThan(NBLOCKS);
    expect(r.stderr).toContain("interrupted");
  });

  it("--pg 17 reads through a read stream: combined reads of up to 16 blocks, every block once", async () => {
    // One worker: its claims follow each other, so its reads grow to 16 blocks. With two, how many blocks of
    // a small table each claims in a row depends on how the threads are scheduled.
    const r = await runBin(["scan", file, "--workers", "1", "--pg", "17", "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout).result;
    expect(json.pg).toBe("17");
    const result = json.runs[0].result;
    expect(result.mode).toEqual({
      kind: "read-stream",
      ioCombineLimit: 16,
      effectiveIoConcurrency: 1,
      advice: false,
    });
    expect(result.cover.exact).toBe(true);
    expect(result.blocks).toBe(NBLOCKS);
    expect(result.reads.meanBlocks).toBeGreaterThan(4);
    expect(result.reads.meanBlocks).toBeLessThanOrEqual(16);
    expect(result.advice.calls).toBe(0);
  });

  it("--io-combine-limit takes a size as SHOW prints it, and --effective-io-concurrency turns advice on", async () => {
    const r = await runBin([
      "scan",
      file,
      "--workers",
      "2",
      "--pg",
      "18",
      "--io-combine-limit",
      "256kB",
      "--effective-io-concurrency",
      "8",
      "--json",
    ]);
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout).result.runs[0].result;
    expect(result.mode).toEqual({
      kind: "read-stream",
      ioCombineLimit: 32,
      effectiveIoConcurrency: 8,
      advice: true,
    });
    expect(result.cover.exact).toBe(true);
    expect(result.advice.requested).toBe(true);
    if (result.advice.available) {
      // Every read that does not continue the worker's previous one is advised: the first read of each
      // of its runs but the first (a worker that found no block left reads nothing). How the two workers'
      // claims interleave is up to the machine.
      for (const w of result.perWorker) expect(w.reads.adviceCalls).toBe(Math.max(0, w.runs.count - 1));
      expect(result.advice.calls).toBe(
        result.perWorker.reduce(
          (a: number, w: { runs: { count: number } }) => a + Math.max(0, w.runs.count - 1),
          0,
        ),
      );
    } else expect(result.warnings.join(" ")).toContain("posix_fadvise");
  });

  it("--pattern runs the reader without advice, then with it, and prints the ratio and the simulator's prediction of each", async () => {
    const r = await runBin([
      "scan",
      file,
      "--pattern",
      "backward",
      "--advise-distance",
      "4",
      "--device",
      "samsung-990-pro-1tb",
    ]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("backward, no advice");
    expect(r.stdout).toContain("backward, advise 4 ahead");
    expect(r.stdout).toMatch(/backward, advise 4 ahead \/ backward, no advice: [\d.]+x the throughput/);
    expect(r.stdout).not.toContain("no prediction");
    const j = await runBin([
      "scan",
      file,
      "--pattern",
      "random",
      "--advise-distance",
      "2",
      "--device",
      "samsung-990-pro-1tb",
      "--json",
    ]);
    const runs = JSON.parse(j.stdout).result.runs;
    expect(
      runs.map((x: { result: { mode: { adviseDistance: number } } }) => x.result.mode.adviseDistance),
    ).toEqual([0, 2]);
    for (const x of runs) {
      expect(x.result.cover.exact).toBe(true);
      expect(x.prediction.timeS).toBeGreaterThan(0);
      expect(x.predictionNote).toBeUndefined();
    }
    // The simulated reader advises every block once, as the real one does; without advice, never.
    expect(runs[0].predictedIo.adviceCalls).toBe(0);
    expect(runs[1].predictedIo.adviceCalls).toBe(runs[1].result.target.nblocks);
    if (runs[1].result.advice.available)
      expect(runs[1].result.advice.calls).toBe(runs[1].predictedIo.adviceCalls);
  });

  it("--pg 17 with --device sets the simulator's prediction of the same PG17 scan beside the measurement", async () => {
    const r = await runBin(["scan", file, "--pg", "17", "--device", "samsung-990-pro-1tb", "--json"]);
    expect(r.code).toBe(0);
    const run = JSON.parse(r.stdout).result.runs[0];
    expect(run.prediction).not.toBeNull();
    expect(run.prediction.timeS).toBeGreaterThan(0);
    expect(run.predictionNote).toBeUndefined();
  });
});
