/**
 * A serial scan's block order (heapam.c initscan / heapgettup_advance_block,
 * postgres.md 2.4): start at the syncscan location (or 0), run to the end of
 * the table, wrap to block 0, stop before the start block. Two claims at
 * most, and no shared-memory cost: a serial scan owns its position.
 *
 * The end-of-scan report: a serial scan reports block b+1 (wrapped) after
 * finishing block b, before its end test, so the last report of a complete
 * scan is its own start block and repeated full scans do not drift. The
 * engine makes that report when the last claim runs out (`onEnd`).
 */
import type { AllocatorParticipant, Claim } from "./ports.js";

/** The serial scan of an `nblocks`-block table from `startBlock`. */
export class SerialAllocation implements AllocatorParticipant {
  private step = 0;
  constructor(
    private readonly nblocks: number,
    private readonly startBlock: number,
    private readonly onEnd: (startBlock: number) => void,
  ) {}

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
