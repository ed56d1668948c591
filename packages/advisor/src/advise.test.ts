import { rowMetrics, simulate } from "@scanlab/simulator";
import { describe, expect, it } from "vitest";
import { type PointSettings, scriptedRunner, seqScan } from "../test/scripted-runner.js";
import { advise, EIC_VALUES, READ_AHEAD_VALUES_KB } from "./advise.js";

/** Every row with times reads default -> recommended, gain = default / recommended - 1. */
function expectOneConvention(rows: Awaited<ReturnType<typeof advise>>["rows"]): void {
  for (const r of rows.filter((x) => x.gain !== null)) {
    const atDefault = r.sweep.find((s) => s.value === r.defaultValue)?.timeS;
    expect(r.defaultTimeS, r.setting).toBe(atDefault);
    expect(
      r.sweep.map((s) => s.timeS),
      r.setting,
    ).toContain(r.recommendedTimeS);
    expect(r.gain!, r.setting).toBeCloseTo(r.defaultTimeS! / r.recommendedTimeS! - 1, 12);
  }
}

const byStage =
  (t: {
    workers?: Record<number, number>;
    eic?: Record<number, number>;
    ra?: Record<number, number>;
    cap?: [number, number];
  }) =>
  (p: PointSettings): number | null => {
    switch (p.stage) {
      case "parallel workers":
        return t.workers?.[p.workers!] ?? 1;
      case "effective_io_concurrency":
        return t.eic?.[p.effectiveIoConcurrency!] ?? 1;
      case "read_ahead_kb":
        return t.ra?.[p.readAheadKb!] ?? 1;
      case "chunk cap":
        return p.label === "capped" ? (t.cap?.[0] ?? 1) : (t.cap?.[1] ?? 1);
    }
  };

