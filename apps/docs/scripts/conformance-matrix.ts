/**
 * The PostgreSQL conformance matrix of "How faithful is scanlab?", from the
 * conformance tooling's own report.
 *
 * The problem: the page must show what the real servers did against what the
 * models predict, for every version and mechanism, without a server at build
 * time and without a second implementation of the replay that could drift
 * from the tested one.
 *
 * The insight: `tooling/conformance`'s report (`src/report.ts --json`)
 * already replays every committed fixture through the model the simulator's
 * version mapping names, offline. The build runs that report and only turns
 * its JSON into Markdown: the matrix (versions as columns, mechanisms as
 * rows, matched/total per cell), what each row observes and which reference
 * page explains it, the wrong models each version's cases reject, the known
 * mismatches as the report records them, and the
 * mapping of every accepted version to a model per mechanism.
 *
 * Design choices: the report runs as a child process through tsx (as
 * `npm run conformance -- --json` would), so the docs build depends on the
 * report's output, not on the tooling package's internals; links are
 * relative to guides/, where the fragments are included.
 */
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);

/** A cell of the report's matrix. */
interface Cell {
  matched: number;
  total: number;
  problems: { name: string; problem: string }[];
  postgres: string | null;
  rejects: string[];
}

/** The report's JSON (`tooling/conformance/src/conformance-report.ts`). */
export interface ConformanceReportJson {
  versions: number[];
  rows: {
    name: string;
    title: string;
    mechanism: string;
    observes: string;
    cells: Record<string, Cell | undefined>;
  }[];
  knownMismatches: { row: string; major: number; caseName: string; why: string }[];
  mapping: {
    requested: string;
    allocator: string;
    syncscan: string;
    bitmapPrefetch: string;
    readStreams: string;
    ring: string;
    line: string;
    server: "tested" | "none";
  }[];
}

/** Runs the conformance report (`--json`) from the committed fixtures. */
export function runConformanceReport(repoRoot: string): ConformanceReportJson {
  const tsx = join(dirname(require.resolve("tsx/package.json")), "dist", "cli.mjs");
  const report = join(repoRoot, "tooling", "conformance", "src", "report.ts");
  const out = execFileSync(process.execPath, [tsx, report, "--json"], {
    cwd: join(repoRoot, "tooling", "conformance"),
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });
  return JSON.parse(out) as ConformanceReportJson;
}

/** The reference page that explains each row's mechanism (relative to guides/). */
const REFERENCE: Record<string, string> = {
  "parallel-claims":
    "[parallel block allocation](../reference/parallel-block-allocation.md#chunked-allocation)",
  syncscan: "[synchronized scans](../reference/synchronized-scans.md#read-streams-report-ahead)",
  "bitmap-prefetch":
    "[bitmap heap scan prefetch](../reference/bitmap-heap-scan-prefetch.md#pg13-to-17-prefetch)",
  "read-streams": "[read streams](../reference/read-streams.md#pg18-changes)",
  "io-method": "[io_method and I/O workers](../reference/read-streams.md#io-method-and-i-o-workers)",
  "bulkread-ring": "[buffer ring](../reference/buffer-ring.md#ring-size-by-version)",
};

const cellText = (c: Cell | undefined): string =>
  c === undefined ? "–" : c.total === 0 ? "no fixture" : `${c.matched}/${c.total}`;

/** The matrix, the rows' observations, the known mismatches and the io_uring note. */
export function matrixFragment(r: ConformanceReportJson): string {
  const head = `| mechanism | ${r.versions.map((v) => `PG${v}`).join(" | ")} |`;
  const rule = `|---|${r.versions.map(() => "---:").join("|")}|`;
  const body = r.rows.map(
    (row) => `| ${row.title} | ${r.versions.map((v) => cellText(row.cells[String(v)])).join(" | ")} |`,
  );
  const builds = new Map<number, string>();
  for (const row of r.rows)
    for (const v of r.versions) {
      const p = row.cells[String(v)]?.postgres;
      if (p && !builds.has(v)) builds.set(v, p);
    }
  const observed = [
    "| row | mechanism of the version mapping | what the server is observed with | explained in |",
    "|---|---|---|---|",
    ...r.rows.map(
      (row) => `| ${row.title} | \`${row.mechanism}\` | ${row.observes} | ${REFERENCE[row.name] ?? "–"} |`,
    ),
  ];
  const mismatches =
    r.knownMismatches.length === 0
      ? ["No known mismatch: every captured case agrees."]
      : r.knownMismatches.map((k) => {
          const row = r.rows.find((x) => x.name === k.row);
          return `- **${row?.title ?? k.row}, PG${k.major}, case "${k.caseName}"**: ${k.why}.`;
        });
  const rejections = r.rows.flatMap((row) => {
    const names = [...new Set(Object.values(row.cells).flatMap((c) => c?.rejects ?? []))];
    return names.map((name) => {
      const where = r.versions.filter((v) => row.cells[String(v)]?.rejects.includes(name));
      return `| ${row.title} | ${name} | ${where.map((v) => `PG${v}`).join(", ")} |`;
    });
  });
  const problems = r.rows.flatMap((row) =>
    Object.entries(row.cells).flatMap(([v, c]) =>
      (c?.problems ?? []).map((p) => `- ${row.title}, PG${v}, "${p.name}": ${p.problem}`),
    ),
  );
  return [
    head,
    rule,
    ...body,
    "",
    `Servers: ${[...builds].map(([v, p]) => `PG${v} = ${p}`).join(", ")}. A dash: the mechanism does not exist in that version.`,
    "",
    "### What each row observes",
    "",
    ...observed,
    "",
    "### Every cell can fail",
    "",
    "Each row carries wrong models: the same replay with one constant or rule changed. A wrong model passes a cell " +
      "only if no captured case of that version tells it from the right one; every cell rejects at least one " +
      "(the offline test fails otherwise).",
    "",
    "| row | wrong model | rejected by the cases of |",
    "|---|---|---|",
    ...rejections,
    "",
    "### Known mismatches",
    "",
    ...mismatches,
    ...(problems.length > 0
      ? ["", "Every disagreement in the matrix, first difference per case:", "", ...problems]
      : []),
    "",
    "### io_uring",
    "",
    "PostgreSQL 18's `io_method=io_uring` is modelled (asynchronous reads started at `StartReadBuffers`, as with `worker`), " +
      "but it is not held against a server: the tested PostgreSQL 18 build has no liburing, so the server cannot start " +
      "with it. The io_method row covers `sync` and `worker` only.",
    "",
  ].join("\n");
}

/** The mapping of every accepted PostgreSQL version to a model per mechanism. */
export function mappingFragment(r: ConformanceReportJson): string {
  const lines = [
    "| `--pg` | allocator | syncscan | bitmap prefetch | read streams/io | ring | real server |",
    "|---|---|---|---|---|---|---|",
    ...r.mapping.map(
      (m) =>
        `| ${m.requested} | ${m.allocator} | ${m.syncscan} | ${m.bitmapPrefetch} | ${m.readStreams} | ${m.ring} | ${m.server === "tested" ? "tested (matrix above)" : "no real server tested"} |`,
    ),
    "",
    "A model is named after the first version scanlab models that has it (`pg14` runs for 14 to 19; `pg96` for syncscan is the 8.3 code, unchanged to 16). What `scanlab simulate` prints for each:",
    "",
    ...r.mapping.map((m) => `- ${m.line}`),
    "",
  ];
  return lines.join("\n");
}
