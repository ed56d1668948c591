/**
 * What the playground does, without any UI: the built-in scenarios it
 * offers (every row of every reproduction target of @scanlab/simulator),
 * the parameters a visitor can change, how they are written into the
 * scenario, and what is shown of a result (the target metrics and a chart).
 *
 * Kept free of DOM and Vue so the browser test can build the very same
 * scenario in Node, run @scanlab/simulator there, and compare the numbers
 * the page shows with Node's.
 */

import { barChartSvg, lineChartSvg } from "@scanlab/charts";
import { builtinProfiles } from "@scanlab/device-profiles";
import { TARGETS } from "@scanlab/experiments";
import {
  OS_NAMES,
  PG_VERSIONS,
  parseBytes,
  type RowMetrics,
  rowMetrics,
  type ScenarioInput,
  type SimulationResult,
} from "@scanlab/simulator";

/** A scenario the playground offers. */
export interface BuiltinScenario {
  /** `T1/serial`. */
  id: string;
  label: string;
  scenario: ScenarioInput;
}

/** Every row of every reproduction target, in target order. */
export function builtinScenarios(): BuiltinScenario[] {
  return TARGETS.flatMap((t) =>
    t.rows().map((r) => ({ id: `${t.id}/${r.id}`, label: `${t.id}: ${r.label}`, scenario: r.scenario })),
  );
}

/** The parameters the form edits. Empty string = keep the scenario's value. */
export interface PlaygroundParams {
  seed: number;
  /** Size of the first table, with a unit ("1GB", "512MB"). */
  tableSize: string;
  workers: number;
  clients: number;
  pg: string;
  os: string;
  /** OS readahead in kB; "" = the OS default. */
  readAheadKb: string;
  /** A built-in device profile name; "" = the scenario's device. */
  device: string;
  synchronizeSeqscans: boolean;
  /** For bitmap scans; "" = PostgreSQL's default. */
  effectiveIoConcurrency: string;
}

/** The parameters as the scenario has them. */
export function paramsOf(s: ScenarioInput): PlaygroundParams {
  const q = s.queries[0]!;
  const t = s.tables.find((x) => x.name === q.table) ?? s.tables[0]!;
  // 8192: BLCKSZ, the block size the simulator's scenarios count blocks in.
  const bytes = t.blocks !== undefined ? t.blocks * 8192 : parseBytes(t.size ?? 0, "size");
  return {
    seed: s.seed ?? 1,
    tableSize: formatSize(bytes),
    workers: q.workers ?? 0,
    clients: q.clients ?? 1,
    pg: q.pg ?? "14",
    os: s.machine.os,
    readAheadKb:
      s.machine.osOptions?.readAheadKb === undefined ? "" : String(s.machine.osOptions.readAheadKb),
    device: typeof s.machine.device === "string" ? s.machine.device : "",
    synchronizeSeqscans: q.synchronizeSeqscans ?? true,
    effectiveIoConcurrency: q.effectiveIoConcurrency === undefined ? "" : String(q.effectiveIoConcurrency),
  };
}

/** "1GB", "800MB", "1.5GB": the shortest exact spelling in MB or GB (1 GB = 2^30 bytes, as the simulator parses). */
export function formatSize(bytes: number): string {
  const gb = bytes / 2 ** 30;
  if (gb >= 1 && Number.isInteger(gb * 1000)) return `${+gb.toFixed(3)}GB`;
  const mb = bytes / 2 ** 20;
  if (Number.isInteger(mb * 1000)) return `${+mb.toFixed(3)}MB`;
  return `${bytes}`;
}

