/**
 * The conformance results the model packages commit as fixtures, turned
 * into the tables and charts of "How faithful is scanlab?". Each fixture is
 * a capture of what the real thing did on a real machine; this file puts
 * the model's answer, computed here through the package's public API, beside
 * it. A package without a committed fixture is listed as such (its
 * conformance test then runs live only).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { pg14ChunkSize } from "@scanlab/block-allocator";
import { barChartSvg } from "@scanlab/charts";

/** packages/block-allocator/fixtures/pg15-parallel-seqscan-<n>.json */
interface AllocatorFixture {
  postgres: string;
  table: string;
  nblocks: number;
  captures: {
    parallelWorkers: number;
    leaderParticipation: boolean;
    workersLaunched: number;
    processes: { role: string; reads: number; runs: [number, number][] }[];
  }[];
}

/** packages/readahead/src/fixtures/linux-*.json */
interface ReadaheadFixture {
  measuredAt: string;
  machine: { kernelRelease: string; readAheadKb: number; fsType: string; largeFolios?: boolean };
  device: { name: string };
  ramps: { startBlock: number; kernel: number[]; model: number[]; identical: boolean }[];
  patterns: {
    name: string;
    kernel: { requests: number; avgKiB: number };
    model: { ios: number; avgKiB: number };
    gap: number;
  }[];
}

function jsonFiles(dir: string): string[] {
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith(".json"))
        .sort()
        .map((f) => join(dir, f))
    : [];
}

/** block-allocator: PostgreSQL 15's reads (strace) against the pg14 allocator's chunk boundaries. */
function allocatorFragment(repoRoot: string): string {
  const files = jsonFiles(join(repoRoot, "packages", "block-allocator", "fixtures"));
  if (files.length === 0) return "No fixture is committed in packages/block-allocator.\n";
  const lines = [
    "| table | capture | processes | every block read once | switches of reading process in the first half | at a multiple of the PG14 chunk |",
    "|---|---|---:|---|---:|---:|",
  ];
  let allOk = true;
  let postgres = "";
  for (const file of files) {
    const f = JSON.parse(readFileSync(file, "utf8")) as AllocatorFixture;
    postgres = f.postgres;
    const chunk = pg14ChunkSize(f.nblocks);
    for (const c of f.captures) {
      const owner = new Int32Array(f.nblocks).fill(-1);
      let once = true;
      c.processes.forEach((p, pi) => {
        for (const [first, blocks] of p.runs) {
          for (let b = first; b < first + blocks; b++) {
            if (b >= f.nblocks || owner[b] !== -1) once = false;
            else owner[b] = pi;
          }
        }
      });
      if (owner.includes(-1)) once = false;
      let switches = 0;
      let aligned = 0;
      for (let b = 1; b < f.nblocks / 2; b++) {
        if (owner[b] !== owner[b - 1]) {
          switches++;
          if (b % chunk === 0) aligned++;
        }
      }
      allOk &&= once && aligned === switches;
      lines.push(
        `| ${f.table} (${f.nblocks.toLocaleString("en-US")} blocks, chunk ${chunk}) | ${c.parallelWorkers} worker${c.parallelWorkers > 1 ? "s" : ""}, leader ${c.leaderParticipation ? "on" : "off"} | ` +
          `${c.processes.length} | ${once ? "yes" : "**no**"} | ${switches} | ${aligned} |`,
      );
    }
  }
  return [
    `PostgreSQL ${postgres}, cold parallel seq scans, every process's \`pread64\` of the table traced with strace ` +
      `(fixtures in \`packages/block-allocator/fixtures/\`). Where the reading process changes, the PG14 allocator ` +
      "says it can only change at a chunk boundary; in the first half of the table (before the ramp-down) those are " +
      `the multiples of \`pg14ChunkSize(nblocks)\` from \`@scanlab/block-allocator\`. ${allOk ? "Every capture agrees." : "**Some captures disagree.**"}`,
    "",
    ...lines,
    "",
    "The package's own conformance test replays the traces further: every claim's size at its counter position, " +
      "ramp-down included, and shows that wrong constants (twice or half the chunk count, another ramp-down, a cap) fail.",
    "",
  ].join("\n");
}

