/**
 * The conformance report as one document: the matrix (every committed
 * fixture replayed through the model the simulator's mapping names), what
 * each row observes on the server, the known mismatches with their believed
 * cause, and the mapping from every PostgreSQL version the simulator accepts
 * to a model per mechanism. `npm run conformance -- --json` prints it; the
 * docs build turns it into the "How faithful is scanlab?" page.
 */
import { describePgModel, PG_VERSIONS, type PgModel, pgModel } from "@scanlab/simulator";
import { VERSIONS } from "./fixtures.js";
import { KNOWN_MISMATCHES, type KnownMismatch } from "./known-mismatches.js";
import { conformanceMatrix, type MatrixRow } from "./matrix.js";
import { ROWS } from "./rows.js";

/** A matrix row with what it observes and which mechanism of the mapping it backs. */
export interface ReportRow extends MatrixRow {
  /** The simulator's mechanism (column of the mapping) the row holds against the server. */
  mechanism: string;
  /** What the row observes on the server. */
  observes: string;
}

/** One version of the mapping. */
export interface ReportMapping extends PgModel {
  /** The mapping in one line, as `scanlab simulate` prints it. */
  line: string;
  /** Whether a real server of that version backs the mapping here. */
  server: "tested" | "none";
}

/** The whole report. */
export interface ConformanceReport {
  /** The majors with a real server (the matrix's columns). */
  versions: number[];
  /** The matrix. */
  rows: ReportRow[];
  /** Cases where server and model disagree and the model is not fixed yet. */
  knownMismatches: KnownMismatch[];
  /** Every version the simulator accepts, with its model per mechanism. */
  mapping: ReportMapping[];
}

/** Builds the report from the committed fixtures. */
export function conformanceReport(): ConformanceReport {
  const rows = conformanceMatrix().map((r) => {
    const def = ROWS.find((x) => x.name === r.name)!;
    return { ...r, mechanism: def.mechanism, observes: def.observes };
  });
  const tested = new Set<number>(VERSIONS);
  return {
    versions: [...VERSIONS],
    rows,
    knownMismatches: [...KNOWN_MISMATCHES],
    mapping: PG_VERSIONS.map((v) => ({
      ...pgModel(v),
      line: describePgModel(v),
      server: tested.has(Number(v)) ? "tested" : "none",
    })),
  };
}
