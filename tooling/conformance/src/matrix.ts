/**
 * The conformance matrix: every committed fixture replayed through the model,
 * as matched / total cases per mechanism (row) and version (column). Runs
 * without PostgreSQL.
 */
import { type Major, readFixture, VERSIONS } from "./fixtures.js";
import { ROWS } from "./rows.js";

/** One cell: a mechanism on a version. */
export interface MatrixCell {
  /** Cases where the model agrees. */
  matched: number;
  /** Cases in the fixture (0 when none was captured). */
  total: number;
  /** The first disagreement per failing case. */
  problems: { name: string; problem: string }[];
  /** The server the fixture came from. */
  postgres: string | null;
  /** The row's wrong models (mutations) that at least one captured case of this cell rejects. */
  rejects: string[];
}

/** A row of the matrix; `cells` has a key for each version where the mechanism exists. */
export interface MatrixRow {
  /** Fixture directory. */
  name: string;
  /** Title. */
  title: string;
  /** Per major. */
  cells: Partial<Record<Major, MatrixCell>>;
}

/** Replays every fixture. */
export function conformanceMatrix(): MatrixRow[] {
  return ROWS.map((row) => {
    const cells: Partial<Record<Major, MatrixCell>> = {};
    for (const major of row.versions) {
      const fixture = readFixture<{ name: string }>(row.name, major);
      const cases = fixture?.cases ?? [];
      const cell: MatrixCell = {
        matched: 0,
        total: 0,
        problems: [],
        postgres: fixture?.postgres ?? null,
        rejects: row.mutations
          .filter((m) => cases.some((c) => row.replay(c, major, m.mutation) !== null))
          .map((m) => m.name),
      };
      for (const c of cases) {
        cell.total++;
        const problem = row.replay(c, major);
        if (problem === null) cell.matched++;
        else cell.problems.push({ name: c.name, problem });
      }
      cells[major] = cell;
    }
    return { name: row.name, title: row.title, cells };
  });
}

/**
 * Each row's wrong models and the versions whose captured cases reject them:
 * the proof that a cell can fail.
 */
export function formatRejections(rows: readonly MatrixRow[]): string {
  const out: string[] = [];
  for (const r of rows) {
    out.push(`${r.title}:`);
    for (const m of ROWS.find((x) => x.name === r.name)?.mutations ?? []) {
      const where = VERSIONS.filter((v) => r.cells[v]?.rejects.includes(m.name)).map((v) => `PG${v}`);
      out.push(`  - ${m.name}: ${where.length > 0 ? `rejected on ${where.join(" ")}` : "rejected nowhere"}`);
    }
  }
  return out.join("\n");
}

/** The matrix as a text table: versions as columns, mechanisms as rows, matched/total per cell. */
export function formatMatrix(rows: readonly MatrixRow[]): string {
  const head = ["mechanism", ...VERSIONS.map((v) => `PG${v}`)];
  const body = rows.map((r) => [
    r.title,
    ...VERSIONS.map((v) => {
      const c = r.cells[v];
      if (c === undefined) return "-";
      if (c.total === 0) return "no fixture";
      return `${c.matched}/${c.total}`;
    }),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n");
}
