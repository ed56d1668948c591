/**
 * Test helpers: a runner that answers from a script instead of simulating,
 * so the advice's choices (which value it picks, which gain it reports) can
 * be tested on chosen times, and small scenarios to advise on.
 */
import type { AllocatorSpec, RowMetrics, ScenarioInput } from "@scanlab/simulator";
import type { AdviceRunner, AdviceStage } from "../src/index.js";

/** What a scripted point is: the settings the advice wrote into its scenario. */
export interface PointSettings {
  stage: AdviceStage["name"];
  label: string;
  workers: number | undefined;
  effectiveIoConcurrency: number | undefined;
  readAheadKb: number | undefined;
  allocator: AllocatorSpec | undefined;
}

/** Metrics with the given time and throughput (MiB/s), everything else zero. */
export function metricsOf(timeS: number, mibPerS = 100): RowMetrics {
  return {
    timeS,
    mibPerS,
    avgReadKb: 0,
    syncShare: 0,
    iops: 0,
    osHitRatio: 0,
    cacheHitRatio: 0,
    sharedHitRatio: 0,
    meanQueueDepth: 0,
    meanRunBlocks: 0,
  };
}

/** The settings a scenario the advice built carries. */
export function settingsOf(s: ScenarioInput, stage: AdviceStage, i: number): PointSettings {
  const q = s.queries[0]!;
  return {
    stage: stage.name,
    label: stage.points[i]!,
    workers: q.workers,
    effectiveIoConcurrency: q.effectiveIoConcurrency,
    readAheadKb: s.machine.osOptions?.readAheadKb,
    allocator: q.allocator,
  };
}

/**
 * A runner that answers `timeOf(point)` seconds for each point (null: as if
 * interrupted) and records every scenario it was given.
 */
export function scriptedRunner(timeOf: (p: PointSettings) => number | null): {
  run: AdviceRunner;
  calls: { stage: AdviceStage; scenarios: ScenarioInput[]; points: PointSettings[] }[];
} {
  const calls: { stage: AdviceStage; scenarios: ScenarioInput[]; points: PointSettings[] }[] = [];
  const run: AdviceRunner = (scenarios, stage) => {
    const points = scenarios.map((s, i) => settingsOf(s, stage, i));
    calls.push({ stage, scenarios: [...scenarios], points });
    return points.map((p) => {
      const t = timeOf(p);
      return t === null ? null : metricsOf(t);
    });
  };
  return { run, calls };
}

/** A seq scan of `size` on a 4-core Linux machine with an SSD, PostgreSQL `pg`. */
export function seqScan(size: string, pg: ScenarioInput["queries"][number]["pg"] = "17"): ScenarioInput {
  return {
    name: "test scan",
    seed: 1,
    machine: {
      cores: 4,
      ram: "16GB",
      sharedBuffers: "128MB",
      os: "linux-6.1",
      device: "intel-ssd-320-120gb",
    },
    tables: [{ name: "t", size, tuplesPerPage: 226 }],
    queries: [{ name: "scan", table: "t", pg, workers: 2 }],
  };
}
