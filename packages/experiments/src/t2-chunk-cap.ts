/**
 * T2. Chunk-size cap sweep on Linux 5.4 and Windows 10 (David Rowley, June 2020).
 *
 * pgsql-hackers thread “Parallel Seq Scan vs kernel read ahead”: a 100 GB table on an AMD Threadripper 3990X with 64 GB of RAM;
 * PARALLEL_SEQSCAN_MAX_CHUNK_SIZE swept 256, 512, ..., 8192 (the uncapped
 * size for 100 GB is 8192 blocks anyway). The numbers are only in PNGs that
 * were not recovered: the target is the curve's shape (apps/docs/src/reference/experiments.md#t2-chunk-size-cap-sweep).
 */
import type { ScenarioInput } from "@scanlab/simulator";
import { fmt, rowOf, speedup } from "./checks.js";
import type { Experiment, ExperimentRow } from "./types.js";

/** 100 GB of 8 kB blocks. */
const TABLE_BLOCKS = (100 * 1024 ** 3) / 8192;
const CAPS = [256, 512, 1024, 2048, 4096, 8192] as const;
const OSES = ["linux-5.4", "windows"] as const;
const WORKERS = 10;

function scenario(os: (typeof OSES)[number], cap: number, readAheadKb?: number): ScenarioInput {
  return {
    name: `T2 ${os} cap ${cap}${readAheadKb ? ` ra ${readAheadKb} kB` : ""}`,
    machine: {
      cores: 64,
      ram: "64GB",
      sharedBuffers: "128MB",
      os,
      osOptions: readAheadKb ? { readAheadKb } : {},
      device: "wd-ultrastar-dc-sn640-960gb",
    },
    tables: [{ name: "t", blocks: TABLE_BLOCKS, tuplesPerPage: 226 }],
    queries: [
      {
        name: "scan",
        table: "t",
        pg: "14",
        workers: WORKERS,
        allocator: { kind: "pg14", maxChunkBlocks: cap },
      },
    ],
  };
}

function rows(): ExperimentRow[] {
  const out: ExperimentRow[] = [];
  for (const os of OSES)
    for (const cap of CAPS)
      out.push({ id: `${os}-${cap}`, label: `${os}, cap ${cap}`, scenario: scenario(os, cap) });
  for (const cap of [256, 8192]) {
    out.push({
      id: `linux-5.4-${cap}-ra512`,
      label: `linux-5.4, cap ${cap}, read_ahead_kb 512`,
      scenario: scenario("linux-5.4", cap, 512),
    });
  }
  return out;
}

/**
 * Why T2 misses today (reported beside each statement that does not hold): the drive is unnamed and
 * stands in as the SN640 placeholder, an NVMe datasheet with one random-read size, so its per-command
 * time is 0 and its data path moves 3 GB/s whatever the read size (flash-queue.ts): eleven processes
 * keep it saturated at every cap, and neither the cap nor read_ahead_kb changes the rate.
 */
const T2_MISSING =
  "a size-dependent ceiling for the unnamed NVMe drive (its per-command time or die parallelism: the placeholder profile quotes one random-read size, so c = 0 and every cap is device-bound at 3 GB/s), or a per-process latency bound that leaves the device idle at chunk boundaries";

function shapeStatement(os: (typeof OSES)[number]) {
  return {
    missing: T2_MISSING,
    id: `${os}-shape`,
    text: `${os}: throughput rises with each doubling of the cap, with ever smaller gains, and saturates by 8192`,
    check: (r: ReadonlyMap<string, import("@scanlab/simulator").RowMetrics>) => {
      const speeds = CAPS.map((c) => 1 / rowOf(r, `${os}-${c}`).timeS);
      const gains = speeds.slice(1).map((s, i) => s / speeds[i]! - 1);
      // "Rises": the first doubling must gain something (1%), none may lose (0.5%, noise).
      const rises = gains[0]! > 0.01 && gains.every((g) => g >= -0.005);
      const concave = gains.every((g, i) => i === 0 || g <= gains[i - 1]! + 0.02);
      const saturated = gains[gains.length - 1]! < 0.05;
      return {
        holds: rises && concave && saturated,
        detail: `gains per doubling ${gains.map((g) => `${fmt(100 * g, 1)}%`).join(", ")}`,
      };
    },
  };
}

/** apps/docs/src/reference/experiments.md#t2-chunk-size-cap-sweep. */
export const T2: Experiment = {
  id: "T2",
  title: "Chunk-size cap sweep (256..8192) on Linux 5.4 and Windows",
  source: "D. Rowley, pgsql-hackers, June 2020 (v2_on_linux.png / v2_on_windows.png, not recovered)",
  assumptions: [
    "Storage is not named. T3's chunked queries on this host each moved ~2.5 GB/s while sharing one pass of reads, which a PCIe 3.0 NVMe drive of 2020 delivers: the wd-ultrastar-dc-sn640-960gb profile (~3 GB/s, placeholder datasheet figures) stands in.",
    "The worker count is not given: parallel_workers 10 (11 processes), as in T3 on the same host.",
    "A single int column, 226 tuples per page, as in T3's table; CPU costs are the defaults (nothing to calibrate from).",
    "Windows: the low-confidence cache-manager model (apps/docs/src/reference/windows-cache-manager.md#inferred-model) with its suggested parameters.",
  ],
  rows,
  ratios: [],
  // Each threshold below turns a qualitative "Must reproduce" line of apps/docs/src/reference/experiments.md#t2-chunk-size-cap-sweep into a number
  // (our reading of its wording, e.g. "roughly", "about", "within noise"); none is a published figure.
  statements: [
    shapeStatement("linux-5.4"),
    shapeStatement("windows"),
    {
      id: "cap256-slow",
      missing: T2_MISSING,
      text: "cap 256 is 'quite a bit slower' than 8192 on both systems",
      check: (r) => {
        const l = speedup(r, "linux-5.4-256", "linux-5.4-8192");
        const w = speedup(r, "windows-256", "windows-8192");
        return {
          holds: l < 0.9 && w < 0.9,
          detail: `cap256/cap8192 speed: Linux ${fmt(l)}, Windows ${fmt(w)}`,
        };
      },
    },
    {
      id: "ra-helps",
      missing: T2_MISSING,
      text: "raising Linux read-ahead above 128 kB increases throughput all round",
      check: (r) => {
        const a = speedup(r, "linux-5.4-256-ra512", "linux-5.4-256");
        const b = speedup(r, "linux-5.4-8192-ra512", "linux-5.4-8192");
        // "Increases": a real gain (1%), not a difference in the last digits of a device-bound run.
        return {
          holds: a > 1.01 && b > 1.01,
          detail: `512 kB vs 128 kB speed: cap 256 ${fmt(a)}, cap 8192 ${fmt(b)}`,
        };
      },
    },
  ],
};
