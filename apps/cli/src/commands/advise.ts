/**
 * `scanlab advise`: settings for one table scan on one machine, each backed
 * by a small simulated sweep against PostgreSQL's defaults.
 *
 * 1. parallel workers (max_parallel_workers_per_gather, or the table's
 *    parallel_workers): workers 0, 1, 2, 4, ... up to cores - 1, against the
 *    default of 2; the smallest count within 5% of the fastest is recommended
 *    (more workers than that cost CPU for nothing).
 * 2. effective_io_concurrency: 0 ... 256 (apps/docs/src/reference/experiments.md#t7-effective-io-concurrency-on-sata-ssds: on nearly sequential
 *    bitmap pages 1 can be much slower than 0), against the version's default
 *    (1 up to PG17, 16 from PG18); the smallest value within 2% of the best.
 * 3. read_ahead_kb (Linux): 128 kB ... 4 MB, against the device's default;
 *    the smallest within 2% of the best (T2: more readahead helped "all round").
 * 4. PG14+'s chunk cap (PARALLEL_SEQSCAN_MAX_CHUNK_SIZE = 8192 blocks): it
 *    only changes anything from 8193 x 2048 blocks (just over 128 GiB); then capped and
 *    uncapped are simulated side by side (T3: the cap matters with
 *    concurrent synchronized scans).
 *
 * To stay fast, a table larger than `--sim-size` (default 1 GB) is simulated
 * scaled down: table, RAM, shared_buffers and the chunk cap all divided by
 * the same factor, so what fits in which cache, and how many chunks a scan
 * has, stay as they are; the output says so and gives the full-size command
 * that shows each finding without scaling.
 */
import { nextPowerOfTwo, PG14_MAX_CHUNK_BLOCKS, PG14_NCHUNKS } from "@scanlab/block-allocator";
import { createDeviceModel } from "@scanlab/device-profiles";
import {
  formatBytes,
  parseBytes,
  type RowMetrics,
  resolveDeviceProfile,
  type ScenarioInput,
} from "@scanlab/simulator";
import type { Ctx } from "../context.js";
import { toJson } from "../context.js";
import { EXIT } from "../errors.js";
import { parseChoice, parseSizeFlag } from "../options.js";
import { gapPct, grouped, seconds } from "../output/format.js";
import { Bars } from "../output/progress.js";
import { renderTable } from "../output/table.js";
import {
  applyScenarioFlags,
  DEFAULT_SCENARIO,
  formatFlags,
  type ParsedFlags,
  parseScenarioFlags,
  type ScenarioDraft,
} from "../scenario-flags.js";
import { checkBudget, estimateScenario, fractionDone, isLong } from "../work-budget.js";
import { parseJobs, runPool } from "../workers/pool.js";
import type { SimulateAnswer, SimulateTask } from "../workers/protocol.js";
import { modelledFigures } from "./profiles.js";
import { parseSeed, validateScenario } from "./scenario-input.js";

/** PostgreSQL's default max_parallel_workers_per_gather (guc_tables.c). */
const DEFAULT_WORKERS = 2;
/** PARALLEL_SEQSCAN_NCHUNKS and PARALLEL_SEQSCAN_MAX_CHUNK_SIZE (apps/docs/src/reference/experiments.md#t12-constants-the-simulator-encodes, PG14+ tableam.c), as block-allocator models them. */
const NCHUNKS = PG14_NCHUNKS;
const MAX_CHUNK_BLOCKS = PG14_MAX_CHUNK_BLOCKS;
/** Tolerances for "as good as the best": simulated differences below these are noise-level choices (scanlab's choice). */
const WORKERS_WITHIN = 0.05;
const SETTING_WITHIN = 0.02;
/** effective_io_concurrency swept for bitmap scans: every power of two up to 256 and 0 (scanlab's choice; T7 needs 0 and 1 side by side). */
const EIC_VALUES = [0, 1, 2, 4, 8, 16, 32, 64, 128, 256];
/** effective_io_concurrency swept for seq scans: a coarser subset of EIC_VALUES (scanlab's choice). */
const EIC_VALUES_SEQSCAN = [0, 1, 16, 64, 256];
/** read_ahead_kb swept: from Linux's default 128 kB (VM_READAHEAD_PAGES) up to 4 MB in powers of two (scanlab's choice). */
const READ_AHEAD_VALUES_KB = [128, 256, 512, 1024, 2048, 4096];

