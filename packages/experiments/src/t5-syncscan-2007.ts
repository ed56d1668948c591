/**
 * T5. Synchronized scans, 2007: five concurrent scans of a table larger than RAM.
 *
 * Davis's 2007 synchronized-scan runs (pgsql-hackers thread “Synchronized Scan benchmark results”) (Jeff Davis, April 2007): with the synchronized-scan patch, five
 * concurrent scans of a table larger than RAM each took about as long as one
 * scan alone (~165 s): one pass of physical I/O instead of five. The machine
 * and table size did not come through (apps/docs/src/reference/experiments.md#t5-synchronized-scans-in-2007).
 */
import type { ScenarioInput } from "@scanlab/simulator";
import { fmt, RATIO_TOLERANCE, rowOf } from "./checks.js";
import type { Experiment, ExperimentRow } from "./types.js";

const RAM = "4GB";
const CLIENTS = 5;
const STAGGER_S = 10;

function scenario(tableBlocks: number, clients: number, sync: boolean): ScenarioInput {
  return {
    name: `T5 ${clients} scan${clients > 1 ? "s" : ""} sync ${sync ? "on" : "off"}`,
    machine: {
      cores: 4,
      ram: RAM,
      sharedBuffers: "256MB",
      os: "linux-5.4",
      device: "hdd-7200rpm",
    },
    tables: [{ name: "big", blocks: Math.round(tableBlocks), tuplesPerPage: 100 }],
    queries: [
      {
        name: "scan",
        table: "big",
        pg: "9.6",
        clients,
        clientStagger: STAGGER_S,
        workers: 0,
        synchronizeSeqscans: sync,
      },
    ],
  };
}

/** Default table: 16 GB, four times the assumed RAM. */
const DEFAULT_BLOCKS = (16 * 1024 ** 3) / 8192;

function rows(tableBlocks = DEFAULT_BLOCKS): ExperimentRow[] {
  return [
    {
      id: "single",
      label: "one scan alone",
      scenario: scenario(tableBlocks, 1, true),
      published: { timeS: 165 },
      metric: "timeS",
    },
    {
      id: "five-sync",
      label: `${CLIENTS} concurrent scans, synchronized`,
      scenario: scenario(tableBlocks, CLIENTS, true),
      published: { timeS: 165 },
      metric: "timeS",
    },
    {
      id: "five-nosync",
      label: `${CLIENTS} concurrent scans, not synchronized`,
      scenario: scenario(tableBlocks, CLIENTS, false),
    },
  ];
}

/** apps/docs/src/reference/experiments.md#t5-synchronized-scans-in-2007. */
export const T5: Experiment = {
  id: "T5",
  title: "Synchronized scans (2007): five concurrent scans of a table larger than RAM",
  source: "J. Davis, pgsql-hackers 2007-04-02..04, http://j-davis.com/patch15-results.html",
  assumptions: [
    "8.2.3 with the sync-scan and recycle-buffer patches behaves as 8.3 shipped them (syncscan.c constants are unchanged since 8.3): modelled as PG 9.6 serial scans.",
    "Machine M1: 4 cores, 4 GB RAM, one 7200 rpm disk (hdd-7200 profile), Linux readahead 128 kB; the I/O scheduler (AS vs CFQ) is not modelled.",
    `Scans start ${STAGGER_S} s apart (the start offsets were not published).`,
    "100 tuples per page (the table's shape is unknown).",
  ],
  rows,
  calibration: {
    unknown: "table size in blocks, from one scan alone taking 165 s",
    row: "single",
    metric: "timeS",
    // Search interval for the calibrated unknown (wide enough to contain the answer; not a model figure).
    bounds: [100_000, 20_000_000],
    apply: (v) => rows(v),
  },
  ratios: [
    {
      id: "five-vs-single",
      label: "5 synchronized scans vs one alone, time per scan",
      kind: "time",
      numerator: "five-sync",
      denominator: "single",
      published: 1,
      tolerance: RATIO_TOLERANCE,
    },
  ],
  // Each threshold below turns a qualitative "Must reproduce" line of apps/docs/src/reference/experiments.md#t5-synchronized-scans-in-2007 into a number
  // (our reading of its wording, e.g. "roughly", "about", "within noise"); none is a published figure.
  statements: [
    {
      id: "one-pass",
      text: "with sync scans each of 5 concurrent scans takes about as long as one scan alone",
      check: (r) => {
        const x = rowOf(r, "five-sync").timeS / rowOf(r, "single").timeS;
        return { holds: x < 1.2, detail: `time per scan, 5 synchronized / alone ${fmt(x)}` };
      },
    },
    {
      id: "followers-hit",
      text: "followers find the leader's pages cached (high cache hit ratio)",
      check: (r) => {
        const h = rowOf(r, "five-sync").cacheHitRatio;
        return {
          holds: h > 0.6,
          detail: `cache hit ratio (shared buffers + OS) ${fmt(100 * h, 1)}% (4 of 5 scans could hit: 80%)`,
        };
      },
    },
    {
      id: "nosync-worse",
      text: "without sync scans the concurrent scans are much slower (each reads on its own)",
      check: (r) => {
        const a = rowOf(r, "five-nosync");
        const b = rowOf(r, "five-sync");
        return {
          holds: a.timeS > 1.5 * b.timeS,
          detail: `not synchronized ${fmt(a.timeS, 0)} s vs ${fmt(b.timeS, 0)} s per scan, hit ratio ${fmt(100 * a.cacheHitRatio, 1)}%`,
        };
      },
    },
  ],
};
