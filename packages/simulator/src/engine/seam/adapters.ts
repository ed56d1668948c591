/**
 * The model packages bound to the engine's ports ({@link realModels}), and
 * the allocation and syncscan adapters.
 *
 * - Device and OS: os-adapter.ts ({@link OsAdapter}) over
 *   @scanlab/device-profiles and @scanlab/readahead; devices from a scenario
 *   in device.ts.
 * - Allocation: @scanlab/block-allocator `createParallelScan`, the policy
 *   from the scenario or PostgreSQL's for the version (9.6: one block under a
 *   spinlock; 11-13: one block per atomic; 14+: chunks).
 * - Syncscan: @scanlab/syncscan `InProcessSyncScanTracker`, and the interval
 *   at which scans report to it.
 * - Bitmap heap scans and read streams: bitmap-adapters.ts and
 *   read-stream-adapter.ts over @scanlab/read-stream.
 * - Shared buffers and rings: buffer-manager.ts over @scanlab/buffer-manager
 *   (the engine's pg/ wing owns the pool; it is not one of the factories).
 */
import {
  type AllocatorPolicy,
  createParallelScan,
  INVALID_BLOCK,
  MUNRO2020_RAMPDOWN_CHUNKS,
  type Participant,
  type ResolvedPolicy,
  resolvePolicy,
} from "@scanlab/block-allocator";
import { fastForwardScan, renumberScan } from "@scanlab/block-allocator/sim";
import { InProcessSyncScanTracker, SYNC_SCAN_REPORT_INTERVAL_BLOCKS } from "@scanlab/syncscan";
import { renumberLocation } from "@scanlab/syncscan/sim";
import { pgModel } from "../../scenario/pg-model.js";
import type { AllocatorSpec, QuerySpec } from "../../scenario/schema.js";
import { bitmapScans } from "./bitmap-adapters.js";
import { OsAdapter } from "./os-adapter.js";
import type { ModelFactories, ScanAllocation, SyncScanPort, WarpLimits } from "./ports.js";
import { readStream } from "./read-stream-adapter.js";

export { deviceSequentialBytesPerS, resolveDeviceProfile } from "./device.js";

/** PostgreSQL's allocator for a version when the scenario does not choose one (its allocator model, pg-model.ts). */
export function defaultAllocator(pg: QuerySpec["pg"]): AllocatorSpec {
  return { kind: pgModel(pg).allocator };
}

function syncscan(): SyncScanPort {
  const tracker = new InProcessSyncScanTracker();
  return {
    reportIntervalBlocks: SYNC_SCAN_REPORT_INTERVAL_BLOCKS,
    getLocation: (key, nblocks) => tracker.getLocation(key, nblocks),
    report: (key, block) => {
      tracker.reportLocation(key, block);
    },
    renumber: (key, change) => {
      renumberLocation(tracker, change, key);
    },
  };
}

function parallelScan(
  spec: QuerySpec,
  nblocks: number,
  sync: boolean,
  hooks: { getStartBlock(nblocks: number): number; onScanEnd(startBlock: number): void },
): ScanAllocation {
  const policy: AllocatorPolicy = spec.allocator ?? defaultAllocator(spec.pg);
  const scan = createParallelScan(policy, { nblocks, syncscan: sync, hooks });
  const resolved = resolvePolicy(policy);
  const fixed = resolved.kind === "pg96" || resolved.kind === "pg11" || resolved.kind === "batch";
  const joined: Participant[] = [];
  const position = () => {
    const start = scan.startBlock;
    return start === INVALID_BLOCK
      ? null
      : { counter: scan.counter, startBlock: start, nblocks: scan.nblocks };
  };
  return {
    position,
    renumber: (change) => renumberScan(scan, change),
    warpLimits: () => warpLimits(resolved, joined),
    striding: fixed
      ? {
          claimBlocks: fixedClaimBlocks(resolved),
          op: resolved.kind === "pg11" ? "atomic" : "lock",
          position,
          fastForward: (blocks) => fastForwardScan(scan, blocks),
        }
      : undefined,
    join() {
      const p = scan.join();
      joined.push(p);
      return {
        next() {
          const run = p.nextRun();
          return run === null ? null : { startBlock: run.startBlock, blocks: run.blocks, op: run.op };
        },
      };
    },
  };
}

/**
 * What a warp must not cut from a scan's table.
 *
 * Tail: blocks at the end of the scan's path where claims change size.
 * PG14 halves a participant's chunk at its first claim within chunk x
 * rampdownChunks of the end (apps/docs/src/reference/parallel-block-allocation.md#block-requests), one halving per claim. A cut
 * that lands between that point and the next one (half as far from the end)
 * leaves the machine as the skipped stretch would have: each participant's
 * next claim halves its chunk once, to the size it would hold there. A cut
 * past the next point would leave chunks two halvings too large, so the zone
 * kept is half the ramp-down zone of the largest chunk held now. What such a
 * cut extrapolates is that the stretch's rate holds through one halving
 * (ramp-down stages of large chunks read at one device rate; speedups/warp.test.ts
 * holds warped and exact runs together across it). munro2020 ramps down
 * within its largest chunk x its ramp-down chunks, kept whole; the fixed-size
 * policies keep one size.
 *
 * Table size: PG14's test is `phsw_nallocated > phs_nblocks - chunk_size *
 * 64` in unsigned 32-bit arithmetic, so on a table shorter than chunk x 64
 * the threshold wraps and the scan never ramps down (real PostgreSQL picks
 * the chunk from the table size, so its tables are always long enough). A
 * cut must leave the table at least that long, or the shorter table it
 * leaves would scan without a ramp-down the real one has.
 *
 * Claims: one per chunk held in a steady stretch (PG14: the largest chunk;
 * munro2020 past its ramp-up: its largest; batch: its batch; one block for
 * PG 9.6-13), twice as many per block past the halving point a cut crosses.
 */
function warpLimits(r: ResolvedPolicy, joined: readonly Participant[]): WarpLimits {
  if (r.kind === "pg14") {
    let chunk = 1;
    for (const p of joined) if (p.chunkBlocks > chunk) chunk = p.chunkBlocks;
    const zone = chunk * r.rampdownChunks;
    return { tailBlocks: zone / 2, minNblocks: zone, halvesBelow: zone, blocksPerClaim: chunk };
  }
  if (r.kind === "munro2020") {
    const tailBlocks = r.maxChunkBlocks * MUNRO2020_RAMPDOWN_CHUNKS;
    return { tailBlocks, minNblocks: 0, halvesBelow: 0, blocksPerClaim: r.maxChunkBlocks };
  }
  return {
    tailBlocks: 0,
    minNblocks: 0,
    halvesBelow: 0,
    blocksPerClaim: fixedClaimBlocks(r),
  };
}

/** Blocks per claim of the fixed-size policies: batch's batch, one block for PG 9.6-13. */
function fixedClaimBlocks(r: ResolvedPolicy): number {
  return r.kind === "batch" ? r.blocksPerClaim : 1;
}

/** The model packages, bound. */
export const realModels: ModelFactories = {
  buildOs: (resolved) => new OsAdapter(resolved),
  syncscan,
  parallelScan,
  bitmapScans,
  readStream,
};
