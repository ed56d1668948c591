/**
 * Generates everything the guides show that comes from running scanlab, at
 * build time and offline (never pasted images, never numbers typed by hand):
 *
 * - `scanlab reproduce all --json --report DIR` (the built CLI) runs every
 *   reproduction target; its charts are copied to
 *   src/public/figures/reproduce/ and each target becomes a Markdown
 *   fragment src/generated/<T>.md (assumptions, calibration, published vs
 *   simulated rows, ratio checks, statements) that the guides include.
 *   This is the slow part (under a minute for every target), so the JSON and
 *   charts are cached in apps/docs/.cache/reproduce/<hash>/, where the hash
 *   covers the built dist/ of the CLI and of every package it runs. A new
 *   build of any of them runs reproduce again.
 * - a summary of every target for "How faithful is scanlab?", with a chart
 *   of simulated/published per row;
 * - the PostgreSQL conformance matrix (tooling/conformance's report, run
 *   with --json from the committed fixtures) and the version mapping;
 * - the conformance results committed as fixtures by the model packages
 *   (real PostgreSQL 15 traces for block-allocator and syncscan, real Linux
 *   kernel measurements for readahead), compared with the models' answers;
 * - the CLI's help and an `advise` run for "Measure your own disk".
 */
import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { barChartSvg, formatNumber, lineChartSvg } from "@scanlab/charts";
import { type ReproduceJson, TARGETS, type TargetReport } from "@scanlab/experiments";
import type { ScanlabJson } from "scanlab";
import { buildHash, filesUnder } from "./build-hash.js";
import { conformanceFragments } from "./conformance.js";
import { mappingFragment, matrixFragment, runConformanceReport } from "./conformance-matrix.js";

const app = fileURLToPath(new URL("..", import.meta.url));
const repoRoot = join(app, "..", "..");
const generated = join(app, "src", "generated");
const figures = join(app, "src", "public", "figures");
const require = createRequire(import.meta.url);

const cliDir = dirname(require.resolve("scanlab/package.json"));
const cliBin = join(cliDir, "dist", "bin.js");

function cli(args: string[]): string {
  return execFileSync(process.execPath, [cliBin, ...args], {
    encoding: "utf8",
    // 256 MiB of output: far above `reproduce all --json` (a few MB); Node's default 1 MiB is not.
    maxBuffer: 256 << 20,
    // No colours, and a fixed 100-column terminal, so the help text in the guides does not depend on who built them.
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0", COLUMNS: "100" },
  });
}

/** The result of `scanlab reproduce --json` with the version of the scanlab that ran it (from the document's envelope). */
type ReproduceRun = ReproduceJson & { scanlab: string };

/** One target's cached results: its part of the reproduce JSON and its charts. */
interface CachedTarget {
  report: TargetReport & { interrupted: boolean };
  /** Chart files (SVG) of this target, absolute paths. */
  charts: string[];
}

/**
 * The reproduce results of `targets`, each from the cache when the same
 * build already ran it, the others from one fresh `scanlab reproduce` run.
 * SCANLAB_DOCS_REPRODUCE_JSON=<file> uses that saved `scanlab reproduce
 * --json` output instead (for work on the site's text; the CLI's own charts
 * are then missing).
 */