/** Options of `advise`. */
export interface AdviseFlags extends Record<string, unknown> {
  device?: string;
  os?: string;
  tableSize?: string;
  workload?: string;
  pg?: string;
  simSize?: string;
  jobs?: string;
  seed?: string;
  json?: boolean;
  overBudget?: boolean;
}

/**
 * One recommendation. Every row follows one convention, made by {@link timing}: the default's time, the
 * recommended value's time, and gain = time(default) / time(recommended) - 1 (+25%: the default takes 25%
 * longer; 0 when the default is what is recommended).
 */
export interface Recommendation {
  setting: string;
  defaultValue: string;
  recommended: string;
  /** time(default) / time(recommended) - 1: +25% means the default takes 25% longer. */
  gain: number | null;
  /** Simulated time at PostgreSQL's default. */
  defaultTimeS: number | null;
  /** Simulated time at the recommended value (the default's, when the default is recommended). */
  recommendedTimeS: number | null;
  why: string;
  sweep: { value: string; timeS: number | null }[];
  /** The full-size command that shows it. */
  command: string;
}

interface Point {
  label: string;
  flags: ParsedFlags;
}

/** The part of a recommendation that compares the default's time with the recommended one's. */
function timing(
  times: readonly (number | null)[],
  defIdx: number,
  best: number,
): Pick<Recommendation, "gain" | "defaultTimeS" | "recommendedTimeS"> {
  return {
    gain: times[defIdx] && times[best] ? times[defIdx]! / times[best]! - 1 : null,
    defaultTimeS: times[defIdx] ?? null,
    recommendedTimeS: times[best] ?? null,
  };
}

/** Picks the first (smallest) value within `within` of the fastest. */
function pickWithin(times: (number | null)[], within: number): number {
  const finite = times.map((t) => (t === null || !Number.isFinite(t) ? Number.POSITIVE_INFINITY : t));
  const best = Math.min(...finite);
  return finite.findIndex((t) => t <= best * (1 + within));
}

