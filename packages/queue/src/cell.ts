/**
 * Cells and their keys. A cell is one complete scenario, seed included: the
 * simulator is deterministic, so the scenario alone fixes the cell's result,
 * and the cell's key is a hash of the scenario. A sweep is a list of cells
 * under a sweep id; a result is stored under the sweep id and the cell's
 * hash, so running the same sweep again finds the cells already done.
 *
 * Results cross the queue as JSON, which has no NaN, no infinities and no
 * negative zero; those few numbers are written as `{"$number": "NaN"}` and
 * read back exactly, so a result read from the queue is the very object a
 * local thread would have returned, bit for bit.
 */
import { createHash } from "node:crypto";
import type { RowMetrics } from "@scanlab/simulator";
import { QueueError } from "./errors.js";

/** What a sweep id may be: letters, digits, `_` and `-`, 1 to 64 of them (it is part of Redis keys and job ids). */
const SWEEP_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** JSON with the keys of every object sorted: the same scenario always gives the same text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v as object).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}

/**
 * The key of a cell: the SHA-256 of its scenario's canonical JSON, in hex.
 * Key order does not matter; every value does, the seed included.
 *
 * @example
 * ```ts
 * import { cellHash } from "@scanlab/queue";
 * cellHash({ name: "a", seed: 1 }) === cellHash({ seed: 1, name: "a" }); // true
 * ```
 */
export function cellHash(scenario: unknown): string {
  return createHash("sha256").update(canonicalJson(scenario)).digest("hex");
}

/** The sweep id a list of cells gets when none is given: a hash of its cells' hashes, so the same sweep gets the same id. */
export function defaultSweepId(hashes: readonly string[]): string {
  return createHash("sha256").update(hashes.join("\n")).digest("hex").slice(0, 16);
}

/**
 * Checks a sweep id (letters, digits, `_` and `-`, 1 to 64 of them).
 *
 * @throws QueueError (`QUEUE_BAD_SWEEP_ID`)
 */
export function checkSweepId(id: string): string {
  if (!SWEEP_ID.test(id))
    throw new QueueError(
      `--sweep-id "${id.slice(0, 80)}" is not a sweep id: use 1 to 64 letters, digits, _ or -.`,
      { code: "QUEUE_BAD_SWEEP_ID" },
    );
  return id;
}

/** The data of one job on the queue: a cell of a sweep. */
export interface CellJobData {
  /** Format version of this record. */
  v: 1;
  /** The sweep's id. */
  sweep: string;
  /** {@link cellHash} of `scenario`. */
  hash: string;
  /** The scenario, as a scenario file would hold it. */
  scenario: unknown;
  /** The sweep asked to run cells over the simulator's work budget. */
  overBudget: boolean;
  /** When the cell was put on the queue (ms since the epoch). */
  enqueuedAt: number;
}

/** The job id of a cell: the sweep id and the cell's hash (BullMQ ids may not contain `:`). */
export function cellJobId(sweep: string, hash: string): string {
  return `${sweep}-${hash}`;
}

/** A number JSON cannot hold, as written on the queue. */
export interface SpecialNumber {
  /** Which number. */
  $number: "NaN" | "Infinity" | "-Infinity" | "-0";
}

/** A result as stored on the queue: every field a number or a {@link SpecialNumber}. */
export type WireMetrics = Record<string, number | SpecialNumber>;

/** Row metrics for the queue: JSON-safe, every number kept exactly. */
export function encodeMetrics(m: RowMetrics): WireMetrics {
  const out: WireMetrics = {};
  for (const [k, v] of Object.entries(m) as [string, number][]) {
    if (Number.isNaN(v)) out[k] = { $number: "NaN" };
    else if (v === Number.POSITIVE_INFINITY) out[k] = { $number: "Infinity" };
    else if (v === Number.NEGATIVE_INFINITY) out[k] = { $number: "-Infinity" };
    else if (Object.is(v, -0)) out[k] = { $number: "-0" };
    else out[k] = v;
  }
  return out;
}

const SPECIAL: Record<SpecialNumber["$number"], number> = {
  NaN: Number.NaN,
  Infinity: Number.POSITIVE_INFINITY,
  "-Infinity": Number.NEGATIVE_INFINITY,
  "-0": -0,
};

/** The row metrics of a result read from the queue, or null when it is not one. */
export function decodeMetrics(wire: unknown): RowMetrics | null {
  if (wire === null || typeof wire !== "object" || Array.isArray(wire)) return null;
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(wire)) {
    if (typeof v === "number") out[k] = v;
    else if (
      v !== null &&
      typeof v === "object" &&
      typeof (v as SpecialNumber).$number === "string" &&
      (v as SpecialNumber).$number in SPECIAL
    )
      out[k] = SPECIAL[(v as SpecialNumber).$number];
    else return null;
  }
  return out as unknown as RowMetrics;
}