function reproduce(targets: string[]): { data: ReproduceRun; charts: Map<string, string[]>; ran: string[] } {
  const given = process.env.SCANLAB_DOCS_REPRODUCE_JSON;
  if (given) {
    const doc = JSON.parse(readFileSync(given, "utf8")) as ScanlabJson<"reproduce">;
    return { data: { ...doc.result, scanlab: doc.scanlab }, charts: new Map(), ran: [] };
  }
  const cacheRoot = join(app, ".cache", "reproduce");
  const hash = buildHash();
  if (existsSync(cacheRoot)) {
    for (const old of readdirSync(cacheRoot))
      if (old !== hash) rmSync(join(cacheRoot, old), { recursive: true, force: true });
  }
  const base = join(cacheRoot, hash);
  const missing = targets.filter((t) => !existsSync(join(base, t, "report.json")));
  let header: Omit<ReproduceRun, "targets" | "summary"> | undefined;
  if (missing.length > 0) {
    const tmp = join(base, `run-${process.pid}`);
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    const start = Date.now();
    const doc = JSON.parse(
      cli(["reproduce", ...missing, "--json", "--report", join(tmp, "report")]),
    ) as ScanlabJson<"reproduce">;
    const out: ReproduceRun = { ...doc.result, scanlab: doc.scanlab };
    process.stdout.write(
      `docs: reproduce ${missing.join(" ")} took ${((Date.now() - start) / 1000).toFixed(0)} s\n`,
    );
    const reportFiles = existsSync(join(tmp, "report")) ? readdirSync(join(tmp, "report")) : [];
    for (const t of out.targets) {
      const dir = join(base, t.id);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      for (const f of reportFiles.filter((f) => f.startsWith(`${t.id}-`) && f.endsWith(".svg"))) {
        copyFileSync(join(tmp, "report", f), join(dir, f));
      }
      if (!t.interrupted) writeFileSync(join(dir, "report.json"), JSON.stringify(t));
    }
    const { targets: _t, summary: _s, ...rest } = out;
    header = rest;
    writeFileSync(join(base, "header.json"), JSON.stringify(header));
    rmSync(tmp, { recursive: true, force: true });
  }
  header ??= JSON.parse(readFileSync(join(base, "header.json"), "utf8")) as Omit<
    ReproduceRun,
    "targets" | "summary"
  >;
  const cached: CachedTarget[] = targets.map((t) => {
    const dir = join(base, t);
    return {
      report: JSON.parse(readFileSync(join(dir, "report.json"), "utf8")),
      charts: readdirSync(dir)
        .filter((f) => f.endsWith(".svg"))
        .sort()
        .map((f) => join(dir, f)),
    };
  });
  const reports = cached.map((c) => c.report);
  const data: ReproduceRun = {
    ...header,
    targets: reports,
    summary: {
      statements: reports.reduce((a, t) => a + t.statements.length, 0),
      hold: reports.reduce((a, t) => a + t.statements.filter((s) => s.holds).length, 0),
      ratios: reports.reduce((a, t) => a + t.ratios.length, 0),
      withinTolerance: reports.reduce((a, t) => a + t.ratios.filter((r) => r.withinTolerance).length, 0),
    },
  };
  return { data, charts: new Map(cached.map((c) => [c.report.id, c.charts])), ran: missing };
}

