/**
 * T7. effective_io_concurrency against SATA SSDs (Tomas Vondra, pgsql-hackers, “Re: effective_io_concurrency and NVMe devices”).
 *
 * (b) pgbench scale 3000 right after `pgbench -i`:
 *     `select * from pgbench_accounts where aid between 1000 and 50000000 and abalance != 0`
 *     is a bitmap heap scan over an almost perfectly sequential sixth of a
 *     38 GB table, on an Intel SSD 320 and on a RAID0 of six Intel S3600,
 *     with eic 0..256. Prefetching one block ahead made it 1.7x (single SSD)
 *     and 6.9x (RAID0) slower than no prefetching at all.
 * (c) synthetic data sets (random, random-8, random-32, sequential) at 1..50%
 *     selectivity: only statements survive (the CSVs were not recovered).
 *
 * Machine: i5-2500K (4 cores), 8 GB RAM. PostgreSQL 13+ semantics (eic is the
 * prefetch distance; PG13-17 bitmap heap scan prefetcher).
 */
import { DEFAULT_CPU_COSTS, type RowMetrics, type ScenarioInput } from "@scanlab/simulator";
import { fmt, RATIO_TOLERANCE, rowOf } from "./checks.js";
import type { Experiment, ExperimentRow } from "./types.js";

export const T7_EIC = [0, 1, 2, 4, 8, 16, 32, 64, 128, 256] as const;
const DEVICES = [
  { id: "ssd", profile: "intel-ssd-320-120gb", label: "SSD single (Intel 320)" },
  { id: "raid", profile: "raid0-6x-intel-s3600-100gb", label: "SSD RAID0 (6 x S3600)" },
] as const;
const PUBLISHED: Record<string, readonly number[]> = {
  ssd: [29.4, 49.4, 33.9, 25.2, 31.9, 27.2, 28.0, 29.3, 27.6, 27.6],
  raid: [10.7, 74.2, 51.2, 30.6, 24.0, 13.8, 14.6, 14.3, 14.1, 14.0],
};
/** pgbench_accounts at scale 3000: 300 M rows at 61 per page (fillfactor 100). */
const PGBENCH_BLOCKS = Math.ceil(300_000_000 / 61);

export const T7C_DATASETS = ["random", "random-8", "random-32", "sequential"] as const;
export const T7C_SELECTIVITY = [0.01, 0.05, 0.1, 0.25, 0.5] as const;
export const T7C_EIC = [0, 1, 2, 4, 8, 16, 64, 256] as const;
/** Synthetic table size: not published; 1 GB (131,072 pages), an eighth of the machine's RAM. */
const SYNTHETIC_BLOCKS = 131_072;

function machine(device: string, perTupleUs: number): ScenarioInput["machine"] {
  return {
    cores: 4,
    ram: "8GB",
    sharedBuffers: "128MB",
    os: "linux-5.4",
    device,
    cpu: { perTupleUs },
  };
}

function pgbenchScenario(device: (typeof DEVICES)[number], eic: number, perTupleUs: number): ScenarioInput {
  return {
    name: `T7 pgbench ${device.id} eic ${eic}`,
    machine: machine(device.profile, perTupleUs),
    tables: [{ name: "pgbench_accounts", blocks: PGBENCH_BLOCKS, tuplesPerPage: 61 }],
    queries: [
      {
        name: "bitmap",
        table: "pgbench_accounts",
        kind: "bitmap",
        pg: "13",
        effectiveIoConcurrency: eic,
        bitmap: { pgbench: "bitmap-2022" },
      },
    ],
  };
}

function syntheticScenario(
  device: (typeof DEVICES)[number],
  dataset: (typeof T7C_DATASETS)[number],
  selectivity: number,
  eic: number | "adaptive",
  perTupleUs: number,
): ScenarioInput {
  return {
    name: `T7c ${device.id} ${dataset} ${selectivity * 100}% eic ${eic}`,
    machine: machine(device.profile, perTupleUs),
    tables: [{ name: "t", blocks: SYNTHETIC_BLOCKS, tuplesPerPage: 27 }],
    queries: [
      {
        name: "bitmap",
        table: "t",
        kind: "bitmap",
        pg: "13",
        effectiveIoConcurrency: eic === "adaptive" ? 64 : eic,
        prefetch: eic === "adaptive" ? "adaptive" : "pg13",
        bitmap: { dataset, selectivity, seed: 4 },
      },
    ],
  };
}

