/**
 * bufmgr.c's pin entries worked by hand: eight array entries, a clock hand that
 * picks which entry moves to the overflow hash, and GetAdditionalPinLimit's
 * estimate (entries in the hash + 8), which exceeds the pins really held once
 * the array has free entries while the hash is not empty.
 */
import { describe, expect, it } from "vitest";
import { PrivateRefCount } from "./private-refcount.js";

const pinAll = (refs: PrivateRefCount, buffers: number[]) => {
  for (const b of buffers) refs.pin(b);
};

describe("PrivateRefCount", () => {
  it("assumes all 8 array entries in use, whatever is held", () => {
    const refs = new PrivateRefCount(16);
    expect(refs.estimatedPinsHeld).toBe(8);
    pinAll(refs, [1, 2, 3]);
    expect(refs.estimatedPinsHeld).toBe(8);
    pinAll(refs, [4, 5, 6, 7, 8]);
    expect(refs.overflowed).toBe(0);
    expect(refs.estimatedPinsHeld).toBe(8);
  });

  it("a ninth pin moves the entry at the clock hand to the hash", () => {
    const refs = new PrivateRefCount(16);
    pinAll(refs, [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(refs.overflowed).toBe(1);
    expect(refs.estimatedPinsHeld).toBe(9);
    // Unpinning the newest frees its array entry; the hash keeps buffer 1: 8 held, 9 estimated.
    refs.unpin(9);
    expect(refs.estimatedPinsHeld).toBe(9);
    // Unpinning buffer 1 (in the hash) brings the estimate back to the truth.
    refs.unpin(1);
    expect(refs.estimatedPinsHeld).toBe(8);
  });

  it("a second pin of a hashed buffer moves it back into the array", () => {
    const refs = new PrivateRefCount(16);
    pinAll(refs, [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    refs.unpin(9); // array entry 0 is free (reserved)
    refs.pin(1); // IncrBufferRefCount: 1 comes back into entry 0
    expect(refs.overflowed).toBe(0);
    expect(refs.pinsOn(1)).toBe(2);
    refs.unpin(1);
    expect(refs.pinsOn(1)).toBe(1);
    refs.unpin(1);
    expect(refs.pinsOn(1)).toBe(0);
  });

  it("a consumer that references the page it got keeps the hash full: the estimate drifts above the pins held", () => {
    // A read stream pinned 1..10: 1 and 2 went to the hash (clock hand at entries 0 and 1).
    const plain = new PrivateRefCount(16);
    const slot = new PrivateRefCount(16);
    for (const refs of [plain, slot]) pinAll(refs, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // The consumer gets buffer 1 and releases it.
    plain.unpin(1);
    // A tuple slot references it first (IncrBufferRefCount): 1 comes back, 3 (at the hand) goes out.
    slot.pin(1);
    slot.unpin(1);
    slot.unpin(1);
    for (const refs of [plain, slot]) expect([2, 3, 10].map((b) => refs.pinsOn(b))).toEqual([1, 1, 1]);
    expect(plain.estimatedPinsHeld).toBe(9); // 9 held, 9 estimated
    expect(slot.estimatedPinsHeld).toBe(10); // 9 held, 10 estimated
  });

  it("refuses to unpin a buffer that is not pinned, and buffer ids outside its capacity", () => {
    expect(() => new PrivateRefCount(16).unpin(7)).toThrow(/not pinned/);
    expect(() => new PrivateRefCount(16).pin(16)).toThrow(/not below 16/);
  });
});