/** The scenario with the parameters written in (a deep copy; the input is not changed). */
export function applyParams(base: ScenarioInput, p: PlaygroundParams): ScenarioInput {
  const s = JSON.parse(JSON.stringify(base)) as ScenarioInput;
  s.seed = p.seed;
  const q = s.queries[0]!;
  const ti = Math.max(
    0,
    s.tables.findIndex((x) => x.name === q.table),
  );
  const t = { ...s.tables[ti]! };
  delete t.blocks;
  t.size = p.tableSize;
  s.tables[ti] = t;
  for (const query of s.queries) {
    if (query.table !== q.table && query !== q) continue;
    query.workers = p.workers;
    query.clients = p.clients;
    query.pg = p.pg as (typeof PG_VERSIONS)[number];
    query.synchronizeSeqscans = p.synchronizeSeqscans;
    if (p.effectiveIoConcurrency === "") delete query.effectiveIoConcurrency;
    else query.effectiveIoConcurrency = Number(p.effectiveIoConcurrency);
  }
  s.machine.os = p.os as (typeof OS_NAMES)[number];
  s.machine.osOptions = { ...(s.machine.osOptions ?? {}) };
  if (p.readAheadKb === "") delete s.machine.osOptions.readAheadKb;
  else s.machine.osOptions.readAheadKb = Number(p.readAheadKb);
  if (p.device !== "") s.machine.device = p.device;
  return s;
}

/** Choices for the form's select boxes. */
export function choices(): {
  pg: readonly string[];
  os: readonly string[];
  devices: { name: string; title: string }[];
} {
  return {
    pg: PG_VERSIONS,
    os: OS_NAMES,
    devices: builtinProfiles().map((p) => ({ name: p.name, title: p.title })),
  };
}

/** One number the page shows. */
export interface ShownMetric {
  key: keyof RowMetrics | "simulatedS" | "deviceReads" | "events";
  label: string;
  value: number;
  /** As displayed. */
  text: string;
}

const LABELS: [ShownMetric["key"], string, (v: number) => string][] = [
  ["timeS", "query time (s, mean of finished runs)", (v) => v.toFixed(3)],
  ["mibPerS", "scan throughput (MiB/s)", (v) => v.toFixed(1)],
  ["avgReadKb", "average device read (kB)", (v) => v.toFixed(1)],
  ["iops", "device reads per second", (v) => v.toFixed(0)],
  ["meanQueueDepth", "mean device queue depth", (v) => v.toFixed(2)],
  ["syncShare", "device reads waited for synchronously", (v) => `${(v * 100).toFixed(1)} %`],
  ["osHitRatio", "OS page cache hit ratio", (v) => `${(v * 100).toFixed(1)} %`],
  ["sharedHitRatio", "shared buffers hit ratio", (v) => `${(v * 100).toFixed(1)} %`],
  ["meanRunBlocks", "blocks per allocator claim", (v) => v.toFixed(1)],
  ["simulatedS", "simulated time (s)", (v) => v.toFixed(3)],
  ["deviceReads", "device reads", (v) => v.toFixed(0)],
  ["events", "simulator events", (v) => v.toFixed(0)],
];

/** The numbers the page shows for a result, in display order. */
export function shownMetrics(result: SimulationResult, scenario: ScenarioInput): ShownMetric[] {
  const m = rowMetrics(result, scenario);
  const all: Record<ShownMetric["key"], number> = {
    ...m,
    simulatedS: result.simulatedS,
    deviceReads: result.device.reads,
    events: result.events,
  };
  return LABELS.map(([key, label, fmt]) => ({ key, label, value: all[key], text: fmt(all[key]) }));
}

/** The device throughput over simulated time, and the blocks each participant of the first run scanned. */
export function resultCharts(result: SimulationResult): { throughput: string; participants: string } {
  const throughput = lineChartSvg({
    title: "Device throughput over simulated time",
    series: [
      { name: "device MiB/s", points: result.series.deviceMibPerS.map((p) => ({ x: p.tS, y: p.perS })) },
    ],
    xLabel: "simulated time (s)",
    yLabel: "MiB/s",
    width: 640,
    height: 260,
  });
  const run = result.queries[0]?.runs[0];
  const parts = run?.participants ?? [];
  let workerNo = 0;
  const participants = barChartSvg({
    title: `Blocks scanned per participant (${result.queries[0]?.name ?? "query"}, first run)`,
    categories: parts.map((p) => (p.role === "leader" ? "leader" : `worker ${++workerNo}`)),
    series: [
      { name: "blocks", values: parts.map((p) => p.blocks) },
      { name: "claims", values: parts.map((p) => p.claims) },
    ],
    xLabel: "count",
    digits: 0,
  });
  return { throughput, participants };
}
