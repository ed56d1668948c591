import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Extent, ExtentList } from "./extent-list.js";

/** The answer findLE must give, by a walk of the bottom level. */
function linearFindLE(list: ExtentList, page: number): Extent | null {
  let best: Extent | null = null;
  for (let e = list.first(); e !== null; e = e.next[0] ?? null) if (e.start <= page) best = e;
  return best;
}

describe("ExtentList: lookups through the finger agree with a walk", () => {
  it("after any mix of inserts, removals and lookups in any order (property)", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ op: fc.constant("insert" as const), slot: fc.integer({ min: 0, max: 63 }) }),
            fc.record({ op: fc.constant("remove" as const), slot: fc.integer({ min: 0, max: 63 }) }),
            fc.record({ op: fc.constant("find" as const), page: fc.integer({ min: -5, max: 700 }) }),
          ),
          { maxLength: 300 },
        ),
        (ops) => {
          const list = new ExtentList();
          // Slot k holds pages [10k, 10k + 5): extents never overlap.
          const bySlot = new Map<number, Extent>();
          for (const o of ops) {
            if (o.op === "insert" && !bySlot.has(o.slot)) {
              const e = new Extent(1, 10 * o.slot, 10 * o.slot + 5, 0, 0, -1);
              list.insert(e);
              bySlot.set(o.slot, e);
            } else if (o.op === "remove" && bySlot.has(o.slot)) {
              list.remove(bySlot.get(o.slot)!);
              bySlot.delete(o.slot);
            } else if (o.op === "find") {
              expect(list.findLE(o.page)).toBe(linearFindLE(list, o.page));
              const inside = list.find(o.page);
              expect(inside === null || (inside.start <= o.page && o.page < inside.end)).toBe(true);
            }
          }
          expect(list.size).toBe(bySlot.size);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a forward walk of lookups, the readers' pattern, gives each extent in turn", () => {
    const list = new ExtentList();
    for (let k = 0; k < 100; k++) list.insert(new Extent(1, 8 * k, 8 * k + 4, 0, 0, -1));
    for (let page = 0; page < 800; page++) expect(list.findLE(page)!.start).toBe(8 * Math.floor(page / 8));
  });
});