describe("advise on scripted times", () => {
  it("sweeps the stages in order, each at the workers picked, and picks the smallest value within the tolerance", async () => {
    const { run, calls } = scriptedRunner(
      byStage({
        workers: { 0: 10, 1: 6, 2: 5.5, 3: 4 },
        eic: { 0: 3, 1: 4, 16: 3.05, 64: 3, 256: 2.99 },
        ra: { 128: 4, 256: 3, 512: 2.49, 1024: 2.45, 2048: 2.45, 4096: 2.45 },
      }),
    );
    const advice = await advise(seqScan("512MB"), { run });
    expect(calls.map((c) => c.stage.name)).toEqual([
      "parallel workers",
      "effective_io_concurrency",
      "read_ahead_kb",
    ]);
    expect(calls[0]!.stage.points).toEqual(["workers=0", "workers=1", "workers=2", "workers=3"]);
    // The later stages run at the count the first picked, one setting at a time.
    for (const c of calls.slice(1)) for (const p of c.points) expect(p.workers).toBe(3);
    expect(calls[1]!.points.map((p) => p.readAheadKb)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(calls[2]!.points.map((p) => p.readAheadKb)).toEqual([...READ_AHEAD_VALUES_KB]);
    expect(calls[2]!.points.every((p) => p.effectiveIoConcurrency === undefined)).toBe(true);
    expect(calls[1]!.scenarios[0]!.name).toBe("advise effective_io_concurrency eic=0");
    // Unscaled: PostgreSQL's own allocator, no cap written.
    expect(calls.flatMap((c) => c.points).every((p) => p.allocator === undefined)).toBe(true);

    expect(advice.rows.map((r) => [r.key, r.defaultValue, r.recommended])).toEqual([
      ["workers", "2", "3"],
      ["effective-io-concurrency", "1", "0"],
      ["read-ahead-kb", "128", "512"],
      ["chunk-cap", "8192", "does not matter"],
    ]);
    expect(advice.settings).toEqual({ workers: 3, effectiveIoConcurrency: 0, readAheadKb: 512 });
    expect(advice.rows[0]!.gain).toBeCloseTo(5.5 / 4 - 1, 12);
    expect(advice.rows[1]!.gain).toBeCloseTo(4 / 3 - 1, 12);
    expectOneConvention(advice.rows);
    // 512 MB is 65,536 blocks: chunks of 32 blocks, far under the cap, so nothing is simulated for it.
    expect(advice.rows[3]!.why).toContain("chunks of this table are 32 blocks");
    expect(advice.rows[3]!.why).toContain("16,779,264 blocks (128 GiB)");
    expect(advice.rows[3]!.fullSizeSweep).toEqual({ workers: 3, values: ["8192", "none"] });
    expect(advice.rows[1]!.fullSizeSweep).toEqual({ workers: 3, values: ["0", "1", "16", "64", "256"] });
    expect(advice.rows[0]!.fullSizeSweep).toEqual({ workers: null, values: ["0", "1", "2", "3"] });
    expect(advice.scale).toBeNull();
    expect(advice.interrupted).toBe(false);
    // The 2-worker point ran at 100 MiB/s, under the Intel 320's modelled sequential rate: 131072 bytes per
    // 4.5 us command + 131072 / 270 us (device-profiles' flash-queue.ts), 267.5 MB/s or 255 MiB/s.
    expect(advice.notes).toEqual([
      {
        kind: "throughput",
        text: "At the defaults the scan reads 100 MiB/s; the device model's sequential rate (128 kB reads, 8 in flight) is 255 MiB/s.",
      },
    ]);
  });

  it("keeps the default when every value is within the tolerance", async () => {
    const { run } = scriptedRunner(byStage({ eic: { 0: 2, 1: 2.01, 16: 1.99, 64: 2, 256: 2 } }));
    const advice = await advise(seqScan("512MB", "18"), { run });
    const eic = advice.rows.find((r) => r.key === "effective-io-concurrency")!;
    expect(eic.defaultValue).toBe("16");
    expect(eic.recommended).toBe("16 (no effect here)");
    expect(eic.gain).toBe(0);
    expect(eic.why).toBe("every value within 2%: this seqscan does not depend on it");
  });

  it("scales a large table down, times back up, and compares capped with uncapped chunks", async () => {
    const { run, calls } = scriptedRunner(byStage({ cap: [2, 1.9] }));
    const advice = await advise(seqScan("800GB"), {
      run,
      simBytes: 64 * 1024 ** 2,
      simSizeOption: "--sim-size",
    });
    const factor = (800 * 1024) / 64;
    expect(advice.scale?.factor).toBe(factor);
    expect(advice.notes[0]).toEqual({
      kind: "scaled",
      text: "Simulated scaled down 12800.0x to stay fast: a 0.06 GiB table with RAM, shared_buffers and the chunk cap scaled by the same factor; times are scaled back up.",
    });
    const scaledCap = { kind: "pg14", maxChunkBlocks: 1 };
    for (const c of calls.slice(0, -1)) for (const p of c.points) expect(p.allocator).toEqual(scaledCap);
    const cap = calls.at(-1)!;
    expect(cap.stage.points).toEqual(["capped", "uncapped"]);
    // 104,857,600 blocks / 2048 = 51,200, rounded up to 65,536-block chunks, scaled: 5 blocks.
    expect(cap.points.map((p) => p.allocator)).toEqual([scaledCap, { kind: "pg14", maxChunkBlocks: 5 }]);
    const row = advice.rows.find((r) => r.key === "chunk-cap")!;
    expect(row.recommended).toBe("uncapped is faster here");
    expect(row.sweep).toEqual([
      { value: "8192", timeS: 2 * factor },
      { value: "none (65536)", timeS: 1.9 * factor },
    ]);
    expect(row.gain).toBeCloseTo(2 / 1.9 - 1, 12);
    expect(advice.settings.uncappedChunks).toBe(true);
    expectOneConvention(advice.rows);
    // 16 GB / 12800 of RAM: 2 and 4 MB windows do not fit, and the row says so.
    const ra = advice.rows.find((r) => r.key === "read-ahead-kb")!;
    expect(ra.sweep.map((s) => s.value)).toEqual(["128", "256", "512", "1024"]);
    expect(ra.why).toMatch(/; 2048, 4096 kB not simulated: .* \(give a larger --sim-size\)$/);
  });

  it("scales a cap the scenario sets, and keeps an uncapped allocator uncapped", async () => {
    for (const [given, simulated] of [
      [256, 26],
      [null, null],
    ] as const) {
      const s = seqScan("10GB");
      s.queries[0]!.allocator = { kind: "pg14", maxChunkBlocks: given };
      const { run, calls } = scriptedRunner(() => 1);
      await advise(s, { run });
      for (const c of calls.slice(0, 3))
        for (const p of c.points) expect(p.allocator).toEqual({ kind: "pg14", maxChunkBlocks: simulated });
    }
  });

  it("leaves out read_ahead_kb off Linux and the chunk cap before PG14's allocator", async () => {
    const s = seqScan("10GB", "13");
    s.machine.os = "freebsd-13";
    const { run, calls } = scriptedRunner(() => 1);
    const advice = await advise(s, { run });
    expect(calls.map((c) => c.stage.name)).toEqual(["parallel workers", "effective_io_concurrency"]);
    expect(advice.rows.map((r) => r.key)).toEqual(["workers", "effective-io-concurrency"]);
    // Scaled down 10x, but the pg11 allocator of PostgreSQL 13 has no cap to scale.
    expect(advice.scale?.factor).toBe(10);
    expect(calls.flatMap((c) => c.points).every((p) => p.allocator === undefined)).toBe(true);
  });

  it("runs a bitmap heap scan serially over every effective_io_concurrency value", async () => {
    const s = seqScan("512MB");
    s.queries[0]!.kind = "bitmap";
    s.queries[0]!.bitmap = { dataset: "random", selectivity: 0.05 };
    const { run, calls } = scriptedRunner(() => 1);
    const estimates: number[] = [];
    const advice = await advise(s, { run, onPlan: (g) => estimates.push(g.length) });
    expect(calls.map((c) => c.stage.name)).toEqual(["effective_io_concurrency", "read_ahead_kb"]);
    expect(calls[0]!.points.map((p) => [p.workers, p.effectiveIoConcurrency])).toEqual(
      EIC_VALUES.map((v) => [0, v]),
    );
    expect(advice.atDefaults).toBeNull();
    expect(advice.notes).toEqual([]);
    expect(estimates).toEqual([EIC_VALUES.length + READ_AHEAD_VALUES_KB.length]);
  });

  it("refuses a plain-file reader in one sentence, running nothing", async () => {
    const { run, calls } = scriptedRunner(() => 1);
    const s = seqScan("64MB");
    s.queries = [{ name: "read", table: "t", kind: "file", file: { pattern: "forward", adviseDistance: 1 } }];
    await expect(advise(s, { run })).rejects.toThrow(
      /^The advisor tunes the PostgreSQL settings of a scan[^\n]*\.$/,
    );
    expect(calls).toEqual([]);
  });

  it("estimates the whole grid before anything runs, and a refusal runs nothing", async () => {
    const { run, calls } = scriptedRunner(() => 1);
    let grid = 0;
    await expect(
      advise(seqScan("512MB"), {
        run,
        onPlan: (g) => {
          grid = g.length;
          expect(g.every((e) => e.steps > 0)).toBe(true);
          throw new Error("over budget");
        },
      }),
    ).rejects.toThrow("over budget");
    // 4 worker counts, 5 eic values, 6 readahead windows, capped and uncapped.
    expect(grid).toBe(4 + 5 + 6 + 2);
    expect(calls).toEqual([]);
  });

  it("stops after the stage during which it was told to, with the rows so far", async () => {
    let stop = false;
    const { run, calls } = scriptedRunner(() => {
      stop = true;
      return 1;
    });
    const advice = await advise(seqScan("512MB"), { run, stopped: () => stop });
    expect(calls).toHaveLength(1);
    expect(advice.interrupted).toBe(true);
    expect(advice.rows.map((r) => r.key)).toEqual(["workers"]);
  });
});

describe("advise with the simulator", () => {
  // Fourteen simulations of a 64 MB table: seconds alone, within the default hang timeout on a loaded machine.
  it("runs every stage in process, and a point's time is the simulator's for that scenario", async () => {
    const s = seqScan("64MB");
    s.machine.cores = 3;
    const advice = await advise(s);
    expect(advice.rows.map((r) => r.key)).toEqual([
      "workers",
      "effective-io-concurrency",
      "read-ahead-kb",
      "chunk-cap",
    ]);
    const alone = structuredClone(s);
    alone.queries[0]!.workers = 1;
    const expected = rowMetrics(simulate(alone), alone).timeS;
    expect(advice.rows[0]!.sweep).toHaveLength(3);
    expect(advice.rows[0]!.sweep[1]).toEqual({ value: "1", timeS: expected });
    expectOneConvention(advice.rows);
  });
});
