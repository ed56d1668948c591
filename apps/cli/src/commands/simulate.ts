/**
 * `scanlab simulate [scenario.json] [flags]`: one scenario through the
 * simulator, from a file, from flags named after PostgreSQL settings, or a
 * file with flags over it. Runs in a worker thread so Ctrl-C is heard. Its
 * work is estimated first (work-budget.ts): over the budget it is refused
 * unless `--over-budget`; a long run reports its progress on stderr.
 */
import { THROUGHPUT_UNIT } from "@scanlab/core";
import {
  describeOsModel,
  describePgModel,
  formatBytes,
  type OsModel,
  osModel,
  type PgModel,
  pgModel,
  type ResolvedScenario,
  type ScenarioInput,
  type SimulationResult,
} from "@scanlab/simulator";
import type { Ctx } from "../context.js";
import { toJson } from "../context.js";
import { EXIT } from "../errors.js";
import { printJson } from "../json-output.js";
import { fixed, grouped, pct, seconds } from "../output/format.js";
import { Bars } from "../output/progress.js";
import { renderTable } from "../output/table.js";
import { wrap } from "../output/wrap.js";
import { checkBudget, estimateScenario, fractionDone, isLong, progressDetail } from "../work-budget.js";
import { runPool, SimPool } from "../workers/pool.js";
import type { SimulateAnswer } from "../workers/protocol.js";
import { buildScenario, scenarioSchemaUrl, validateScenario } from "./scenario-input.js";

/**
 * Which models run for the scenario's PostgreSQL versions (one entry per
 * distinct version, in query order) and its OS: the `pgModel` and `osModel`
 * fields of `simulate --json`. Every field is a string, so the JSON's numbers
 * are those of the simulation alone.
 */
export function scenarioModels(r: ResolvedScenario): {
  pgModel: (PgModel & { line: string })[];
  osModel: OsModel & { line: string };
} {
  const versions = [...new Set(r.queries.map((q) => q.spec.pg))];
  const os = osModel(r.scenario.machine.os)!;
  return {
    pgModel: versions.map((v) => ({ ...pgModel(v), line: describePgModel(v) })),
    osModel: { ...os, line: describeOsModel(os.requested) },
  };
}

/** The model mapping lines of {@link describeScenario}: one per distinct PostgreSQL version, one for the OS. */
function modelLines(r: ResolvedScenario): string[] {
  const m = scenarioModels(r);
  return [...m.pgModel.map((p) => `model ${p.line}`), `model ${m.osModel.line}`];
}

/** Describes a resolved scenario in a few lines. */
export function describeScenario(r: ResolvedScenario): string[] {
  const m = r.scenario.machine;
  const device =
    typeof m.device === "string"
      ? m.device
      : String((m.device as { name?: unknown }).name ?? "inline profile");
  const ra = m.osOptions.readAheadKb === undefined ? "" : `, read_ahead_kb ${m.osOptions.readAheadKb}`;
  const lines = [
    `machine: ${m.cores} cores, ${formatBytes(r.ramBytes)} RAM, shared_buffers ${formatBytes(r.sharedBuffersBytes)}, ${m.os}${ra}, ${device}`,
  ];
  for (const t of r.tables) {
    lines.push(
      `table ${t.name}: ${formatBytes(t.nblocks * 8192)} (${grouped(t.nblocks)} blocks), ${t.tuplesPerPage} tuples/page, ${t.cached === "os" ? "warm (OS cache)" : "cold"}`,
    );
  }
  for (const line of modelLines(r)) lines.push(line);
  for (const q of r.queries) {
    const s = q.spec;
    const alloc = s.allocator ? ` allocator ${s.allocator.kind}` : "";
    const bitmap =
      s.kind === "bitmap" && s.bitmap
        ? ` (${"pgbench" in s.bitmap ? "pgbench_accounts, scale 3000" : `${s.bitmap.dataset}, ${(s.bitmap.selectivity * 100).toFixed(1)}%`})`
        : "";
    if (s.kind === "file" && s.file) {
      const d = s.file.adviseDistance ?? 0;
      lines.push(
        `query ${s.name}: plain-file reader, ${s.file.pattern}, one 8 kB pread per block, ${d > 0 ? `posix_fadvise(WILLNEED) ${d} block(s) ahead` : "no advice"}, on ${s.table}, ${s.clients} client(s) x ${q.durationUs === null ? `${s.runs} run(s)` : `${q.durationUs / 1e6} s`}`,
      );
      continue;
    }
    const eic =
      s.effectiveIoConcurrency === undefined ? "" : `, effective_io_concurrency ${s.effectiveIoConcurrency}`;
    lines.push(
      `query ${s.name}: PG ${s.pg}, ${s.kind}${bitmap} on ${s.table}, ${s.workers} workers${s.workers > 0 && s.parallelLeaderParticipation ? " + leader" : ""},${alloc} synchronize_seqscans ${s.synchronizeSeqscans ? "on" : "off"}${eic}, ${s.clients} client(s) x ${q.durationUs === null ? `${s.runs} run(s)` : `${q.durationUs / 1e6} s`}`,
    );
  }
  return lines;
}

