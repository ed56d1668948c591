/**
 * Shared buffers and the BAS_BULKREAD ring, as worked examples from
 * apps/docs/src/reference/buffer-ring.md#ring-replacement and freelist.c: small pools (16-64 buffers)
 * whose clock sweep can be followed buffer by buffer.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BufferRing } from "./ring.js";
import { BM_MAX_USAGE_COUNT, SharedBuffers } from "./shared-buffers.js";

/** Installs `block` of `table` alone (one miss, no ring). */
function miss(sb: SharedBuffers, table: number, block: number, validAtUs = 0): void {
  sb.installRun(table, block, 1, null, validAtUs);
}

function resident(sb: SharedBuffers, table: number, nblocks: number): number[] {
  const out: number[] = [];
  for (let b = 0; b < nblocks; b++) if (sb.isResident(table, b)) out.push(b);
  return out;
}

/**
 * Fills a 16-buffer pool with blocks 0..15 of table 0 (buffer i holds block i,
 * usage 1, hand back at buffer 0), lets `touch` hit some of them, then misses
 * on fresh blocks of table 1 one at a time and returns the order in which
 * table 0's blocks were evicted.
 */
function evictionOrder(touch: (sb: SharedBuffers) => void): number[] {
  const sb = new SharedBuffers({ nBuffers: 16, relationBlocks: [16, 1000] });
  sb.installRun(0, 0, 16, null, 0);
  touch(sb);
  const order: number[] = [];
  let before = resident(sb, 0, 16);
  for (let fresh = 0; before.length > 0 && fresh < 200; fresh++) {
    miss(sb, 1, fresh);
    const after = resident(sb, 0, 16);
    for (const b of before) if (!after.includes(b)) order.push(b);
    before = after;
  }
  return order;
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe("SharedBuffers: the clock sweep", () => {
  it("an empty pool takes free buffers without evicting anything", () => {
    const sb = new SharedBuffers({ nBuffers: 16, relationBlocks: [100] });
    sb.installRun(0, 0, 16, null, 0);
    expect(sb.residentCount(0)).toBe(16);
    expect(sb.evictions).toBe(0);
    expect(sb.misses).toBe(16);
    expect(sb.firstUses).toBe(16);
  });

  it("a buffer's memory is touched for the first time once: a full pool's misses evict and count no first use", () => {
    const sb = new SharedBuffers({ nBuffers: 16, relationBlocks: [100] });
    sb.installRun(0, 0, 10, null, 0);
    expect(sb.firstUses).toBe(10);
    sb.installRun(0, 10, 40, null, 0);
    // 6 more free buffers, then 34 evictions of buffers already used.
    expect(sb.firstUses).toBe(16);
    expect(sb.evictions).toBe(34);
  });

  it("with every buffer at usage 1, one pass of the hand brings all to 0 and takes the buffer it started at", () => {
    const sb = new SharedBuffers({ nBuffers: 16, relationBlocks: [16, 100] });
    sb.installRun(0, 0, 16, null, 0);
    miss(sb, 1, 0);
    expect(resident(sb, 0, 16)).toEqual(range(1, 16));
    expect(sb.evictions).toBe(1);
    // The pass left buffers 1..15 at usage 0: the next miss takes buffer 1 at once.
    miss(sb, 1, 1);
    expect(resident(sb, 0, 16)).toEqual(range(2, 16));
    expect(sb.evictions).toBe(2);
  });

  it("untouched buffers leave in hand order", () => {
    expect(evictionOrder(() => {})).toEqual(range(0, 16));
  });

  it("a normal hit raises usage by one: each hit survives one more pass of the hand", () => {
    // Block 0 at usage 3, block 1 at usage 2. Miss 1: the pass leaves 2 and 1, the second pass
    // 1 and 0 and takes buffer 2. The fresh blocks in 2..15 come back at usage 1, so the third
    // pass takes block 1 (at 0) and the fourth block 0.
    const order = evictionOrder((sb) => {
      sb.hit(0, 0, false);
      sb.hit(0, 0, false);
      sb.hit(0, 1, false);
    });
    expect(order).toEqual([...range(2, 16), 1, 0]);
  });

  it("a buffer the hand brought to 0 that is hit again gets a second chance", () => {
    const sb = new SharedBuffers({ nBuffers: 16, relationBlocks: [16, 100] });
    sb.installRun(0, 0, 16, null, 0);
    miss(sb, 1, 0); // evicts block 0; blocks 1..15 now at usage 0
    sb.hit(0, 5, false); // 0 -> 1
    for (let b = 1; b <= 5; b++) miss(sb, 1, b);
    // Misses took blocks 1, 2, 3, 4, then passed block 5 (1 -> 0) and took block 6.
    expect(resident(sb, 0, 16)).toEqual([5, ...range(7, 16)]);
  });

  it("usage counts stop at BM_MAX_USAGE_COUNT (5, buf_internals.h): ten hits protect no longer than four", () => {
    expect(BM_MAX_USAGE_COUNT).toBe(5);
    // Block 0 hit 10 times and block 1 hit 4 times are both at 5. With equal counts the hand
    // reaches block 0 first; were block 0 at 11 it would outlive block 1.
    const order = evictionOrder((sb) => {
      for (let i = 0; i < 10; i++) sb.hit(0, 0, false);
      for (let i = 0; i < 4; i++) sb.hit(0, 1, false);
    });
    expect(order).toEqual([...range(2, 16), 0, 1]);
  });

  it("one hit short of the cap is evicted first, whatever its position", () => {
    const order = evictionOrder((sb) => {
      for (let i = 0; i < 4; i++) sb.hit(0, 0, false); // usage 5
      for (let i = 0; i < 3; i++) sb.hit(0, 1, false); // usage 4
    });
    expect(order).toEqual([...range(2, 16), 1, 0]);
  });

  it("a hit through a strategy never raises usage above 1", () => {
    const order = evictionOrder((sb) => {
      for (let i = 0; i < 5; i++) sb.hit(0, 3, true);
    });
    expect(order).toEqual(range(0, 16));
  });

  it("a hit through a strategy raises usage from 0 to 1", () => {
    const sb = new SharedBuffers({ nBuffers: 16, relationBlocks: [16, 100] });
    sb.installRun(0, 0, 16, null, 0);
    miss(sb, 1, 0); // evicts block 0; blocks 1..15 at usage 0
    sb.hit(0, 2, true);
    const order: number[] = [];
    let before = resident(sb, 0, 16);
    for (let fresh = 1; before.length > 0; fresh++) {
      miss(sb, 1, fresh);
      const after = resident(sb, 0, 16);
      for (const b of before) if (!after.includes(b)) order.push(b);
      before = after;
    }
    // Block 2 is passed once (1 -> 0) and goes last.
    expect(order).toEqual([1, ...range(3, 16), 2]);
  });
});

describe("SharedBuffers: hits and validity", () => {
  it("a hit returns when the buffer is valid: a hit on a buffer still being read waits for that read", () => {
    const sb = new SharedBuffers({ nBuffers: 16, relationBlocks: [100] });
    sb.installRun(0, 0, 4, null, 500);
    sb.installRun(0, 4, 2, null, 900);
    expect(sb.hit(0, 2, false)).toBe(500);
    expect(sb.hit(0, 5, true)).toBe(900);
    expect(sb.hits).toBe(2);
  });

  it("a buffer reused for another block takes that block's read completion", () => {
    const sb = new SharedBuffers({ nBuffers: 16, relationBlocks: [16, 100] });
    sb.installRun(0, 0, 16, null, 100);
    miss(sb, 1, 7, 2500); // takes buffer 0
    expect(sb.hit(1, 7, false)).toBe(2500);
    expect(sb.hit(0, 1, false)).toBe(100);
  });

  it("a hit on a block that is not resident returns -Infinity and counts nothing", () => {
    const sb = new SharedBuffers({ nBuffers: 16, relationBlocks: [100] });
    sb.installRun(0, 0, 4, null, 0);
    expect(sb.hit(0, 50, false)).toBe(Number.NEGATIVE_INFINITY);
    expect(sb.hits).toBe(0);
  });
});

describe("SharedBuffers: the BAS_BULKREAD ring", () => {
  it("a ring scan recycles its own buffers and leaves the rest of the pool alone", () => {
    const sb = new SharedBuffers({ nBuffers: 64, relationBlocks: [32, 100] });
    sb.installRun(0, 0, 32, null, 0);
    const ring = new BufferRing(4);
    for (let b = 0; b < 100; b++) sb.installRun(1, b, 1, ring, 0);
    expect(sb.residentCount(0)).toBe(32);
    expect(resident(sb, 1, 100)).toEqual([96, 97, 98, 99]);
    expect(sb.evictions).toBe(96); // every miss after the first four reuses a ring slot
    expect(sb.misses).toBe(132);
    expect(sb.firstUses).toBe(36); // the other table's 32 and the ring's 4

    // The same scan without a ring pushes the other table out.
    const plain = new SharedBuffers({ nBuffers: 64, relationBlocks: [32, 100] });
    plain.installRun(0, 0, 32, null, 0);
    for (let b = 0; b < 100; b++) miss(plain, 1, b);
    expect(plain.residentCount(0)).toBe(0);
    expect(plain.residentCount(1)).toBe(64);
  });

  it("the ring fills its empty slots from the clock sweep", () => {
    // Buffers 0..11 hold table 0; the clock hand is at 12, so the ring's four slots get 12..15.
    const sb = new SharedBuffers({ nBuffers: 16, relationBlocks: [12, 100] });
    sb.installRun(0, 0, 12, null, 0);
    const ring = new BufferRing(4);
    for (let b = 0; b < 4; b++) sb.installRun(1, b, 1, ring, 0);
    expect([...ring.slots]).toEqual([12, 13, 14, 15]);
    expect(ring.cursor).toBe(3);
    expect(sb.evictions).toBe(0);
  });

  it("a slot whose buffer was hit normally (usage 2) is replaced by a new victim; usage 1 is reused", () => {
    const sb = new SharedBuffers({ nBuffers: 64, relationBlocks: [100] });
    const ring = new BufferRing(4);
    for (let b = 0; b < 4; b++) sb.installRun(0, b, 1, ring, 0); // buffers 0..3
    sb.hit(0, 1, false); // usage 2: another backend wants it
    sb.hit(0, 2, true); // usage stays 1
    for (let b = 4; b < 8; b++) sb.installRun(0, b, 1, ring, 0);
    expect(resident(sb, 0, 100)).toEqual([1, 4, 5, 6, 7]);
    expect([...ring.slots]).toEqual([0, 4, 2, 3]);
    expect(sb.evictions).toBe(3);
    // Block 1's buffer has left the ring: the next lap does not touch it.
    for (let b = 8; b < 12; b++) sb.installRun(0, b, 1, ring, 0);
    expect(resident(sb, 0, 100)).toEqual([1, 8, 9, 10, 11]);
  });

  it("a slot whose buffer the clock sweep brought to 0 is reused (usage <= 1)", () => {
    const sb = new SharedBuffers({ nBuffers: 16, relationBlocks: [13, 100] });
    sb.installRun(0, 0, 12, null, 0); // buffers 0..11
    const ring = new BufferRing(4);
    for (let b = 0; b < 4; b++) sb.installRun(1, b, 1, ring, 0); // buffers 12..15
    miss(sb, 0, 12); // a full pass: every buffer to 0, takes buffer 0 (block 0)
    sb.installRun(1, 4, 1, ring, 0);
    // Slot 0 (buffer 12, usage 0) was reused: table 0 loses nothing more.
    expect(resident(sb, 0, 13)).toEqual(range(1, 13));
    expect(resident(sb, 1, 100)).toEqual([1, 2, 3, 4]);
    expect(ring.slots[0]).toBe(12);
  });

  it("installRun through a ring keeps only the last ring.size blocks of the run resident", () => {
    const sb = new SharedBuffers({ nBuffers: 1024, relationBlocks: [1000] });
    const ring = new BufferRing(32);
    sb.installRun(0, 0, 1000, ring, 0);
    expect(sb.firstResident(0, 0, 1000)).toBe(968);
    expect(resident(sb, 0, 1000)).toEqual(range(968, 1000));
    expect(sb.residentCount(0)).toBe(32);
    expect(sb.misses).toBe(1000);
    // Blocks that passed through the ring within the run never held a buffer (the documented approximation).
    expect(sb.evictions).toBe(0);
  });

  it("a run shorter than the ring keeps all its blocks and the ring's older ones", () => {
    const sb = new SharedBuffers({ nBuffers: 256, relationBlocks: [1000] });
    const ring = new BufferRing(8);
    sb.installRun(0, 0, 6, ring, 0);
    sb.installRun(0, 6, 5, ring, 0);
    expect(resident(sb, 0, 1000)).toEqual(range(3, 11));
  });

  it("installing runs through a ring leaves the same blocks resident as installing them one by one", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.array(fc.integer({ min: 1, max: 90 }), { minLength: 1, maxLength: 12 }),
        (ringSize, runs) => {
          const total = runs.reduce((a, b) => a + b, 0);
          const byRun = new SharedBuffers({ nBuffers: 256, relationBlocks: [total] });
          const byBlock = new SharedBuffers({ nBuffers: 256, relationBlocks: [total] });
          const ringA = new BufferRing(ringSize);
          const ringB = new BufferRing(ringSize);
          let start = 0;
          for (const n of runs) {
            byRun.installRun(0, start, n, ringA, 0);
            for (let i = 0; i < n; i++) byBlock.installRun(0, start + i, 1, ringB, 0);
            start += n;
          }
          expect(resident(byRun, 0, total)).toEqual(resident(byBlock, 0, total));
          expect(resident(byRun, 0, total)).toEqual(range(Math.max(0, total - ringSize), total));
          expect(byRun.misses).toBe(total);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("SharedBuffers: residency queries", () => {
  it("firstResident finds the first resident block in [start, end), across 32-bit word boundaries", () => {
    const sb = new SharedBuffers({ nBuffers: 64, relationBlocks: [2000, 2000] });
    for (const b of [5, 31, 32, 63, 64, 1000]) miss(sb, 0, b);
    miss(sb, 1, 7);
    expect(sb.firstResident(0, 0, 2000)).toBe(5);
    expect(sb.firstResident(0, 6, 2000)).toBe(31);
    expect(sb.firstResident(0, 32, 2000)).toBe(32);
    expect(sb.firstResident(0, 33, 63)).toBe(-1); // end is exclusive
    expect(sb.firstResident(0, 33, 64)).toBe(63);
    expect(sb.firstResident(0, 64, 65)).toBe(64);
    expect(sb.firstResident(0, 65, 1000)).toBe(-1);
    expect(sb.firstResident(0, 65, 1001)).toBe(1000);
    expect(sb.firstResident(0, 10, 10)).toBe(-1);
    expect(sb.firstResident(1, 0, 2000)).toBe(7); // tables are separate
    expect(sb.firstResident(1, 8, 2000)).toBe(-1);
  });

  it("firstResident works across block 2^31 and up to the largest block number, 2^32 - 2", () => {
    // Block numbers are unsigned 32-bit (BlockNumber, src/include/storage/block.h): a scan past
    // 2^31 must neither wrap to a negative number nor start over at block 0. The bitset of a
    // 2^32-block table is 512 MB of untouched (lazily zeroed) memory.
    const nblocks = 0xfffffffe;
    const sb = new SharedBuffers({ nBuffers: 64, relationBlocks: [nblocks] });
    miss(sb, 0, 10); // a resident block near the start, where a wrapped walk would land
    expect(sb.firstResident(0, 2 ** 31 - 64, 2 ** 31 + 2 ** 18)).toBe(-1);
    miss(sb, 0, 2 ** 31 + 5);
    expect(sb.firstResident(0, 2 ** 31 - 64, 2 ** 31 + 2 ** 18)).toBe(2 ** 31 + 5);
    expect(sb.firstResident(0, 2 ** 31 + 6, 2 ** 31 + 2 ** 18)).toBe(-1);
    miss(sb, 0, nblocks - 1);
    expect(sb.firstResident(0, 2 ** 32 - 2 ** 20, nblocks)).toBe(nblocks - 1);
    expect(sb.firstResident(0, 2 ** 32 - 2 ** 20, nblocks - 1)).toBe(-1);
    expect(sb.isResident(0, nblocks - 1)).toBe(true);
  });

  it("isResident and firstResident follow evictions", () => {
    const sb = new SharedBuffers({ nBuffers: 16, relationBlocks: [100] });
    sb.installRun(0, 0, 16, null, 0);
    expect(sb.isResident(0, 0)).toBe(true);
    miss(sb, 0, 40); // evicts block 0
    expect(sb.isResident(0, 0)).toBe(false);
    expect(sb.isResident(0, 40)).toBe(true);
    expect(sb.firstResident(0, 0, 100)).toBe(1);
    expect(sb.firstResident(0, 16, 100)).toBe(40);
  });

  it("firstResident agrees with a block-by-block isResident scan", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 299 }), { maxLength: 40 }),
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 0, max: 300 }),
        (blocks, a, b) => {
          const sb = new SharedBuffers({ nBuffers: 64, relationBlocks: [300] });
          for (const x of blocks) miss(sb, 0, x);
          const [start, end] = a <= b ? [a, b] : [b, a];
          let expected = -1;
          for (let x = start; x < end; x++)
            if (sb.isResident(0, x)) {
              expected = x;
              break;
            }
          expect(sb.firstResident(0, start, end)).toBe(expected);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("residentCount counts the buffers of each table", () => {
    const sb = new SharedBuffers({ nBuffers: 16, relationBlocks: [100, 100, 100] });
    sb.installRun(0, 0, 10, null, 0);
    sb.installRun(2, 50, 6, null, 0);
    expect([sb.residentCount(0), sb.residentCount(1), sb.residentCount(2)]).toEqual([10, 0, 6]);
    sb.installRun(1, 0, 3, null, 0); // evicts blocks 0..2 of table 0
    expect([sb.residentCount(0), sb.residentCount(1), sb.residentCount(2)]).toEqual([7, 3, 6]);
    expect(sb.evictions).toBe(3);
    expect(resident(sb, 0, 100)).toEqual(range(3, 10));
  });
});