/** Runs `advise`. */
export async function adviseCommand(ctx: Ctx, flags: AdviseFlags): Promise<number> {
  const pg = flags.pg === undefined ? "17" : parseChoice(flags.pg, "pg", ["14", "17", "18"] as const);
  const workload =
    flags.workload === undefined
      ? "seqscan"
      : parseChoice(flags.workload, "workload", ["seqscan", "bitmap"] as const);
  // The 1 GB default and the 64 MB floor (8192 blocks, one full-size PG14 chunk) are our choices to
  // keep advise quick while the scaled table stays thousands of blocks long; neither is a model figure.
  const simBytes =
    flags.simSize === undefined ? 1024 ** 3 : parseSizeFlag(flags.simSize, "sim-size", 64 * 1024 ** 2);
  const jobs = parseJobs(flags.jobs);
  const seed = parseSeed(flags.seed);
  const given: Record<string, string> = {};
  for (const name of [
    "device",
    "os",
    "table-size",
    "cores",
    "ram",
    "shared-buffers",
    "dataset",
    "selectivity",
    "cache",
    "tuples-per-page",
    "clients",
  ]) {
    const v = flags[name.replace(/-([a-z])/g, (_, ch: string) => ch.toUpperCase())];
    if (typeof v === "string") given[name] = v;
  }
  given.pg = pg;
  given.workload = workload;
  const userFlags = parseScenarioFlags(given);
  const full = applyScenarioFlags(DEFAULT_SCENARIO, userFlags, seed) as unknown as ScenarioDraft;
  validateScenario(full as unknown as ScenarioInput, "advise flags");

  // Scale down (see the header).
  const tableBytes = parseBytes(full.tables[0]!.size as string);
  const factor = Math.max(1, tableBytes / simBytes);
  const nblocks = Math.ceil(tableBytes / 8192);
  const base: ScenarioDraft = structuredClone(full);
  if (factor > 1) {
    const ram = parseBytes(full.machine.ram as string) / factor;
    const sb = Math.max(
      128 * 1024,
      parseBytes((full.machine.sharedBuffers as string | undefined) ?? "128MB") / factor,
    );
    base.machine.ram = Math.round(ram);
    base.machine.sharedBuffers = Math.round(Math.min(sb, ram / 2));
    base.tables[0]!.size = Math.round(tableBytes / factor);
  }
  const scaledCap = Math.max(1, Math.round(MAX_CHUNK_BLOCKS / factor));
  const capFlags = (cap: number | null): ParsedFlags =>
    parseScenarioFlags({ allocator: cap === null ? "pg14:none" : `pg14:${cap}` });
  // At full size PostgreSQL's own cap applies; scaled, the cap shrinks with the table.
  const defaultAlloc: ParsedFlags = factor > 1 ? capFlags(scaledCap) : [];
  const cores = full.machine.cores as number;
  const deviceDefaultRa = createDeviceModel(
    resolveDeviceProfile(full.machine.device as string | Record<string, unknown>),
  ).readAheadKbDefault;
  const linux = String(full.machine.os).startsWith("linux");
  const eicDefault = pg === "18" ? 16 : 1;
  const fullCommand = `scanlab sweep ${formatFlags(userFlags)}`;

  const scenarioOf = (p: Point, label: string): ScenarioInput & { name: string } => {
    const s = applyScenarioFlags(base, [...defaultAlloc, ...p.flags], seed) as ScenarioInput & {
      name: string;
    };
    s.name = `advise ${label} ${p.label}`;
    validateScenario(s, `advise ${label} ${p.label}`);
    return s;
  };
  // The whole grid's work, before anything runs (work-budget.ts). The later stages run at the
  // worker count the first one picks; they are estimated at its heaviest, an upper bound.
  const workerCounts =
    workload === "seqscan"
      ? [...new Set([0, 1, 2, 4, 8, 16, 32, 64].filter((w) => w <= cores - 1).concat(cores - 1))].sort(
          (a, b) => a - b,
        )
      : [];
  const stage1 = workerCounts.map((w) =>
    estimateScenario(
      scenarioOf({ label: `workers=${w}`, flags: parseScenarioFlags({ workers: String(w) }) }, ""),
    ),
  );
  let heaviest = stage1[0];
  for (const e of stage1) if (heaviest === undefined || e.steps > heaviest.steps) heaviest = e;
  const laterCells =
    (workload === "bitmap" ? EIC_VALUES : EIC_VALUES_SEQSCAN).length +
    (linux ? new Set([deviceDefaultRa, ...READ_AHEAD_VALUES_KB]).size : 0) +
    (workload === "seqscan" ? 2 : 0);
  const heavy = heaviest ?? estimateScenario(scenarioOf({ label: "", flags: [] }, ""));
  const grid = [...stage1, ...Array<typeof heavy>(laterCells).fill(heavy)];
  checkBudget(`This advice (${grid.length} simulations)`, grid, flags.overBudget === true, "--sim-size");
  const long = isLong(grid);

  const run = async (points: Point[], label: string): Promise<(RowMetrics | null)[]> => {
    const tasks: SimulateTask[] = points.map((p) => ({
      kind: "simulate",
      scenario: scenarioOf(p, label),
      full: false,
    }));
    const estimates = long ? tasks.map((t) => estimateScenario(t.scenario)) : [];
    const bars = Bars.start(ctx, `advise: ${label.padEnd(24)} {bar} {value}/{total}`, { long });
    const scale = long ? 1000 : 1;
    const update = bars.add(tasks.length * scale, {});
    let done = 0;
    const finished = new Set<number>();
    ctx.interrupt.catch();
    try {
      const answers = (await runPool(tasks, {
        jobs,
        flag: ctx.interrupt.flag,
        onDone: (i) => {
          finished.add(i);
          update(++done * scale);
        },
        onProgress:
          long && bars.drawn
            ? (slots) => {
                let value = 0;
                estimates.forEach((e, i) => {
                  value += finished.has(i) ? scale : Math.floor(scale * fractionDone(e, slots[i]!));
                });
                update(value);
              }
            : undefined,
      })) as (SimulateAnswer | undefined)[];
      return answers.map((a) => (a && !a.interrupted ? a.metrics : null));
    } finally {
      bars.stop();
      ctx.interrupt.release();
    }
  };
  const t = (m: RowMetrics | null) => (m === null ? null : m.timeS * factor);
  const recs: Recommendation[] = [];
  /** The scan at PostgreSQL's defaults (first sweep), for the "device-bound" note. */
  let atDefaults: RowMetrics | null = null;

  // 1. workers (seq scans; a bitmap heap scan is run serially here).
  let workers = 0;
  if (workload === "seqscan") {
    const counts = workerCounts;
    const ms = await run(
      counts.map((w) => ({ label: `workers=${w}`, flags: parseScenarioFlags({ workers: String(w) }) })),
      "parallel workers",
    );
    const times = ms.map(t);
    atDefaults = ms[counts.indexOf(Math.min(DEFAULT_WORKERS, cores - 1))] ?? null;
    const best = pickWithin(times, WORKERS_WITHIN);
    workers = counts[best] ?? DEFAULT_WORKERS;
    const defIdx = counts.indexOf(Math.min(DEFAULT_WORKERS, cores - 1));
    recs.push({
      setting: "max_parallel_workers_per_gather (or ALTER TABLE ... SET (parallel_workers = N))",
      defaultValue: String(DEFAULT_WORKERS),
      recommended: String(workers),
      ...timing(times, defIdx, best),
      why: `the fewest workers within ${WORKERS_WITHIN * 100}% of the fastest scan`,
      sweep: counts.map((w, i) => ({ value: String(w), timeS: times[i] ?? null })),
      command: `${fullCommand} --vary workers=${counts.join(",")}`,
    });
  }
  if (ctx.interrupt.stopped) return finish();
  const atWorkers = parseScenarioFlags({ workers: String(workers) });

  // 2. effective_io_concurrency.
  {
    const values = workload === "bitmap" ? EIC_VALUES : EIC_VALUES_SEQSCAN;
    const ms = await run(
      values.map((v) => ({
        label: `eic=${v}`,
        flags: [...atWorkers, ...parseScenarioFlags({ "effective-io-concurrency": String(v) })],
      })),
      "effective_io_concurrency",
    );
    const times = ms.map(t);
    const finite = times.filter((x): x is number => x !== null);
    const flat = finite.length > 0 && Math.max(...finite) <= Math.min(...finite) * (1 + SETTING_WITHIN);
    const best = flat ? values.indexOf(eicDefault) : pickWithin(times, SETTING_WITHIN);
    const defIdx = values.indexOf(eicDefault);
    recs.push({
      setting: "effective_io_concurrency",
      defaultValue: String(eicDefault),
      recommended: flat ? `${eicDefault} (no effect here)` : String(values[best]),
      ...timing(times, defIdx, best),
      why: flat
        ? `every value within ${SETTING_WITHIN * 100}%: this ${workload} does not depend on it`
        : `the smallest value within ${SETTING_WITHIN * 100}% of the best (apps/docs/src/reference/experiments.md#t7-effective-io-concurrency-on-sata-ssds: 1 can be slower than 0 on nearly sequential pages)`,
      sweep: values.map((v, i) => ({ value: String(v), timeS: times[i] ?? null })),
      command: `${fullCommand} --workers ${workers} --vary effective-io-concurrency=${values.join(",")}`,
    });
  }
  if (ctx.interrupt.stopped) return finish();

  // 3. read_ahead_kb.
  // A readahead window larger than the (scaled) machine's memory is refused by the scenario
  // schema: such values are left out, and the row says so.
  const scaledRamBytes = parseBytes(String(base.machine.ram));
  const fits = (kb: number) => kb * 1024 <= scaledRamBytes;
  const raLeftOut = READ_AHEAD_VALUES_KB.filter((v) => !fits(v));
  const raNote =
    raLeftOut.length === 0
      ? ""
      : `; ${raLeftOut.join(", ")} kB not simulated: more than the ${formatBytes(scaledRamBytes)} of RAM of the scaled machine (give a larger --sim-size)`;
  if (linux && fits(deviceDefaultRa)) {
    const values = [...new Set([deviceDefaultRa, ...READ_AHEAD_VALUES_KB.filter(fits)])].sort(
      (a, b) => a - b,
    );
    const ms = await run(
      values.map((v) => ({
        label: `read_ahead_kb=${v}`,
        flags: [...atWorkers, ...parseScenarioFlags({ "read-ahead-kb": String(v) })],
      })),
      "read_ahead_kb",
    );
    const times = ms.map(t);
    const best = pickWithin(times, SETTING_WITHIN);
    const defIdx = values.indexOf(deviceDefaultRa);
    recs.push({
      setting: "read_ahead_kb (blockdev --setra = 2 x this)",
      defaultValue: String(deviceDefaultRa),
      recommended: String(values[best]),
      ...timing(times, defIdx, best),
      why: `the smallest readahead within ${SETTING_WITHIN * 100}% of the best (T2: more readahead helped "all round")${raNote}`,
      sweep: values.map((v, i) => ({ value: String(v), timeS: times[i] ?? null })),
      command: `${fullCommand} --workers ${workers} --vary read-ahead-kb=${values.join(",")}`,
    });
  }
  if (ctx.interrupt.stopped) return finish();

  // 4. chunk cap.
  const capWorkers = Math.max(workers, Math.min(DEFAULT_WORKERS, cores - 1));
  if (workload === "seqscan" && capWorkers > 0) {
    const uncapped = nextPowerOfTwo(Math.max(1, Math.floor(nblocks / NCHUNKS)));
    if (uncapped <= MAX_CHUNK_BLOCKS) {
      recs.push({
        setting: "chunk cap (PARALLEL_SEQSCAN_MAX_CHUNK_SIZE, compiled in)",
        defaultValue: String(MAX_CHUNK_BLOCKS),
        recommended: "does not matter",
        gain: null,
        defaultTimeS: null,
        recommendedTimeS: null,
        why: `chunks of this table are ${uncapped} blocks (nblocks / 2048 rounded up to a power of two), at or below the cap: it applies only from ${grouped((MAX_CHUNK_BLOCKS + 1) * NCHUNKS)} blocks (${formatBytes((MAX_CHUNK_BLOCKS + 1) * NCHUNKS * 8192)})`,
        sweep: [],
        command: `${fullCommand} --workers ${capWorkers} --vary chunk-cap=${MAX_CHUNK_BLOCKS},none`,
      });
    } else {
      const capped = factor > 1 ? scaledCap : MAX_CHUNK_BLOCKS;
      const none = factor > 1 ? Math.max(1, Math.round(uncapped / factor)) : null;
      const ms = await run(
        [
          {
            label: "capped",
            flags: [...parseScenarioFlags({ workers: String(capWorkers) }), ...capFlags(capped)],
          },
          {
            label: "uncapped",
            flags: [...parseScenarioFlags({ workers: String(capWorkers) }), ...capFlags(none)],
          },
        ],
        "chunk cap",
      );
      const times = ms.map(t);
      const [tc, tu] = times;
      // PostgreSQL's default is the cap (index 0); uncapped is recommended only when it is faster by more
      // than the noise tolerance, and then the row reads like every other: default -> recommended.
      const uncappedFaster = tc && tu ? tc / tu - 1 > SETTING_WITHIN : false;
      const differs = tc && tu ? Math.abs(tc / tu - 1) > SETTING_WITHIN : false;
      recs.push({
        setting: "chunk cap (PARALLEL_SEQSCAN_MAX_CHUNK_SIZE, compiled in)",
        defaultValue: String(MAX_CHUNK_BLOCKS),
        recommended: uncappedFaster
          ? "uncapped is faster here"
          : differs
            ? "keep the cap"
            : "makes no difference here",
        ...timing(times, 0, uncappedFaster ? 1 : 0),
        why: `uncapped chunks would be ${uncapped} blocks (T3: the cap matters most with concurrent synchronized scans; try --clients)`,
        sweep: [
          { value: String(MAX_CHUNK_BLOCKS), timeS: tc ?? null },
          { value: `none (${uncapped})`, timeS: tu ?? null },
        ],
        command: `${fullCommand} --workers ${capWorkers} --vary chunk-cap=${MAX_CHUNK_BLOCKS},none`,
      });
    }
  }
  return finish();

  function finish(): number {
    const interrupted = ctx.interrupt.stopped;
    const scale =
      factor > 1
        ? {
            factor,
            simulatedTableBytes: base.tables[0]!.size as number,
            simulatedRamBytes: base.machine.ram as number,
            simulatedSharedBuffersBytes: base.machine.sharedBuffers as number,
            simulatedChunkCapBlocks: scaledCap,
          }
        : null;
    if (ctx.json) {
      ctx.out(toJson({ scenario: full, scale, interrupted, recommendations: recs }));
      return interrupted ? ctx.interrupt.exitCode : EXIT.ok;
    }
    const { c } = ctx;
    ctx.out(
      c.bold(
        `Advice for a ${workload} of ${full.tables[0]!.size} on ${userFlags
          .filter((f) => ["os", "device"].includes(f.flag.name))
          .map((f) => f.flag.format(f.value))
          .join(", ")}, PostgreSQL ${pg}`,
      ),
    );
    if (scale !== null) {
      ctx.out(
        c.yellow(
          `Simulated scaled down ${factor.toFixed(1)}x to stay fast: a ${(scale.simulatedTableBytes / 1024 ** 3).toFixed(2)} GiB table with RAM, shared_buffers and the chunk cap scaled by the same factor; times are scaled back up. Run the listed commands for full-size evidence.`,
        ),
      );
    }
    ctx.out(
      renderTable(
        ctx,
        ["setting", "default", "recommended", "gain vs default", "time default -> recommended"],
        recs.map((r) => [
          r.setting,
          r.defaultValue,
          c.bold(r.recommended),
          r.gain === null ? "-" : gapPct(r.gain),
          r.defaultTimeS === null ? "-" : `${seconds(r.defaultTimeS)} -> ${seconds(r.recommendedTimeS)}`,
        ]),
        ["left", "right", "right", "right", "right"],
      ),
    );
    for (const r of recs) {
      ctx.out(`${c.bold(r.setting)}: ${r.why}.`);
      if (r.sweep.length > 0)
        ctx.out(c.dim(`  simulated: ${r.sweep.map((s) => `${s.value} ${seconds(s.timeS)}`).join(", ")}`));
      ctx.out(c.dim(`  shows it: ${r.command}`));
    }
    if (atDefaults !== null) {
      const seq = modelledFigures(
        resolveDeviceProfile(full.machine.device as string | Record<string, unknown>),
      );
      const mbps = (atDefaults.mbPerS * 1048576) / 1e6;
      ctx.out(
        `At the defaults the scan reads ${mbps.toFixed(0)} MB/s; the device model's sequential rate (128 kB reads, 8 in flight) is ${seq.sequential128kQd8MBps.toFixed(0)} MB/s` +
          (mbps >= 0.9 * seq.sequential128kQd8MBps
            ? ": the scan is device-bound, and no setting here makes it much faster."
            : "."),
      );
    }
    if (interrupted)
      ctx.out(
        c.yellow(
          "Interrupted: only the settings finished before the interruption (Ctrl-C or SIGTERM) are listed.",
        ),
      );
    return interrupted ? ctx.interrupt.exitCode : EXIT.ok;
  }
}
