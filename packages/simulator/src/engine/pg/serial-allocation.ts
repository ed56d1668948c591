/**
 * A serial scan's block order (heapam.c initscan / heapgettup_advance_block,
 * apps/docs/src/reference/synchronized-scans.md#serial-scans): start at the syncscan location (or 0), run to the end of
 * the table, wrap to block 0, stop before the start block. Two claims at
 * most, and no shared-memory cost: a serial scan owns its position.
 *
 * The end-of-scan report: a serial scan reports block b+1 (wrapped) after
 * finishing block b, before its end test, so the last report of a complete
 * scan is its own start block and repeated full scans do not drift. The
 * engine makes that report when the last claim runs out (`onEnd`).
 */
import type { AllocatorParticipant, Claim, Renumbering } from "../seam/ports.js";

/** The serial scan of an `nblocks`-block table from `startBlock`. */
export class SerialAllocation implements AllocatorParticipant {
  private step = 0;
  constructor(
    private nblocks: number,
    private startBlock: number,
    private readonly onEnd: (startBlock: number) => void,
  ) {}

  /**
   * The scan's position in counter space when its process is at block `cur`
   * (counter c is block (c + startBlock) mod nblocks; the warp's view,
   * speedups/warp.ts), or null before the first claim.
   */
  position(cur: number): { counter: number; startBlock: number; nblocks: number } | null {
    const { nblocks, startBlock, step } = this;
    if (step === 0) return null;
    if (step === 1) return { counter: cur - startBlock, startBlock, nblocks };
    if (step === 2 && startBlock > 0) return { counter: nblocks - startBlock + cur, startBlock, nblocks };
    return { counter: nblocks, startBlock, nblocks };
  }

  /** The table was renumbered (the warp, speedups/warp.ts): new size and start block; claims held are the participant's. */
  renumber(change: Renumbering): void {
    this.nblocks = change.nblocks;
    this.startBlock = change.map(this.startBlock);
  }

  next(): Claim | null {
    const { nblocks, startBlock } = this;
    for (;;) {
      const step = this.step++;
      if (step === 0) {
        if (nblocks - startBlock > 0) return { startBlock, blocks: nblocks - startBlock, op: "none" };
      } else if (step === 1) {
        if (startBlock > 0) return { startBlock: 0, blocks: startBlock, op: "none" };
      } else {
        if (step === 2 && nblocks > 0) this.onEnd(startBlock);
        return null;
      }
    }
  }
}
