/**
 * Which cells a lab run measures: a cell is one scan scenario with its
 * settings (PostgreSQL version, scan kind, table, cold or warm, workers,
 * concurrent clients, synchronize_seqscans, read_ahead_kb,
 * effective_io_concurrency, io_method, io_combine_limit).
 *
 * Problem. The simulator's numbers have to be held against real scans, and a
 * single scan says little: what a user tunes is a *difference* (sync scans on
 * or off, eic 1 or 16, PG17 or 18). So the plan is a matrix whose cells differ
 * in one setting at a time, and the comparisons are planned with it: every
 * pair of cells that differ in exactly one setting.
 *
 * Choices.
 * - Up to four cells per version are marked `role: "fit"` ({@link fitRoles}):
 *   warm serial sequential scans of a narrow table (226 tuples a page) and
 *   of the first bitmap table (27 a page), and warm bitmap scans of that
 *   table at the middle and the highest selectivity. Their times are the
 *   only input of the CPU fit (cpu-fit.ts); they are never reported as
 *   predictions and take part in no comparison. Two tuple densities are what
 *   separate a per-page cost from a per-tuple one; two bitmap selectivities,
 *   one below and one above shared_buffers' worth of pages, separate what a
 *   matched tuple costs from a buffer's first use (the simulator's
 *   bitmapTupleUs and bufferFirstUseUs).
 * - A selection of cells (`only`) runs with the fit cells of every version
 *   it touches, and makes their tables: a subset without both tuple
 *   densities would fit all CPU work to the page. Without a fit (`fit:
 *   false`) the selection runs as it is.
 * - read_ahead_kb: the device's own value, and 128 (the kernel's
 *   VM_READAHEAD_PAGES default, include/linux/mm.h) when it differs and the
 *   lab may write /sys/block/DEV/queue/read_ahead_kb. Where it may not, the
 *   128 cells are refused with a sentence, not silently dropped. Readahead
 *   only matters when the device is read, so only cold cells vary it.
 * - `quick` keeps small tables and a few cells per mechanism so a run ends
 *   within minutes on two cores; the full set uses 1 GiB and 256 MiB tables
 *   and the whole matrix, except that warm bitmap cells run at eic 16 only
 *   (a warm run reads no device, so the eic matrix is a cold matter).
 * - The 2022 bitmap data sets (@scanlab/workloads) at 1-50 %
 *   selectivity, eic 0, 1, 16, 64: PG13-17 prefetch with posix_fadvise,
 *   PG18 reads through a read stream with io_method sync or worker (these
 *   builds have no liburing).
 */

import { BLCKSZ } from "@scanlab/core";
import { BITMAP_2022_LAYOUTS, BITMAP_2022_SELECTIVITIES, type Bitmap2022Layout } from "@scanlab/workloads";
import { LabError } from "./errors.js";

/** PostgreSQL majors the lab can run (servers from Debian or the pinned npm builds). */
export const LAB_PG_MAJORS: readonly number[] = [11, 13, 14, 15, 16, 17, 18];

/** The kernel's default read_ahead_kb (VM_READAHEAD_PAGES = SZ_128K / PAGE_SIZE, include/linux/mm.h). */
export const KERNEL_DEFAULT_READ_AHEAD_KB = 128;

/** Heap tuples on a page of a one-int-column table (8192-byte pages, 32-byte tuples + 4-byte line pointer). */
export const NARROW_TUPLES_PER_PAGE = 226;

/** A table a lab run creates. */
export interface LabTable {
  /** SQL name. */
  readonly name: string;
  /** One int column (226 tuples a page), or a 2022 bitmap data set table (27 a page, index on `a`). */
  readonly kind: "narrow" | "bitmap";
  /** Heap pages. */
  readonly blocks: number;
  /** Tuples a page the table is built with. */
  readonly tuplesPerPage: number;
  /** Page layout of a bitmap table. */
  readonly layout?: Bitmap2022Layout;
  /** Blocks of a bitmap table's index on `a`, as built (known once the table is made). */
  readonly indexBlocks?: number;
}

