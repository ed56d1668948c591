/**
 * The renumbering protocol: a cut and the restore of the same stretch are
 * inverses on every block outside the stretch, and segments move whole.
 */
import { describe, expect, it } from "vitest";
import { cutStretch, renumberSegment, restoreStretch } from "../src/sim.js";

describe("cutStretch and restoreStretch", () => {
  it("moves blocks after the stretch by its length and sends the stretch to its end", () => {
    const cut = cutStretch(3, 1000, 200, 300);
    expect([cut.map(0), cut.map(199), cut.map(200), cut.map(499), cut.map(500), cut.map(999)]).toEqual([
      0, 199, 200, 200, 200, 699,
    ]);
    expect([cut.mapEnd(200), cut.mapEnd(300), cut.mapEnd(500), cut.mapEnd(1000)]).toEqual([
      200, 200, 200, 700,
    ]);
    expect(cut).toMatchObject({ relation: 3, kind: "cut", oldNblocks: 1000, nblocks: 700 });
  });

  it("undoes a cut with a restore at the same place", () => {
    const cut = cutStretch(0, 1000, 200, 300);
    const back = restoreStretch(0, cut.nblocks, 200, 300);
    expect(back.nblocks).toBe(1000);
    for (const b of [0, 100, 199, 500, 750, 999]) expect(back.map(cut.map(b))).toBe(b);
  });

  it("refuses a stretch that does not fit the relation", () => {
    expect(() => cutStretch(0, 100, 50, 51)).toThrow(RangeError);
    expect(() => cutStretch(0, 100, 10, 0)).toThrow(RangeError);
    expect(() => restoreStretch(0, 100, 101, 5)).toThrow(RangeError);
  });
});

describe("renumberSegment", () => {
  it("drops the cut segments and moves the later ones down", () => {
    const cut = cutStretch(0, 10 * 128, 2 * 128, 3 * 128);
    expect([0, 1, 2, 3, 4, 5, 9].map((s) => renumberSegment(cut, 128, s))).toEqual([0, 1, -1, -1, -1, 2, 6]);
    const back = restoreStretch(0, cut.nblocks, 2 * 128, 3 * 128);
    expect([0, 1, 2, 6].map((s) => renumberSegment(back, 128, s))).toEqual([0, 1, 5, 9]);
  });

  it("refuses a stretch that splits a segment", () => {
    expect(() => renumberSegment(cutStretch(0, 1024, 100, 128), 128, 0)).toThrow(RangeError);
  });
});
