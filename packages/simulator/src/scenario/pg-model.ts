/**
 * Which model the simulator runs for each PostgreSQL version it accepts, per
 * mechanism.
 *
 * The problem: a DBA asks about the version they run (10, 12, 15, 16, 19...),
 * but the simulator models a mechanism once per change of that mechanism, not
 * once per release. Guessing "the nearest version" per scenario would hide
 * which code the figures stand for.
 *
 * The insight: each mechanism changed in a few known commits, so every
 * release runs the model of the last change at or before it. The table below
 * says so per mechanism, from the PostgreSQL history:
 *
 * - allocator (parallel seq scan block allocation, heapam.c/tableam.c):
 *   one block per call under a spinlock from 9.6 (ee7ca559fc) through 10;
 *   an atomic fetch-and-add counter from 11 (3cda10f41b; moved to tableam.c
 *   in 12 by c2fe139c20, same logic); chunked allocation from 14
 *   (56788d2156, tableam.c table_block_parallelscan_nextpage). 19's
 *   0ca3b16973 adds a start block and block limit for parallel TID range
 *   scans only: a full seq scan allocates as 14.
 * - syncscan (syncscan.c, a04a423599 in 8.3; constants unchanged since):
 *   a scan reports the page it moves to up to 16; from 17 seq scans run on
 *   read streams (b5a9b18cd0, b7b0f3f272) and report the block the stream's
 *   look-ahead asks for, ahead of the page being processed.
 * - bitmapPrefetch (nodeBitmapHeapscan.c): the 8.4 prefetcher with the
 *   "spindles" meaning of effective_io_concurrency (b7b8f0b609) up to 11;
 *   12's table AM rewrite ("tableam: bitmap table scan") also prefetches on
 *   the iteration that finds a page exhausted; 13 uses the setting as the
 *   prefetch distance (b09ff53667); 18 replaces the prefetcher with a read
 *   stream (2b73a8cd33).
 * - readStreams (read_stream.c and the I/O beneath it): none up to 16; 17's
 *   read streams (b5a9b18cd0, 210622c60e); 18's heuristics (799959dc7c,
 *   7ea8cd1566, 92fc6856cb), asynchronous I/O with io_method (da7226993f,
 *   f4d0730bbc) and the effective_io_concurrency default 16 (ff79b5b2ab);
 *   19's separate combine and read-ahead distances (6e36930f9a, 8ca147d582,
 *   f63ca33790, cceb1bf45e).
 * - ring (BAS_BULKREAD, freelist.c): 256 kB from 8.3 (d526575f89) through
 *   17; from 18 it grows with io_combine_limit x effective_io_concurrency
 *   (15f0cb26b5).
 *
 * Design choices:
 * - A model is named after the first modelled version that has it ("pg14"
 *   runs for 14-19), so the name says which code it follows.
 * - The engine asks this table, never compares version numbers, so the
 *   mapping printed to the user is the one that ran.
 * - Versions 11 and 13-18 are backed by real servers: tooling/conformance
 *   replays what each server did through the model named here and fails
 *   when a mapping does not match. 9.6, 10 and 12 have no server there; no
 *   PostgreSQL 19 server build is available to test against, so 19 runs the
 *   19 read-stream model (from the development branch's commits above) and
 *   assumes every other mechanism unchanged from 18.
 */
import type { PgVersion } from "./types.js";

/** Parallel seq scan block allocation: 9.6's spinlock, 11's atomic counter, 14's chunks. */
export type AllocatorModel = "pg96" | "pg11" | "pg14";
/** Where a seq scan reports its position to syncscan: the page it moves to (to 16), or the read stream's look-ahead (17+). */
export type SyncscanModel = "pg96" | "pg17";
/** Bitmap heap scan prefetching: 8.4's ramp with the spindle formula, 12's exhausted-iteration prefetch, 13's distance, 18's read stream. */
export type BitmapPrefetchModel = "pg96" | "pg12" | "pg13" | "pg18";
/** Read streams and the I/O beneath them: none, 17, 18 (AIO, io_method), 19. */
export type ReadStreamModel = "none" | "pg17" | "pg18" | "pg19";
/** BAS_BULKREAD ring: 256 kB (to 17), or 18's size from io_combine_limit x effective_io_concurrency. */
export type RingModel = "pg96" | "pg18";

/** The mechanisms of a {@link PgModel}, in report order. */
export const PG_MECHANISMS = ["allocator", "syncscan", "bitmapPrefetch", "readStreams", "ring"] as const;

/** A mechanism of {@link PG_MECHANISMS}. */
export type PgMechanism = (typeof PG_MECHANISMS)[number];

