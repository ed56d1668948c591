/**
 * What the engine takes from @scanlab/core, the shared leaf every scanlab
 * package builds on (not a model): PostgreSQL's buffer-strategy formulas and
 * the seeded generator, the prefetch experiment's read order, and the renumbering protocol the warp speaks to
 * every model.
 *
 * The seam is the engine's only door to the `@scanlab/*` packages, so that a
 * reader (and the repo check that holds the engine to it) finds every outside
 * definition the engine runs by in one folder. Core's definitions need no
 * adapting (they are already in PostgreSQL's terms: blocks, buffers), so they
 * pass through as they are; this list is what the engine uses of them.
 */
export {
  BULKREAD_RING_BASE_BUFFERS,
  bulkReadRingBuffers,
  largeScanThresholdBlocks,
  mulberry32,
  type ReadPattern,
  readOrder,
  type SeededRandom,
  scrambleSeed32,
  xorshift32,
} from "@scanlab/core";
export { cutStretch, type Renumbering, renumberSegment, restoreStretch } from "@scanlab/core/sim";