/** One cell: a scan scenario and its settings. */
export interface Cell {
  /** Stable identifier, e.g. `pg15 seq narrow w2 cold`. */
  readonly id: string;
  /** PostgreSQL major. */
  readonly pg: number;
  /** Sequential scan (`count(*)`) or bitmap heap scan (`count(*) ... where a between`). */
  readonly scan: "seqscan" | "bitmap";
  /** Table name. */
  readonly table: string;
  /** Cold: relation files evicted and shared buffers emptied before each run; warm: the OS page cache holds the table. */
  readonly cache: "cold" | "warm";
  /** Parallel workers (0: serial). */
  readonly workers: number;
  /** Concurrent identical scans. */
  readonly clients: number;
  /** synchronize_seqscans. */
  readonly synchronizeSeqscans: boolean;
  /** read_ahead_kb for the run, or null for the device's own value. */
  readonly readAheadKb: number | null;
  /** effective_io_concurrency (bitmap cells; null: the server's default). */
  readonly eic: number | null;
  /** Fraction of the values matched (bitmap cells). */
  readonly selectivity: number | null;
  /** io_method (PG18; null: the server's default, worker). */
  readonly ioMethod: "sync" | "worker" | null;
  /** io_combine_limit in blocks (PG17+; null: the server's default). */
  readonly ioCombineLimit: number | null;
  /** "fit": input of the CPU fit, never predicted; "predict": predicted and compared. */
  readonly role: "fit" | "predict";
}

/** Two cells that differ in one setting. */
export interface Comparison {
  /** What differs. */
  readonly varied: VariedSetting;
  /** First cell id. */
  readonly a: string;
  /** Second cell id. */
  readonly b: string;
}

/** The settings a comparison can vary. */
export type VariedSetting =
  | "synchronize_seqscans"
  | "effective_io_concurrency"
  | "pg"
  | "cache"
  | "workers"
  | "read_ahead_kb"
  | "io_method"
  | "io_combine_limit";

/** A cell the plan could not include, with the sentence why. */
export interface RefusedCell {
  /** What the cell would have been. */
  readonly id: string;
  /** One sentence. */
  readonly reason: string;
}

/** What a lab run will do. */
export interface LabPlan {
  /** Tables to create, per version (the same in every cluster). */
  readonly tables: readonly LabTable[];
  /** Cells in run order. */
  readonly cells: readonly Cell[];
  /** Comparisons between predicted cells. */
  readonly comparisons: readonly Comparison[];
  /** Cells left out, each with a reason. */
  readonly refused: readonly RefusedCell[];
  /** Runs per cell and cache state (median kept). */
  readonly runs: number;
}

/** Options of {@link planLab}. */
export interface PlanOptions {
  /** PostgreSQL majors, in order. */
  readonly pgMajors: readonly number[];
  /** The small, fast cell set. */
  readonly quick: boolean;
  /** The device's read_ahead_kb (null when unknown: no read-ahead cells beyond the default). */
  readonly deviceReadAheadKb: number | null;
  /** Why read_ahead_kb cannot be changed, or null when it can. */
  readonly readAheadRefusal: string | null;
  /** Runs per cell (at least 3). */
  readonly runs?: number;
  /** Caps every table at this many blocks (smaller runs, e.g. a smoke test). */
  readonly maxTableBlocks?: number;
  /** Keeps only the cells this returns true for, and the fit cells of every version it keeps a cell of. */
  readonly only?: (cell: Cell) => boolean;
  /**
   * The CPU fit is made (default true). Without it, `only` keeps the cells it
   * selects and no more: the fit cells are added only to feed a fit.
   */
  readonly fit?: boolean;
}

/** The eic of warm bitmap cells (PostgreSQL 18's default effective_io_concurrency, guc_tables.c). */
export const WARM_BITMAP_EIC = 16;

/** Minimum runs per cell: the median of three ignores one disturbed run. */
export const MIN_RUNS = 3;

/**
 * Minimum runs of a fit cell (scanlab's choice). Its median sets a CPU cost
 * that every predicted cell of its version uses, so one disturbed run among
 * three there moves every prediction; the median of seven ignores three. Fit
 * cells are warm and few (four per version), so the extra runs cost seconds.
 */
export const MIN_FIT_RUNS = 7;

const BLOCK_BYTES = BLCKSZ;

/** Tables of the quick and the full set. */
export function labTables(quick: boolean, maxTableBlocks = Number.POSITIVE_INFINITY): LabTable[] {
  const narrowBlocks = Math.min(maxTableBlocks, quick ? (128 << 20) / BLOCK_BYTES : (1 << 30) / BLOCK_BYTES);
  const bitmapBlocks = Math.min(maxTableBlocks, quick ? (64 << 20) / BLOCK_BYTES : (256 << 20) / BLOCK_BYTES);
  const layouts: readonly Bitmap2022Layout[] = quick ? ["random", "sequential"] : BITMAP_2022_LAYOUTS;
  return [
    { name: "narrow", kind: "narrow", blocks: narrowBlocks, tuplesPerPage: NARROW_TUPLES_PER_PAGE },
    ...layouts.map(
      (layout): LabTable => ({
        name: `bitmap_${layout.replace("-", "_")}`,
        kind: "bitmap",
        blocks: bitmapBlocks,
        tuplesPerPage: 27,
        layout,
      }),
    ),
  ];
}

