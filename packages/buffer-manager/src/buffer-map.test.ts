import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BufferMap } from "./buffer-map.js";

describe("BufferMap", () => {
  it("behaves like a Map under any sequence of sets and deletes (collisions included)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 200 })), {
          maxLength: 400,
        }),
        (ops) => {
          const m = new BufferMap(64);
          const ref = new Map<string, number>();
          let v = 0;
          for (const [isSet, table, block] of ops) {
            const key = `${table}:${block}`;
            if (isSet && !ref.has(key) && ref.size < 64) {
              m.set(table, block, v);
              ref.set(key, v++);
            } else {
              m.delete(table, block);
              ref.delete(key);
            }
            for (const [k, val] of ref) {
              const [t, b] = k.split(":").map(Number);
              expect(m.get(t!, b!)).toBe(val);
            }
            expect(m.size).toBe(ref.size);
          }
          expect(m.get(9, 9)).toBe(-1);
        },
      ),
      { numRuns: 60 },
    );
  });
});