/** readahead: the real kernel's device requests against the Linux model, same access patterns. */
function readaheadFragment(repoRoot: string, figures: string): string {
  const files = jsonFiles(join(repoRoot, "packages", "readahead", "src", "fixtures"));
  if (files.length === 0) return "No fixture is committed in packages/readahead.\n";
  const out: string[] = [];
  for (const file of files) {
    const f = JSON.parse(readFileSync(file, "utf8")) as ReadaheadFixture;
    const name = relative(join(repoRoot, "packages", "readahead", "src", "fixtures"), file).replace(
      /\.json$/,
      "",
    );
    out.push(
      `**Linux ${f.machine.kernelRelease}**, ${f.machine.fsType} on \`${f.device.name}\`, read_ahead_kb ${f.machine.readAheadKb}` +
        `${f.machine.largeFolios ? ", large folios" : ""}, measured ${f.measuredAt.slice(0, 10)} (\`packages/readahead/src/fixtures/${name}.json\`).`,
      "",
      "Readahead window ramps (pages per readahead, block by block from a cold start):",
      "",
      "| start block | kernel | model | identical |",
      "|---:|---|---|---|",
    );
    for (const r of f.ramps) {
      out.push(
        `| ${r.startBlock} | ${r.kernel.join(" ")} | ${r.model.join(" ")} | ${r.identical ? "yes" : "**no**"} |`,
      );
    }
    out.push(
      "",
      "Access patterns of parallel scans (the processes' block order as PostgreSQL's allocators produce it):",
      "",
      "| pattern | kernel requests | model I/Os | kernel avg KiB | model avg KiB | gap |",
      "|---|---:|---:|---:|---:|---:|",
    );
    for (const p of f.patterns) {
      out.push(
        `| ${p.name} | ${p.kernel.requests} | ${p.model.ios} | ${p.kernel.avgKiB.toFixed(0)} | ${p.model.avgKiB.toFixed(0)} | ${(p.gap * 100).toFixed(1)} % |`,
      );
    }
    const svg = `conformance-readahead-${name}.svg`;
    writeFileSync(
      join(figures, svg),
      barChartSvg({
        title: `Average device request, real kernel vs model (Linux ${f.machine.kernelRelease})`,
        categories: f.patterns.map((p) => p.name),
        series: [
          { name: "kernel", values: f.patterns.map((p) => p.kernel.avgKiB), color: "#9e9e9e" },
          { name: "model", values: f.patterns.map((p) => p.model.avgKiB), color: "#1f77b4" },
        ],
        xLabel: "KiB per device request",
        digits: 0,
      }),
    );
    out.push("", `![kernel vs model](/figures/${svg})`, "");
  }
  return `${out.join("\n")}\n`;
}

/** syncscan: a fixture if the package commits one; otherwise say where the live test is. */
function syncscanFragment(repoRoot: string): string {
  const dirs = ["fixtures", join("src", "fixtures")].map((d) => join(repoRoot, "packages", "syncscan", d));
  const files = dirs.flatMap(jsonFiles);
  if (files.length === 0) {
    return (
      "No fixture is committed in `packages/syncscan`: its conformance test " +
      "(`packages/syncscan/src/conformance.live.test.ts`) runs against a live PostgreSQL 15 only (start blocks " +
      "after a LIMIT, after a wrap, after a full scan, with the GUC off, for a small table and with a concurrent " +
      "cursor), so this page cannot show its results. CI runs it with `SCANLAB_REQUIRE_LIVE=1`.\n"
    );
  }
  const out = ["| fixture | cases | agreeing |", "|---|---:|---:|"];
  for (const file of files) {
    const f = JSON.parse(readFileSync(file, "utf8")) as { cases?: { agrees?: boolean; matches?: boolean }[] };
    const cases = f.cases ?? [];
    const agree = cases.filter((c) => c.agrees === true || c.matches === true).length;
    out.push(`| \`${relative(repoRoot, file)}\` | ${cases.length} | ${agree} |`);
  }
  return `${out.join("\n")}\n`;
}

/** Every conformance fragment, by name. */
export function conformanceFragments(repoRoot: string, figures: string): Record<string, string> {
  return {
    "conformance-block-allocator": allocatorFragment(repoRoot),
    "conformance-readahead": readaheadFragment(repoRoot, figures),
    "conformance-syncscan": syncscanFragment(repoRoot),
  };
}