/** The id of a cell from its settings (stable: JSON consumers key on it). */
export function cellId(c: Omit<Cell, "id" | "role">): string {
  const parts = [`pg${c.pg}`, c.scan === "seqscan" ? "seq" : "bitmap", c.table];
  if (c.selectivity !== null) parts.push(`sel${+(c.selectivity * 100).toFixed(2)}%`);
  if (c.clients > 1) parts.push(`${c.clients}clients`, `sync-${c.synchronizeSeqscans ? "on" : "off"}`);
  if (c.workers > 0) parts.push(`w${c.workers}`);
  if (c.eic !== null) parts.push(`eic${c.eic}`);
  if (c.ioMethod !== null) parts.push(`io-${c.ioMethod}`);
  if (c.ioCombineLimit !== null) parts.push(`combine${c.ioCombineLimit}`);
  if (c.readAheadKb !== null) parts.push(`ra${c.readAheadKb}`);
  parts.push(c.cache);
  return parts.join(" ");
}

function cell(fields: Omit<Cell, "id">): Cell {
  return { id: cellId(fields), ...fields };
}

const BASE = {
  clients: 1,
  synchronizeSeqscans: true,
  readAheadKb: null,
  eic: null,
  selectivity: null,
  ioMethod: null,
  ioCombineLimit: null,
} as const;

/**
 * Plans a lab run: tables, cells, comparisons and refused cells. With `only`,
 * the selected cells and the fit cells of their versions (unless `fit` is
 * false), and the tables those scan.
 *
 * @example
 * ```ts
 * const plan = planLab({ pgMajors: [15], quick: true, deviceReadAheadKb: 128, readAheadRefusal: null });
 * plan.cells.filter((c) => c.role === "fit").length; // 3 (the quick set has one bitmap selectivity)
 * ```
 */
