/**
 * A run in flight as the warp sees it (warp.ts {@link WarpRun}): where its
 * scan is in counter space, what its allocation forbids a cut, and how to
 * renumber it, from the PostgreSQL side of the run (pg/run-start.ts: its
 * processes, its serial block order or parallel allocation).
 *
 * A bitmap heap scan answers from its bitmap (its frontier and path end; a
 * cut credits it with its pages in the stretch). A sequential scan answers
 * from its allocation: a serial scan's position is its one process's, a
 * parallel one's the shared allocator's; the lowest block still pending is
 * the lowest any process holds in a claim it has not finished. A run whose
 * state the warp cannot renumber (read streams, a parallel bitmap scan, an
 * allocation without the hooks) is not warpable: while it is in flight, no
 * cut is made.
 */
import type { RunInFlight } from "../loop/run-observer.js";
import type { WarpLimits } from "../seam/ports.js";
import type { WarpRun } from "./warp.js";

/** What a scan whose claims never change size forbids a cut: nothing. */
const NO_LIMITS: WarpLimits = { tailBlocks: 0, minNblocks: 0, halvesBelow: 0, blocksPerClaim: 0 };

/** A run as the warp sees it: warpable when its processes and allocation can be renumbered. */
export function warpRunOf(run: RunInFlight): WarpRun {
  const { table, stats, line, processes, serial, allocation } = run;
  if (processes !== null && "bitmapScan" in processes) {
    const scan = processes.bitmapScan;
    return {
      table,
      stats,
      line,
      warpable: scan.warpable,
      limits: () => NO_LIMITS,
      position: () => ({
        counter: scan.frontier(),
        startBlock: 0,
        nblocks: table.nblocks,
        end: scan.pathEnd(),
      }),
      lowestPending: () => scan.lowestPending(),
      renumber: (change) => scan.renumber(change),
      blocksIn: (at, blocks) => scan.pagesIn(at, blocks),
    };
  }
  const parallel =
    allocation !== null && allocation.position !== undefined && allocation.renumber !== undefined;
  const warpable = processes !== null && (serial !== null || parallel);
  return {
    table,
    stats,
    line,
    warpable,
    limits: () => allocation?.warpLimits?.() ?? NO_LIMITS,
    position() {
      if (serial !== null) return serial.position(processes!.members[0]!.cur);
      return allocation?.position?.() ?? null;
    },
    lowestPending() {
      const pos = this.position();
      if (pos === null) return 0;
      let lowest = pos.counter;
      for (const m of processes?.members ?? []) {
        if (m.remaining === 0) continue;
        const c = (m.cur - pos.startBlock + pos.nblocks) % pos.nblocks;
        if (c < lowest) lowest = c;
      }
      return lowest;
    },
    renumber(change) {
      if (serial !== null) serial.renumber(change);
      else allocation!.renumber!(change);
      processes?.renumber(change);
    },
  };
}
