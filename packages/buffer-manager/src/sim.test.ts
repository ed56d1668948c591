/**
 * The pool's side of the renumbering protocol (`renumberBuffers`): buffers
 * keep their place, usage count and valid-at time under their blocks' new
 * numbers, and a pool that would have to forget a block refuses.
 */
import { cutStretch, restoreStretch } from "@scanlab/core/sim";
import { describe, expect, it } from "vitest";
import { BufferManagerError } from "./errors.js";
import { SharedBuffers } from "./shared-buffers.js";
import { renumberBuffers } from "./sim.js";

function resident(sb: SharedBuffers, relation: number, nblocks: number): number[] {
  const out: number[] = [];
  for (let b = 0; b < nblocks; b++) if (sb.isResident(relation, b)) out.push(b);
  return out;
}

describe("renumberBuffers", () => {
  it("moves the blocks after a cut down by its length, and back up on the restore", () => {
    const sb = new SharedBuffers({ nBuffers: 16, relationBlocks: [1000, 1000] });
    sb.installRun(0, 10, 2, null, 100);
    sb.installRun(0, 700, 3, null, 200);
    sb.installRun(1, 700, 1, null, 300);
    renumberBuffers(sb, cutStretch(0, 1000, 100, 500));
    expect(resident(sb, 0, 500)).toEqual([10, 11, 200, 201, 202]);
    expect(resident(sb, 1, 1000)).toEqual([700]); // another relation keeps its numbers
    expect(sb.hit(0, 201, false)).toBe(200); // valid-at times travel with the buffers
    renumberBuffers(sb, restoreStretch(0, 500, 100, 500));
    expect(resident(sb, 0, 1000)).toEqual([10, 11, 700, 701, 702]);
    expect(sb.residentCount(0)).toBe(5);
    expect([sb.hits, sb.misses, sb.evictions]).toEqual([1, 6, 0]);
  });

  it("keeps the clock: after renumbering, the same buffers leave in the same order", () => {
    const order = (renumber: boolean) => {
      const sb = new SharedBuffers({ nBuffers: 16, relationBlocks: [1000, 100] });
      sb.installRun(0, 900, 16, null, 0);
      sb.hit(0, 903, false); // usage 2: survives one more pass
      if (renumber) renumberBuffers(sb, cutStretch(0, 1000, 0, 800));
      const base = renumber ? 100 : 900;
      const out: number[] = [];
      for (let b = 0; b < 16; b++) {
        const before = resident(sb, 0, 1000);
        sb.installRun(1, b, 1, null, 0);
        for (const x of before) if (!sb.isResident(0, x)) out.push(x - base);
      }
      return out;
    };
    expect(order(true)).toEqual(order(false));
    expect(order(true).at(-1)).toBe(3);
  });

  it("refuses a cut of a block still in the pool, a relation it does not hold, and a pool of another kind", () => {
    const sb = new SharedBuffers({ nBuffers: 16, relationBlocks: [1000] });
    sb.installRun(0, 150, 1, null, 0);
    expect(() => renumberBuffers(sb, cutStretch(0, 1000, 100, 500))).toThrow(
      "block 150 of relation 0 is in shared buffers but cut out.",
    );
    expect(() => renumberBuffers(sb, cutStretch(3, 1000, 100, 500))).toThrow(BufferManagerError);
    const fake = Object.create(null) as SharedBuffers;
    expect(() => renumberBuffers(fake, cutStretch(0, 1000, 100, 500))).toThrow(
      "the pool was not made by this package's SharedBuffers.",
    );
  });
});

describe("new SharedBuffers", () => {
  it("refuses a pool PostgreSQL would not start with, and relations past 2^32 - 1 blocks", () => {
    const failure = (code: string) => expect.objectContaining({ name: "BufferManagerError", code });
    const pool = (nBuffers: number, relationBlocks: number[]) => () =>
      new SharedBuffers({ nBuffers, relationBlocks });
    expect(pool(15, [])).toThrow(failure("BUFFER_MANAGER_BAD_NBUFFERS"));
    expect(pool(16.5, [])).toThrow(failure("BUFFER_MANAGER_BAD_NBUFFERS"));
    expect(pool(16, [10, -1])).toThrow(failure("BUFFER_MANAGER_BAD_RELATION_BLOCKS"));
    expect(pool(16, [2 ** 32])).toThrow(failure("BUFFER_MANAGER_BAD_RELATION_BLOCKS"));
    expect(() => new SharedBuffers({ nBuffers: 16, relationBlocks: [10, -1] })).toThrow(
      "relationBlocks[1] must be a whole number from 0 to 4294967295 (MaxBlockNumber + 1), got -1.",
    );
    expect(new SharedBuffers({ nBuffers: 16, relationBlocks: [0] }).residentCount(0)).toBe(0);
  });
});