/** The model per mechanism that runs for one PostgreSQL version. */
export interface PgModel {
  /** The version the scenario asked for. */
  readonly requested: PgVersion;
  /** Parallel seq scan block allocation. */
  readonly allocator: AllocatorModel;
  /** Syncscan reporting. */
  readonly syncscan: SyncscanModel;
  /** Bitmap heap scan prefetching. */
  readonly bitmapPrefetch: BitmapPrefetchModel;
  /** Read streams and I/O. */
  readonly readStreams: ReadStreamModel;
  /** BAS_BULKREAD ring size. */
  readonly ring: RingModel;
}

/** Every accepted PostgreSQL version, oldest first. */
export const PG_VERSIONS: readonly PgVersion[] = [
  "9.6",
  "10",
  "11",
  "12",
  "13",
  "14",
  "15",
  "16",
  "17",
  "18",
  "19",
];

/** One version's models: a {@link PgModel} without the requested version. */
export type PgModelRow = Omit<PgModel, "requested">;
const row = (
  allocator: AllocatorModel,
  syncscan: SyncscanModel,
  bitmapPrefetch: BitmapPrefetchModel,
  readStreams: ReadStreamModel,
  ring: RingModel,
): PgModelRow => ({ allocator, syncscan, bitmapPrefetch, readStreams, ring });

/** The mapping (see the header for the commits behind each column). */
export const PG_MODEL_TABLE: Readonly<Record<PgVersion, PgModelRow>> = {
  "9.6": row("pg96", "pg96", "pg96", "none", "pg96"),
  "10": row("pg96", "pg96", "pg96", "none", "pg96"),
  "11": row("pg11", "pg96", "pg96", "none", "pg96"),
  "12": row("pg11", "pg96", "pg12", "none", "pg96"),
  "13": row("pg11", "pg96", "pg13", "none", "pg96"),
  "14": row("pg14", "pg96", "pg13", "none", "pg96"),
  "15": row("pg14", "pg96", "pg13", "none", "pg96"),
  "16": row("pg14", "pg96", "pg13", "none", "pg96"),
  "17": row("pg14", "pg17", "pg13", "pg17", "pg96"),
  "18": row("pg14", "pg17", "pg18", "pg18", "pg18"),
  "19": row("pg14", "pg17", "pg18", "pg19", "pg18"),
};

/** Versions whose models tooling/conformance holds against a real server. */
export const PG_VERSIONS_WITH_SERVER: readonly PgVersion[] = ["11", "13", "14", "15", "16", "17", "18"];

/** The models that run for a version. */
export function pgModel(
  pg: PgVersion,
  table: Readonly<Record<PgVersion, PgModelRow>> = PG_MODEL_TABLE,
): PgModel {
  const r = table[pg];
  if (r === undefined) throw new RangeError(`no model for PostgreSQL ${String(pg)}`);
  return { requested: pg, ...r };
}

const LABELS: Record<PgMechanism, string> = {
  allocator: "allocator",
  syncscan: "syncscan",
  bitmapPrefetch: "bitmap prefetch",
  readStreams: "read streams/io",
  ring: "ring",
};

/** "PG14-19": the accepted versions that run the same model of a mechanism as `pg`. */
function span(pg: PgVersion, mechanism: PgMechanism): string {
  const model = PG_MODEL_TABLE[pg][mechanism];
  const same = PG_VERSIONS.filter((v) => PG_MODEL_TABLE[v][mechanism] === model);
  const first = same[0]!;
  const last = same[same.length - 1]!;
  return first === last ? `PG${first}` : `PG${first}-${last}`;
}

/**
 * The mapping in one line, mechanisms with the same span grouped, e.g.
 * "PG16: allocator as PG14-19; syncscan as PG9.6-16; bitmap prefetch as
 * PG13-17; ring as PG9.6-17; no read streams (PG17+); held against a real
 * PostgreSQL 16".
 */
export function describePgModel(pg: PgVersion): string {
  const groups = new Map<string, string[]>();
  let noStreams = false;
  for (const m of PG_MECHANISMS) {
    if (m === "readStreams" && PG_MODEL_TABLE[pg].readStreams === "none") {
      noStreams = true;
      continue;
    }
    const s = span(pg, m);
    groups.set(s, [...(groups.get(s) ?? []), LABELS[m]]);
  }
  const parts = [...groups].map(([s, names]) => `${joinNames(names)} as ${s}`);
  if (noStreams) parts.push("no read streams (PG17+)");
  return `PG${pg}: ${parts.join("; ")}; ${evidence(pg)}`;
}

function joinNames(names: string[]): string {
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

function evidence(pg: PgVersion): string {
  if (PG_VERSIONS_WITH_SERVER.includes(pg))
    return `held against a real PostgreSQL ${pg} (conformance matrix)`;
  if (pg === "19")
    return "no real server tested (no PostgreSQL 19 build to test against): read streams follow the 19 development commits, the rest is assumed unchanged from 18";
  return "no real server tested";
}
