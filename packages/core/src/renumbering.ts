/**
 * Renumbering: a relation that changes size under running scans.
 *
 * A discrete-event simulator that skips the steady middle of a long scan
 * (`@scanlab/simulator`'s warp) does so by cutting a stretch of blocks out of
 * the table ahead of every scan, and by putting it back behind them before a
 * new scan starts. Every model that holds block numbers of that table (the
 * allocator's start block and counters, the syncscan location, a bitmap and
 * its iterators, the page cache's segment files and their open files) must
 * then renumber them, or it would name blocks that moved.
 *
 * The insight: all of them need the same three facts (which relation, its new
 * size, and where each old block is now), and the stretch itself, from which
 * a model that counts along the scan's path (the allocator's counters) can
 * tell whether the stretch lies behind or ahead of a count. So there is one
 * value, a {@link Renumbering}, and each model package offers one function
 * that applies it, on its `./sim` subpath: `renumberScan` (block-allocator),
 * `renumberLocation` (syncscan), `renumberBitmap` and `renumberPrefetch`
 * (bitmap-prefetch), `renumberSegmentFiles` and `renumberOpenFile`
 * (readahead). A program that models a real, fixed table never needs them.
 *
 * Design choices:
 * - A stretch is contiguous and moves as a whole: blocks before it keep their
 *   numbers, blocks after it move by its length. A model can then renumber
 *   without a table of moves, and a map is cheap to call per block.
 * - A block of a cut stretch maps to the first block after it (`at`): the
 *   nearest block that still exists, which is where a cursor pointing into
 *   the stretch resumes.
 * - Renumbering is not simulation: the caller credits the skipped work
 *   itself. Models only rename.
 *
 * Interface routines: {@link cutStretch}, {@link restoreStretch},
 * {@link renumberSegment}.
 */

/** A relation renumbered under running scans: a stretch of blocks cut out, or put back. */
export interface Renumbering {
  /** The relation (a simulator's table id; models keyed otherwise are told their key by the caller). */
  readonly relation: number;
  /** "cut": blocks [at, at + blocks) leave the relation; "restore": `blocks` blocks come back at `at`. */
  readonly kind: "cut" | "restore";
  /** First block of the stretch (old numbering for a cut, new numbering for a restore). */
  readonly at: number;
  /** Length of the stretch in blocks (positive). */
  readonly blocks: number;
  /** The relation's size in blocks before. */
  readonly oldNblocks: number;
  /** The relation's size in blocks after. */
  readonly nblocks: number;
  /** Where block `block` of the old numbering is now (a block of a cut stretch: `at`). */
  map(block: number): number;
  /** Where the end of a range [x, end) of the old numbering is now. */
  mapEnd(end: number): number;
}

function checkStretch(oldNblocks: number, at: number, blocks: number, cut: boolean): void {
  const ok =
    Number.isInteger(oldNblocks) &&
    Number.isInteger(at) &&
    Number.isInteger(blocks) &&
    blocks > 0 &&
    at >= 0 &&
    (cut ? at + blocks <= oldNblocks : at <= oldNblocks);
  if (!ok)
    throw new RangeError(
      `a ${cut ? "cut" : "restore"} of ${String(blocks)} blocks at ${String(at)} does not fit a relation of ${String(oldNblocks)} blocks.`,
    );
}

/**
 * Blocks [at, at + blocks) leave a relation of `oldNblocks` blocks.
 *
 * @example
 * ```ts
 * import { cutStretch } from "@scanlab/core/sim";
 * const cut = cutStretch(0, 1000, 200, 300);
 * [cut.map(199), cut.map(250), cut.map(500), cut.nblocks]; // [199, 200, 200, 700]
 * ```
 */
export function cutStretch(relation: number, oldNblocks: number, at: number, blocks: number): Renumbering {
  checkStretch(oldNblocks, at, blocks, true);
  const end = at + blocks;
  return {
    relation,
    kind: "cut",
    at,
    blocks,
    oldNblocks,
    nblocks: oldNblocks - blocks,
    map: (b) => (b < at ? b : b >= end ? b - blocks : at),
    mapEnd: (e) => (e <= at ? e : e >= end ? e - blocks : at),
  };
}

/** `blocks` blocks come back at `at` of a relation of `oldNblocks` blocks (the inverse of a cut there). */
export function restoreStretch(
  relation: number,
  oldNblocks: number,
  at: number,
  blocks: number,
): Renumbering {
  checkStretch(oldNblocks, at, blocks, false);
  return {
    relation,
    kind: "restore",
    at,
    blocks,
    oldNblocks,
    nblocks: oldNblocks + blocks,
    map: (b) => (b < at ? b : b + blocks),
    mapEnd: (e) => (e <= at ? e : e + blocks),
  };
}

/**
 * Where segment file `segment` is now, for a stretch of whole segments of
 * `segmentBlocks` blocks each (PostgreSQL's RELSEG_SIZE files), or -1 for a
 * segment that was cut out.
 *
 * @throws RangeError when the stretch does not start and end on segment boundaries.
 */
export function renumberSegment(change: Renumbering, segmentBlocks: number, segment: number): number {
  if (change.at % segmentBlocks !== 0 || change.blocks % segmentBlocks !== 0)
    throw new RangeError(
      `a stretch of ${change.blocks} blocks at ${change.at} is not made of whole ${segmentBlocks}-block segments.`,
    );
  const first = segment * segmentBlocks;
  if (first < change.at) return segment;
  const shift = change.blocks / segmentBlocks;
  if (change.kind === "restore") return segment + shift;
  return first >= change.at + change.blocks ? segment - shift : -1;
}