export function planLab(options: PlanOptions): LabPlan {
  const runs = options.runs ?? MIN_RUNS;
  if (!Number.isInteger(runs) || runs < MIN_RUNS || runs > 99) {
    throw new LabError("LAB_BAD_OPTION", `runs must be a whole number from ${MIN_RUNS} to 99, got ${runs}.`);
  }
  if (options.pgMajors.length === 0)
    throw new LabError("LAB_BAD_PG", "give at least one PostgreSQL version.");
  for (const pg of options.pgMajors) {
    if (!LAB_PG_MAJORS.includes(pg)) {
      throw new LabError(
        "LAB_BAD_PG",
        `PostgreSQL ${pg} is not one the lab can run: use ${LAB_PG_MAJORS.join(", ")}.`,
      );
    }
  }
  const quick = options.quick;
  const tables = labTables(quick, options.maxTableBlocks);
  const narrow = tables[0]!;
  const bitmapTables = tables.slice(1);
  const cells: Cell[] = [];
  const refused: RefusedCell[] = [];

  const readAheads: (number | null)[] = [null];
  const dev = options.deviceReadAheadKb;
  if (dev !== null && dev !== KERNEL_DEFAULT_READ_AHEAD_KB) readAheads.push(KERNEL_DEFAULT_READ_AHEAD_KB);

  const workerCounts = quick ? [0, 2] : [0, 1, 2, 4];
  const selectivities = quick ? [0.05] : BITMAP_2022_SELECTIVITIES;
  const eics = quick ? [0, 16] : [0, 1, 16, 64];

  for (const pg of [...options.pgMajors]) {
    const pg18 = pg >= 18;
    const add = (c: Cell) => {
      if (c.readAheadKb !== null && options.readAheadRefusal !== null) {
        refused.push({ id: c.id, reason: options.readAheadRefusal });
        return;
      }
      cells.push(c);
    };
    // Warm serial scans of two tuple densities: the CPU fit's inputs (every cell's role is set by fitRoles below).
    add(
      cell({ ...BASE, pg, scan: "seqscan", table: narrow.name, cache: "warm", workers: 0, role: "predict" }),
    );
    add(
      cell({
        ...BASE,
        pg,
        scan: "seqscan",
        table: bitmapTables[0]!.name,
        cache: "warm",
        workers: 0,
        role: "predict",
      }),
    );
    // Serial and parallel count(*): cold at each read_ahead_kb, warm at the device's.
    for (const workers of workerCounts) {
      for (const readAheadKb of readAheads) {
        add(
          cell({
            ...BASE,
            pg,
            scan: "seqscan",
            table: narrow.name,
            cache: "cold",
            workers,
            readAheadKb,
            role: "predict",
          }),
        );
      }
      if (workers > 0) {
        add(
          cell({ ...BASE, pg, scan: "seqscan", table: narrow.name, cache: "warm", workers, role: "predict" }),
        );
      }
    }
    // Two concurrent serial scans, synchronized or not (cold: that is where sharing the reads matters).
    for (const synchronizeSeqscans of [true, false]) {
      add(
        cell({
          ...BASE,
          pg,
          scan: "seqscan",
          table: narrow.name,
          cache: "cold",
          workers: 0,
          clients: 2,
          synchronizeSeqscans,
          role: "predict",
        }),
      );
    }
    // PG18 sequential scans through the read stream: io_method x io_combine_limit (cold, serial). null is
    // the server's default (io_method worker, io_combine_limit 16 blocks): the serial cold cell above.
    if (pg18) {
      for (const ioMethod of [null, "sync"] as const) {
        for (const ioCombineLimit of quick ? [1, null] : [1, null, 32]) {
          if (ioMethod === null && ioCombineLimit === null) continue;
          add(
            cell({
              ...BASE,
              pg,
              scan: "seqscan",
              table: narrow.name,
              cache: "cold",
              workers: 0,
              ioMethod,
              ioCombineLimit,
              role: "predict",
            }),
          );
        }
      }
    }
    // Bitmap heap scans on the 2022 data sets.
    // null: the server's default (PG18: worker), so PG17 and PG18 cells pair up in a comparison.
    const ioMethods: ("sync" | null)[] = pg18 && !quick ? [null, "sync"] : [null];
    for (const t of bitmapTables) {
      for (const selectivity of selectivities) {
        for (const ioMethod of ioMethods) {
          for (const eic of eics) {
            for (const cache of ["cold", "warm"] as const) {
              // Warm only at eic 16 (PG18's default): a warm run reads no device, so eic barely matters there,
              // and warm cells at every eic would double the run time for nothing.
              if (cache === "warm" && eic !== WARM_BITMAP_EIC) continue;
              add(
                cell({
                  ...BASE,
                  pg,
                  scan: "bitmap",
                  table: t.name,
                  cache,
                  workers: 0,
                  eic,
                  selectivity,
                  ioMethod,
                  role: "predict",
                }),
              );
            }
          }
        }
      }
    }
    // The quick set's PG18 bitmap cells read through I/O workers; one warm cell at io_method sync
    // gives the CPU fit a scan whose buffers the backend reads itself (fitRoles).
    if (pg18 && quick) {
      add(
        cell({
          ...BASE,
          pg,
          scan: "bitmap",
          table: bitmapTables[0]!.name,
          cache: "warm",
          workers: 0,
          eic: WARM_BITMAP_EIC,
          selectivity: selectivities.at(-1)!,
          ioMethod: "sync",
          role: "predict",
        }),
      );
    }
  }
  fitRoles(cells, tables);
  if (options.only === undefined)
    return { tables, cells, comparisons: planComparisons(cells), refused, runs };
  const selected = cells.filter(options.only);
  if (selected.length === 0) {
    throw new LabError(
      "LAB_NO_CELLS",
      `no cell is selected: cell ids look like "${cells[0]?.id ?? "pg15 seq narrow warm"}" and "${cells.at(-1)?.id ?? ""}".`,
    );
  }
  // A selection is predicted with a sound fit: the fit cells of each version it touches come along.
  const fitted = new Set(options.fit === false ? [] : selected.map((c) => c.pg));
  const chosen = new Set(selected);
  const kept = cells.filter((c) => chosen.has(c) || (c.role === "fit" && fitted.has(c.pg)));
  // Only the tables the kept cells scan are made.
  const used = tables.filter((t) => kept.some((c) => c.table === t.name));
  return { tables: used, cells: kept, comparisons: planComparisons(kept), refused, runs };
}