/** The uncalibrated default: cpu-costs.ts's per-tuple cost [I]. */
function rows(perTupleUs = DEFAULT_CPU_COSTS.perTupleUs): ExperimentRow[] {
  const out: ExperimentRow[] = [];
  for (const d of DEVICES) {
    T7_EIC.forEach((eic, i) => {
      out.push({
        id: `${d.id}-eic${eic}`,
        label: `${d.label}, pgbench query, eic ${eic}`,
        scenario: pgbenchScenario(d, eic, perTupleUs),
        published: { timeS: PUBLISHED[d.id]![i]! },
        metric: "timeS",
      });
    });
  }
  for (const d of DEVICES) {
    for (const ds of T7C_DATASETS) {
      for (const sel of T7C_SELECTIVITY) {
        for (const eic of [...T7C_EIC, "adaptive" as const]) {
          out.push({
            id: `c-${d.id}-${ds}-${sel * 100}-${eic}`,
            label: `${d.label}, ${ds}, ${sel * 100}%, ${eic === "adaptive" ? "adaptive" : `eic ${eic}`}`,
            scenario: syntheticScenario(d, ds, sel, eic, perTupleUs),
          });
        }
      }
    }
  }
  return out;
}

const cid = (d: string, ds: string, sel: number, eic: number | "adaptive") =>
  `c-${d}-${ds}-${sel * 100}-${eic}`;

function forDevices(
  f: (d: string, r: ReadonlyMap<string, RowMetrics>) => { holds: boolean; detail: string },
) {
  return (r: ReadonlyMap<string, RowMetrics>) => {
    const parts = DEVICES.map((d) => ({ d: d.id, ...f(d.id, r) }));
    return { holds: parts.every((p) => p.holds), detail: parts.map((p) => `${p.d}: ${p.detail}`).join("; ") };
  };
}

