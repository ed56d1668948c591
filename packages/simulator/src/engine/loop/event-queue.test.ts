/**
 * The event queue: earliest time first, ties in insertion order (the rule
 * that makes a run deterministic), whatever the heap's layout and growth.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EventQueue } from "./event-queue.js";

function drain(q: EventQueue): { id: number; t: number }[] {
  const out: { id: number; t: number }[] = [];
  while (q.size > 0) {
    const id = q.pop();
    out.push({ id, t: q.lastTime });
  }
  return out;
}

describe("EventQueue", () => {
  it("an empty queue: size 0, peekTime Infinity, pop -1", () => {
    const q = new EventQueue();
    expect(q.size).toBe(0);
    expect(q.peekTime()).toBe(Number.POSITIVE_INFINITY);
    expect(q.pop()).toBe(-1);
  });

  it("pops the earliest time first and reports it in lastTime", () => {
    const q = new EventQueue();
    q.push(30, 1);
    q.push(10, 2);
    q.push(20, 3);
    q.push(0.5, 4);
    expect(q.size).toBe(4);
    expect(q.peekTime()).toBe(0.5);
    expect(drain(q)).toEqual([
      { id: 4, t: 0.5 },
      { id: 2, t: 10 },
      { id: 3, t: 20 },
      { id: 1, t: 30 },
    ]);
    expect(q.peekTime()).toBe(Number.POSITIVE_INFINITY);
  });

  it("ties fire in the order they were pushed, not by id", () => {
    const q = new EventQueue();
    for (const id of [7, 3, 9, 1, 5, 0, 8, 2, 6, 4]) q.push(100, id);
    expect(drain(q).map((e) => e.id)).toEqual([7, 3, 9, 1, 5, 0, 8, 2, 6, 4]);
  });

  it("a tie pushed after some pops still goes behind the earlier ones at that time", () => {
    const q = new EventQueue(4);
    q.push(5, 0);
    q.push(5, 1);
    q.push(1, 2);
    q.push(5, 3);
    expect(q.pop()).toBe(2);
    expect(q.pop()).toBe(0);
    q.push(5, 4); // later than 1 and 3
    q.push(5, 5);
    expect(drain(q).map((e) => e.id)).toEqual([1, 3, 4, 5]);
  });

  it("a queue built with capacity 0 still keeps its events (doubling 0 would never grow it)", () => {
    const q = new EventQueue(0);
    q.push(5, 1);
    q.push(3, 2);
    expect(q.peekTime()).toBe(3);
    expect(q.pop()).toBe(2);
    expect(q.lastTime).toBe(3);
    expect(q.pop()).toBe(1);
  });

  it("grows past its initial capacity without losing events", () => {
    const q = new EventQueue(2);
    for (let i = 0; i < 1000; i++) q.push((i * 7919) % 1000, i);
    expect(q.size).toBe(1000);
    const out = drain(q);
    expect(out).toHaveLength(1000);
    for (let i = 1; i < out.length; i++) expect(out[i]!.t).toBeGreaterThanOrEqual(out[i - 1]!.t);
    expect(new Set(out.map((e) => e.id)).size).toBe(1000);
  });

  it("ties keep their insertion order across the heap's growth", () => {
    const q = new EventQueue(1);
    for (let id = 0; id < 200; id++) q.push(id % 3, id);
    const expected = [0, 1, 2].flatMap((t) =>
      Array.from({ length: 200 }, (_, id) => id).filter((id) => id % 3 === t),
    );
    expect(drain(q).map((e) => e.id)).toEqual(expected);
  });

  it("matches a stable sort by time under any interleaving of pushes and pops", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            { arbitrary: fc.integer({ min: 0, max: 20 }), weight: 2 },
            { arbitrary: fc.constant(-1), weight: 1 },
          ),
          { maxLength: 300 },
        ),
        fc.integer({ min: 1, max: 8 }),
        (ops, capacity) => {
          const q = new EventQueue(capacity);
          // Reference: pending events in push order; pop takes the first with the least time.
          const ref: { t: number; id: number }[] = [];
          let nextId = 0;
          for (const op of ops) {
            if (op >= 0) {
              q.push(op, nextId);
              ref.push({ t: op, id: nextId++ });
            } else {
              let best = -1;
              for (let i = 0; i < ref.length; i++) if (best < 0 || ref[i]!.t < ref[best]!.t) best = i;
              const id = q.pop();
              if (best < 0) expect(id).toBe(-1);
              else {
                const [e] = ref.splice(best, 1);
                expect(id).toBe(e!.id);
                expect(q.lastTime).toBe(e!.t);
              }
            }
            expect(q.size).toBe(ref.length);
            expect(q.peekTime()).toBe(
              ref.length ? Math.min(...ref.map((e) => e.t)) : Number.POSITIVE_INFINITY,
            );
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