/**
 * Marks each version's fit cells in `cells` (in place, and returns them): the
 * warm serial sequential scans of the first table and of the first bitmap
 * table, and the warm bitmap scans of that bitmap table at the middle and
 * the highest of the selectivities its warm cells have, at eic 16
 * (`WARM_BITMAP_EIC`), with io_method sync where the version's cells
 * have it, else the server's default. Every other cell is a prediction. A replay marks an
 * older report's cells the same way, so it fits as this version plans.
 */
export function fitRoles(cells: Cell[], tables: readonly LabTable[]): Cell[] {
  const first = tables[0]?.name;
  const bitmap = tables.find((t) => t.kind === "bitmap")?.name;
  const isSeqFit = (c: Cell) =>
    c.scan === "seqscan" &&
    c.cache === "warm" &&
    c.workers === 0 &&
    c.clients === 1 &&
    c.readAheadKb === null &&
    c.ioMethod === null &&
    c.ioCombineLimit === null &&
    (c.table === first || c.table === bitmap);
  const warmBitmap = (c: Cell) =>
    c.scan === "bitmap" &&
    c.cache === "warm" &&
    c.table === bitmap &&
    c.workers === 0 &&
    c.eic === WARM_BITMAP_EIC &&
    c.ioCombineLimit === null;
  // io_method sync where a version has it: the backend reads into the buffers itself, so their
  // first use is its CPU. With io_method worker an I/O worker reads them, whose CPU the model
  // does not queue, and the fit could not see the cost.
  const syncPgs = new Set(cells.filter((c) => warmBitmap(c) && c.ioMethod === "sync").map((c) => c.pg));
  const isWarmBitmap = (c: Cell) => warmBitmap(c) && c.ioMethod === (syncPgs.has(c.pg) ? "sync" : null);
  // Per version: the middle and the highest selectivity of the warm bitmap cells.
  const fitSelectivities = new Map<number, number[]>();
  for (const pg of new Set(cells.map((c) => c.pg))) {
    const sels = [
      ...new Set(cells.filter((c) => c.pg === pg && isWarmBitmap(c)).map((c) => c.selectivity ?? 0)),
    ];
    sels.sort((a, b) => a - b);
    if (sels.length > 0) fitSelectivities.set(pg, [sels[Math.floor((sels.length - 1) / 2)]!, sels.at(-1)!]);
  }
  for (let i = 0; i < cells.length; i++) {
    const c = cells[i]!;
    const fit =
      isSeqFit(c) || (isWarmBitmap(c) && (fitSelectivities.get(c.pg) ?? []).includes(c.selectivity ?? 0));
    const role = fit ? "fit" : "predict";
    if (c.role !== role) cells[i] = { ...c, role };
  }
  return cells;
}

const VARIED: readonly { key: keyof Cell; varied: VariedSetting }[] = [
  { key: "synchronizeSeqscans", varied: "synchronize_seqscans" },
  { key: "eic", varied: "effective_io_concurrency" },
  { key: "pg", varied: "pg" },
  { key: "cache", varied: "cache" },
  { key: "workers", varied: "workers" },
  { key: "readAheadKb", varied: "read_ahead_kb" },
  { key: "ioMethod", varied: "io_method" },
  { key: "ioCombineLimit", varied: "io_combine_limit" },
];

function order(v: unknown): number | string {
  if (v === null) return -1;
  if (typeof v === "boolean") return v ? 1 : 0;
  return v as number | string;
}

/**
 * Every pair of predicted cells that differ in exactly one setting; for a
 * numeric setting only neighbours in value (eic 0 vs 1, 1 vs 16, 16 vs 64),
 * so each step is judged once. Fit cells are left out: their "prediction" is
 * the fit itself.
 */
export function planComparisons(cells: readonly Cell[]): Comparison[] {
  const predicted = cells.filter((c) => c.role === "predict");
  const out: Comparison[] = [];
  for (const { key, varied } of VARIED) {
    const groups = new Map<string, Cell[]>();
    for (const c of predicted) {
      const rest = Object.fromEntries(
        Object.entries(c).filter(([k]) => k !== key && k !== "id" && k !== "role"),
      );
      const k = JSON.stringify(rest);
      groups.set(k, [...(groups.get(k) ?? []), c]);
    }
    for (const group of groups.values()) {
      if (group.length < 2) continue;
      const sorted = [...group].sort((x, y) => {
        const a = order(x[key]);
        const b = order(y[key]);
        return a < b ? -1 : a > b ? 1 : 0;
      });
      for (let i = 1; i < sorted.length; i++) {
        out.push({ varied, a: sorted[i - 1]!.id, b: sorted[i]!.id });
      }
    }
  }
  return out;
}