/** apps/docs/src/reference/experiments.md#t7-effective-io-concurrency-on-sata-ssds. */
export const T7: Experiment = {
  id: "T7",
  title: "effective_io_concurrency vs SATA SSDs (bitmap heap scan prefetch)",
  source: "T. Vondra, pgsql-hackers, 'Re: effective_io_concurrency and NVMe devices'",
  assumptions: [
    "PostgreSQL 13-17 bitmap heap scan prefetcher (eic is the prefetch distance); Linux 5.4 readahead; shared_buffers 128 MB.",
    "Single SSD: read_ahead_kb 128 (default). RAID0: Linux md with the default 512 KiB chunk, so read_ahead_kb = max(2 x io_opt, 128 kB) = 6144 kB (apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0).",
    "pgbench_accounts at scale 3000: 61 tuples per page (97-byte rows, fillfactor 100), 4.92 M pages; the query's bitmap is the contiguous sixth of the table right after pgbench -i.",
    "Synthetic tables (c): 1 GB (size not published), 27 rows per page; caches dropped before each query.",
  ],
  rows,
  calibration: {
    unknown:
      "CPU cost per tuple (machine.cpu.perTupleUs), from the RAID0 run with eic=0 (10.7 s, the CPU-bound row)",
    row: "raid-eic0",
    metric: "timeS",
    // Search interval for the calibrated unknown (wide enough to contain the answer; not a model figure).
    bounds: [0.001, 1],
    apply: (v) => rows(v),
  },
  ratios: [
    {
      id: "ssd-eic1",
      label: "Intel 320: eic=1 vs eic=0, time",
      kind: "time",
      numerator: "ssd-eic1",
      denominator: "ssd-eic0",
      published: 49.4 / 29.4,
      tolerance: RATIO_TOLERANCE,
    },
    {
      id: "raid-eic1",
      label: "RAID0: eic=1 vs eic=0, time",
      kind: "time",
      numerator: "raid-eic1",
      denominator: "raid-eic0",
      published: 74.2 / 10.7,
      tolerance: RATIO_TOLERANCE,
      missing:
        "a per-block cost outside the drives: the published eic=1 run took about 90 us per 8 kB block, more than one S3700 member's own QD1 read (58 us) and far more than its read-ahead hit; advice through md RAID0 and the kernel's readahead on the array's 6 MB window are the suspects, not the device model",
    },
    {
      id: "ssd-eic256",
      label: "Intel 320: eic=256 vs eic=0, time",
      kind: "time",
      numerator: "ssd-eic256",
      denominator: "ssd-eic0",
      published: 27.6 / 29.4,
      tolerance: RATIO_TOLERANCE,
    },
    {
      id: "raid-eic256",
      label: "RAID0: eic=256 vs eic=0, time",
      kind: "time",
      numerator: "raid-eic256",
      denominator: "raid-eic0",
      published: 14.0 / 10.7,
      tolerance: RATIO_TOLERANCE,
    },
  ],
  // Each threshold below turns a qualitative "Must reproduce" line of apps/docs/src/reference/experiments.md#t7-effective-io-concurrency-on-sata-ssds into a number
  // (our reading of its wording, e.g. "roughly", "about", "within noise"); none is a published figure.
  statements: [
    {
      id: "eic1-slower",
      text: "on the sequential-ish pgbench bitmap, eic=1 is much slower than eic=0 on both devices",
      check: forDevices((d, r) => {
        const x = rowOf(r, `${d}-eic1`).timeS / rowOf(r, `${d}-eic0`).timeS;
        return { holds: x > 1.3, detail: `eic1/eic0 time ${fmt(x)}` };
      }),
    },
    {
      id: "high-eic-recovers",
      text: "high eic recovers most of the loss but never clearly beats eic=0",
      check: forDevices((d, r) => {
        const x = rowOf(r, `${d}-eic256`).timeS / rowOf(r, `${d}-eic0`).timeS;
        const y = rowOf(r, `${d}-eic1`).timeS / rowOf(r, `${d}-eic0`).timeS;
        // "Most of the loss": eic=256 gives back more than half of what eic=1 lost against eic=0.
        const recovered = (y - x) / (y - 1);
        return {
          holds: y > 1 && x >= 0.9 && recovered > 0.5,
          detail: `eic256/eic0 time ${fmt(x)} (eic1/eic0 ${fmt(y)}: ${fmt(100 * recovered, 0)}% of the loss recovered)`,
        };
      }),
    },
    {
      id: "random-sparse-wins",
      text: "random data: eic=1 already helps at 1, 5 and 10% selectivity",
      check: forDevices((d, r) => {
        const xs = [0.01, 0.05, 0.1].map(
          (s) => rowOf(r, cid(d, "random", s, 1)).timeS / rowOf(r, cid(d, "random", s, 0)).timeS,
        );
        return { holds: xs.every((x) => x < 1), detail: `eic1/eic0 ${xs.map((x) => fmt(x)).join(", ")}` };
      }),
    },
    {
      id: "random-dense-loses",
      missing:
        "how the Intel 320 and the S3600s serve the 8 kB reads that eic 1 issues in order, one or two at a time: the requests are the kernel's (held against Linux 6.18 at read_ahead_kb 128, apps/docs/src/reference/experiments.md#t7-c-held-against-a-real-kernel), and on a virtual disk whose in-order 8 kB reads are slow the model does predict eic 1 losing at 25 and 50%",
      text: "random data at 25 and 50%: eic=1 is slower than eic=0",
      check: forDevices((d, r) => {
        const xs = [0.25, 0.5].map(
          (s) => rowOf(r, cid(d, "random", s, 1)).timeS / rowOf(r, cid(d, "random", s, 0)).timeS,
        );
        return { holds: xs.every((x) => x > 1), detail: `eic1/eic0 ${xs.map((x) => fmt(x)).join(", ")}` };
      }),
    },
    {
      id: "random32-needs-4",
      missing:
        "the same drive side inside 32-page runs: eic 1 and 2 issue in-order 8 kB reads (the kernel's requests, held against Linux 6.18 in the same section), which the SATA profiles' controller read-ahead serves fast, where the real runs lost",
      text: "random-32: every selectivity needs eic >= 4 to break even (eic 1 and 2 lose)",
      check: forDevices((d, r) => {
        const xs = T7C_SELECTIVITY.flatMap((s) =>
          [1, 2].map(
            (e) => rowOf(r, cid(d, "random-32", s, e)).timeS / rowOf(r, cid(d, "random-32", s, 0)).timeS,
          ),
        );
        return { holds: xs.every((x) => x > 1), detail: `worst eic1-2/eic0 ${fmt(Math.min(...xs))}` };
      }),
    },
    {
      id: "sequential-never",
      text: "sequential data: prefetching never breaks even with eic=0",
      check: forDevices((d, r) => {
        const xs = T7C_SELECTIVITY.flatMap((s) =>
          T7C_EIC.filter((e) => e > 0).map(
            (e) => rowOf(r, cid(d, "sequential", s, e)).timeS / rowOf(r, cid(d, "sequential", s, 0)).timeS,
          ),
        );
        return { holds: xs.every((x) => x >= 0.99), detail: `best eic>0 / eic0 ${fmt(Math.min(...xs))}` };
      }),
    },
    {
      id: "adaptive-bar",
      text: "the adaptive policy (not in PostgreSQL) is never more than 5% slower than the better of eic=0 and the best fixed eic",
      check: forDevices((d, r) => {
        const cases: { x: number; where: string }[] = [];
        for (const ds of T7C_DATASETS)
          for (const s of T7C_SELECTIVITY) {
            const best = Math.min(...T7C_EIC.map((e) => rowOf(r, cid(d, ds, s, e)).timeS));
            const x = rowOf(r, cid(d, ds, s, "adaptive")).timeS / best;
            cases.push({ x, where: `${ds} ${s * 100}%` });
          }
        // A row that did not finish (NaN) makes the bar not computable: it does not hold.
        const bad = cases.find((c) => !Number.isFinite(c.x));
        if (bad)
          return { holds: false, detail: `not computable at ${bad.where} (adaptive/best ${fmt(bad.x)})` };
        const worst = cases.reduce((w, c) => (c.x > w.x ? c : w));
        return { holds: worst.x <= 1.05, detail: `worst adaptive/best ${fmt(worst.x, 3)} (${worst.where})` };
      }),
    },
    {
      id: "adaptive-helps",
      text: "the adaptive policy is faster than eic=0 wherever some fixed eic is (by more than 5%)",
      check: forDevices((d, r) => {
        const misses: string[] = [];
        let cases = 0;
        for (const ds of T7C_DATASETS)
          for (const s of T7C_SELECTIVITY) {
            const t0 = rowOf(r, cid(d, ds, s, 0)).timeS;
            const best = Math.min(...T7C_EIC.map((e) => rowOf(r, cid(d, ds, s, e)).timeS));
            const adaptive = rowOf(r, cid(d, ds, s, "adaptive")).timeS;
            // A row that did not finish (NaN) is a miss, not a case to skip.
            if (![t0, best, adaptive].every(Number.isFinite))
              misses.push(`${ds} ${s * 100}% (not computable)`);
            else if (best < 0.95 * t0) {
              cases++;
              if (adaptive >= t0) misses.push(`${ds} ${s * 100}%`);
            }
          }
        // With no case where a fixed eic helps there is nothing to check: not a statement that holds.
        if (cases === 0 && misses.length === 0)
          return { holds: false, detail: "no case where a fixed eic beats eic=0 by 5%: nothing to check" };
        return {
          holds: misses.length === 0,
          detail:
            misses.length === 0
              ? `faster in all ${cases} cases where a fixed eic is`
              : `not faster at ${misses.join(", ")}`,
        };
      }),
    },
  ],
};