/** Prints a simulation result. */
export function printSimulation(ctx: Ctx, r: SimulationResult): void {
  ctx.out(
    renderTable(
      ctx,
      ["query", "runs finished", "mean time", THROUGHPUT_UNIT, "blocks per claim"],
      r.queries.map((q) => {
        const fin = q.runs.filter((x) => x.finished);
        const claims = fin.reduce((a, x) => a + x.claims, 0);
        const blocks = fin.reduce((a, x) => a + x.blocks, 0);
        return [
          q.name,
          `${fin.length} / ${q.runs.length}`,
          seconds(q.meanDurationS),
          fixed(q.mibPerS, 0),
          claims > 0 ? fixed(blocks / claims, 1) : "-",
        ];
      }),
    ),
  );
  const d = r.device;
  ctx.out(
    renderTable(
      ctx,
      [
        "device reads",
        "avg read kB",
        "IOPS",
        "utilisation",
        "queue depth",
        "waited-for reads",
        "OS cache hits",
        "shared_buffers hits",
      ],
      [
        [
          grouped(d.reads),
          fixed(d.avgReadKb, 1),
          grouped(d.iops),
          pct(d.utilisation),
          fixed(d.meanQueueDepth, 2),
          pct(d.syncShare),
          pct(r.os.hitRatio),
          pct(r.sharedBuffers.hitRatio),
        ],
      ],
      Array(8).fill("right"),
    ),
  );
  ctx.out(
    ctx.c.dim(
      wrap(
        ctx,
        `allocator: ${grouped(r.allocator.ops)} operations, ${seconds(r.allocator.waitS)} waiting; simulated ${seconds(r.simulatedS)} in ${grouped(r.events)} events; seed ${r.seed}` +
          (r.os.confidence === "low" ? "; the OS readahead model is low-confidence for this OS" : ""),
        2,
      ),
    ),
  );
  const w = r.warp;
  if (w.cuts > 0)
    ctx.out(
      ctx.c.dim(
        wrap(
          ctx,
          `warp: ${seconds(w.skippedS)} of steady scanning (${formatBytes(w.skippedBlocks * 8192)} over all runs) credited at the rate measured before it, in ${w.cuts} cut(s), ${w.restores} put back; --exact simulates every block`,
          2,
        ),
      ),
    );
}

/** Options of `simulate`. */
export interface SimulateFlags extends Record<string, unknown> {
  json?: boolean;
  seed?: string;
  printScenario?: boolean;
  exact?: boolean;
  overBudget?: boolean;
}

/** Runs `simulate`. */
export async function simulateCommand(
  ctx: Ctx,
  file: string | undefined,
  flags: SimulateFlags,
): Promise<number> {
  const { scenario } = buildScenario(file, flags);
  if (flags.printScenario) {
    // The file names its JSON Schema first, so an editor completes and checks it.
    const { $schema: _, ...rest } = scenario;
    ctx.out(toJson({ $schema: scenarioSchemaUrl(), ...rest }));
    return EXIT.ok;
  }
  // The simulation's thread starts now and loads the simulator while this one checks and estimates the scenario.
  const pool = new SimPool({ jobs: 1, flag: ctx.interrupt.flag });
  pool.warm();
  try {
    return await checkedSimulation(ctx, scenario, file, flags, pool);
  } finally {
    await pool.close();
  }
}

/** The rest of `simulate` once its thread is starting: check, estimate, run on `pool`, print. */
async function checkedSimulation(
  ctx: Ctx,
  scenario: ReturnType<typeof buildScenario>["scenario"],
  file: string | undefined,
  flags: SimulateFlags,
  pool: SimPool,
): Promise<number> {
  const resolved = validateScenario(scenario, file ?? "flags");
  const exact = flags.exact === true;
  const estimate = estimateScenario(scenario as ScenarioInput, exact);
  checkBudget("This simulation", [estimate], flags.overBudget === true);
  if (!ctx.json) {
    ctx.out(ctx.c.bold(`Scenario: ${resolved.scenario.name}`));
    for (const l of describeScenario(resolved)) ctx.out(wrap(ctx, `  ${l}`, 4));
    ctx.out("");
  }
  const bars = Bars.start(ctx, "simulating {bar} {percentage}% {step}", { long: isLong([estimate]) });
  const tick = bars.add(1000, { step: "" });
  tick(0, { step: "running" });
  ctx.interrupt.catch();
  let answer: SimulateAnswer | undefined;
  try {
    [answer] = (await runPool(
      [{ kind: "simulate", scenario: scenario as ScenarioInput, full: true, exact }],
      {
        jobs: 1,
        flag: ctx.interrupt.flag,
        pool,
        onProgress: bars.drawn
          ? ([slot]) =>
              tick(Math.round(1000 * fractionDone(estimate, slot!)), {
                step: progressDetail(estimate, slot!),
              })
          : undefined,
      },
    )) as (SimulateAnswer | undefined)[];
  } finally {
    bars.stop();
    ctx.interrupt.release();
  }
  if (answer === undefined || answer.result === null) return ctx.interrupt.exitCode;
  if (ctx.json) {
    printJson(ctx, "simulate", {
      scenario: scenario as ScenarioInput,
      ...scenarioModels(resolved),
      interrupted: answer.interrupted,
      simulation: answer.result,
    });
  } else {
    if (answer.interrupted)
      ctx.out(
        ctx.c.yellow(
          "Interrupted: the figures below cover the simulated time before the interruption (Ctrl-C or SIGTERM).",
        ),
      );
    printSimulation(ctx, answer.result);
  }
  return answer.interrupted ? ctx.interrupt.exitCode : EXIT.ok;
}