function esc(s: string): string {
  return s.replace(/\|/g, "\\|").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

const METRIC: Record<string, { label: string; fmt: (v: number) => string }> = {
  timeS: { label: "time (s)", fmt: (v) => formatNumber(v) },
  mibPerS: { label: "MiB/s", fmt: (v) => formatNumber(v) },
  avgReadKb: { label: "avg read (kB)", fmt: (v) => formatNumber(v) },
};

function pct(v: number): string {
  return `${(v * 100).toFixed(1)} %`;
}

/** The Markdown fragment of one target. */
function targetFragment(t: TargetReport & { interrupted: boolean }, charts: string[]): string {
  const lines: string[] = [];
  lines.push(`*Source: ${esc(t.source)}.*`, "");
  if (t.interrupted)
    lines.push("::: warning Interrupted", "Only the rows finished before the stop.", ":::", "");
  lines.push("::: details Assumptions the scenario makes where the publication is silent");
  for (const a of t.assumptions) lines.push(`- ${esc(a)}`);
  lines.push(":::", "");
  if (t.calibration) {
    const c = t.calibration;
    lines.push(
      `**Calibrated unknown:** ${esc(c.unknown)} = **${formatNumber(c.value)}**, from row \`${c.row}\` ` +
        `(simulated ${c.simulatedS.toFixed(2)} s against ${c.publishedS} s published` +
        `${c.reached ? "" : ", **not reached**"}). Every other row is a prediction.`,
      "",
    );
  } else {
    lines.push("**Calibration:** none; every row runs with the scenario's stated values.", "");
  }
  lines.push(
    "| row | published | simulated | sim / pub | avg read kB | MiB/s | OS cache hits | device queue |",
  );
  lines.push("|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of t.rows) {
    const m = r.metric ?? "timeS";
    const fmt = METRIC[m] ?? METRIC.timeS!;
    const pub = r.published && r.metric ? r.published[r.metric] : undefined;
    lines.push(
      `| ${esc(r.label)} | ${pub === undefined ? "-" : `${fmt.fmt(pub)} ${m === "timeS" ? "s" : fmt.label}`} | ` +
        `${fmt.fmt(r.simulated[m])} ${m === "timeS" ? "s" : fmt.label} | ${r.ratio === null ? "-" : r.ratio.toFixed(2)} | ` +
        `${formatNumber(r.simulated.avgReadKb)} | ${formatNumber(r.simulated.mibPerS)} | ${pct(r.simulated.osHitRatio)} | ` +
        `${r.simulated.meanQueueDepth.toFixed(1)} |`,
    );
  }
  lines.push("");
  for (const c of charts) lines.push(`![${t.id} chart](/figures/reproduce/${c})`, "");
  if (t.ratios.length > 0) {
    lines.push(
      "| ratio | published | simulated | gap | allowed | verdict |",
      "|---|---:|---:|---:|---:|---|",
    );
    for (const r of t.ratios) {
      lines.push(
        `| ${esc(r.label)} | ${r.published.toFixed(2)} | ${r.simulated.toFixed(2)} | ${(r.gap * 100).toFixed(0)} % | ` +
          `±${(r.tolerance * 100).toFixed(0)} % | ${r.withinTolerance ? "within" : "**outside**"} |`,
      );
    }
    lines.push("");
  }
  if (t.statements.length > 0) {
    lines.push("What the publication says must happen, checked on the simulated rows:", "");
    for (const s of t.statements)
      lines.push(`- ${s.holds ? "✅ holds" : "❌ **does not hold**"}: ${esc(s.text)} *(${esc(s.detail)})*`);
    lines.push("");
  }
  for (const n of t.notes) lines.push(`> ${esc(n)}`, "");
  return `${lines.join("\n")}\n`;
}

/** The "every target at a glance" fragment and its chart; `left out` lists targets this build did not run. */
function summaryFragment(data: ReproduceRun, leftOut: string[]): string {
  const lines = [
    "| target | rows with a published figure | within ±25 % | ratio checks within tolerance | statements that hold | calibrated |",
    "|---|---:|---:|---:|---:|---|",
  ];
  const categories: string[] = [];
  const ratios: number[] = [];
  for (const t of data.targets) {
    const compared = t.rows.filter((r) => r.ratio !== null);
    // Within ±25 % of the published figure: the column header below (the site's summary margin, not a target's tolerance).
    const close = compared.filter((r) => Math.abs(r.ratio! - 1) <= 0.25);
    lines.push(
      `| [${t.id}](#${t.id.toLowerCase()}) ${esc(t.title)} | ${compared.length} | ${close.length} | ` +
        `${t.ratios.filter((r) => r.withinTolerance).length} / ${t.ratios.length} | ` +
        `${t.statements.filter((s) => s.holds).length} / ${t.statements.length} | ${t.calibration ? "1 unknown" : "nothing"} |`,
    );
    for (const r of compared) {
      const label = `${t.id} ${r.label}`;
      // 52 characters: what fits the 340 px label column of barChartSvg (about 6.2 px per character).
      categories.push(label.length > 52 ? `${label.slice(0, 51)}…` : label);
      ratios.push(r.ratio!);
    }
  }
  for (const id of leftOut)
    lines.push(`| [${id}](#${id.toLowerCase()}) not generated in this build | - | - | - | - | - |`);
  const s = data.summary;
  lines.push(
    "",
    `In all: ${s.hold} of ${s.statements} statements hold and ${s.withinTolerance} of ${s.ratios} ratio checks are within their tolerance ` +
      `(scanlab ${data.scanlab}, ${data.calibration ? "with" : "without"} calibration${data.seed === null ? "" : `, seed ${data.seed}`}).`,
    "",
  );
  writeFileSync(
    join(figures, "faithful-ratios.svg"),
    barChartSvg({
      title: "Simulated / published, every row with a published figure (1 = exact)",
      categories,
      series: [{ name: "simulated / published", values: ratios }],
      xLabel: "ratio on the row's metric",
      digits: 2,
      width: 760, // wider than the 640 default: the long row labels take 340 px of it
    }),
  );
  lines.push("![simulated / published for every row](/figures/faithful-ratios.svg)", "");
  return `${lines.join("\n")}\n`;
}

/** T7's eic sweeps as line charts (eic on a log axis), published beside simulated. */
function t7Sweeps(t: TargetReport): string[] {
  const out: string[] = [];
  for (const [prefix, name] of [
    ["ssd-eic", "Intel 320 SSD"],
    ["raid-eic", "6 x S3600 RAID0"],
  ] as const) {
    const rows = t.rows.filter((r) => r.id.startsWith(prefix));
    if (rows.length === 0) continue;
    const eic = (id: string) => Number(id.slice(prefix.length));
    const pub = rows.filter((r) => r.published?.timeS !== undefined);
    const file = `t7-${prefix.replace("-eic", "")}-sweep.svg`;
    writeFileSync(
      join(figures, file),
      lineChartSvg({
        title: `T7: bitmap heap scan time vs effective_io_concurrency, ${name}`,
        series: [
          {
            name: "published",
            points: pub.map((r) => ({ x: eic(r.id), y: r.published!.timeS! })),
            color: "#9e9e9e",
          },
          {
            name: "simulated",
            points: rows.map((r) => ({ x: eic(r.id), y: r.simulated.timeS })),
            color: "#1f77b4",
          },
        ],
        xLabel: "effective_io_concurrency (log2 axis; 0 = no prefetch)",
        yLabel: "seconds",
        xLog2: true,
      }),
    );
    out.push(file);
  }
  return out;
}

function writeFragment(name: string, text: string): void {
  writeFileSync(join(generated, `${name}.md`), text);
}

function main(): void {
  rmSync(generated, { recursive: true, force: true });
  rmSync(figures, { recursive: true, force: true });
  mkdirSync(generated, { recursive: true });
  mkdirSync(join(figures, "reproduce"), { recursive: true });

  // Every target, or those SCANLAB_DOCS_TARGETS lists (T1,T2,...; "all" as unset). Targets left out
  // get a fragment that says so instead of their results.
  const allTargets = TARGETS.map((t) => t.id);
  const chosen = (process.env.SCANLAB_DOCS_TARGETS ?? "").split(",").map((t) => t.trim().toUpperCase());
  const targets =
    chosen[0] === "" || chosen.includes("ALL") ? allTargets : allTargets.filter((t) => chosen.includes(t));
  const { data, charts, ran } = reproduce(targets);
  process.stdout.write(
    `docs: reproduce results for ${targets.join(" ")} (${process.env.SCANLAB_DOCS_REPRODUCE_JSON ? `from ${process.env.SCANLAB_DOCS_REPRODUCE_JSON}` : ran.length > 0 ? `ran ${ran.join(" ")}` : "all from the cache"})\n`,
  );
  for (const t of data.targets) {
    const files = charts.get(t.id) ?? [];
    for (const c of files) copyFileSync(c, join(figures, "reproduce", basename(c)));
    writeFragment(
      t.id,
      targetFragment(
        t,
        files.map((f) => basename(f)),
      ),
    );
    if (t.id === "T7") {
      writeFragment(
        "T7-sweeps",
        t7Sweeps(t)
          .map((f) => `![${f}](/figures/${f})\n`)
          .join("\n"),
      );
    }
  }
  for (const id of allTargets.filter((t) => !data.targets.some((x) => x.id === t))) {
    const note =
      "::: warning Not generated in this build\n" +
      `This build of the site left ${id} out (SCANLAB_DOCS_TARGETS=${process.env.SCANLAB_DOCS_TARGETS}). ` +
      `Run \`scanlab reproduce ${id}\` for its results.\n:::\n`;
    writeFragment(id, note);
    if (id === "T7") writeFragment("T7-sweeps", "");
  }
  writeFragment(
    "faithful-summary",
    summaryFragment(
      data,
      allTargets.filter((t) => !data.targets.some((x) => x.id === t)),
    ),
  );

  for (const [name, text] of Object.entries(conformanceFragments(repoRoot, figures)))
    writeFragment(name, text);
  const matrix = runConformanceReport(repoRoot);
  writeFragment("conformance-matrix", matrixFragment(matrix));
  writeFragment("version-mapping", mappingFragment(matrix));

  const help = (cmd: string) =>
    `\`\`\`text\n$ scanlab ${cmd} --help\n${cli([cmd, "--help"]).trimEnd()}\n\`\`\`\n`;
  writeFragment("cli-scan-help", help("scan"));
  writeFragment("cli-calibrate-help", help("calibrate"));
  writeFragment("cli-advise-help", help("advise"));
  writeFragment("cli-worker-help", help("worker"));
  writeFragment("cli-lab-help", help("lab"));
  const adviseArgs = [
    "advise",
    "--device",
    "raid0-6x-intel-s3600-100gb",
    "--os",
    "linux-5.4",
    "--table-size",
    "38GB",
    "--workload",
    "bitmap",
    "--dataset",
    "sequential",
    "--pg",
    "18",
    "--seed",
    "1",
  ];
  writeFragment(
    "cli-advise-example",
    `\`\`\`text\n$ scanlab ${adviseArgs.join(" ")}\n${cli(adviseArgs).trimEnd()}\n\`\`\`\n`,
  );
  writeFragment("cli-profiles", `\`\`\`text\n$ scanlab profiles\n${cli(["profiles"]).trimEnd()}\n\`\`\`\n`);
}

/** Every fragment a page includes must have been generated: a missing one would vanish silently. */
function checkIncludes(): void {
  const src = join(app, "src");
  const missing: string[] = [];
  for (const page of filesUnder(src).filter((f) => f.endsWith(".md") && !f.startsWith(generated))) {
    for (const m of readFileSync(page, "utf8").matchAll(/<!--@include:\s*([^\s]+?)\s*-->/g)) {
      const target = join(dirname(page), m[1]!);
      if (!existsSync(target)) missing.push(`${relative(src, page)} includes ${m[1]}`);
    }
  }
  if (missing.length > 0) throw new Error(`generated fragments missing:\n${missing.join("\n")}`);
}

main();
checkIncludes();
