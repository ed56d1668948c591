/**
 * The event loop: entities fire in time order (ties in scheduling order),
 * the clock never goes backwards, a run stops at its end time, and an
 * entity may carry on within its wake-up only while nobody else could act.
 */
import { describe, expect, it } from "vitest";
import { type Entity, Scheduler } from "./scheduler.js";

/** An entity that records (name, time) on each fire and then runs `then`. */
function recorder(log: [string, number][], name: string, then?: (nowUs: number) => void): Entity {
  return {
    fire(nowUs) {
      log.push([name, nowUs]);
      then?.(nowUs);
    },
  };
}

describe("Scheduler", () => {
  it("fires entities in time order, with nowUs at each event's time", () => {
    const s = new Scheduler();
    const log: [string, number][] = [];
    const seen: number[] = [];
    const a = s.add(recorder(log, "a", () => seen.push(s.nowUs)));
    const b = s.add(recorder(log, "b", () => seen.push(s.nowUs)));
    expect([a, b]).toEqual([0, 1]);
    s.schedule(a, 30);
    s.schedule(b, 10);
    s.schedule(a, 20);
    s.run();
    expect(log).toEqual([
      ["b", 10],
      ["a", 20],
      ["a", 30],
    ]);
    expect(seen).toEqual([10, 20, 30]);
    expect(s.nowUs).toBe(30);
    expect(s.events).toBe(3);
  });

  it("entities scheduled at the same time fire in the order they were scheduled, not by id", () => {
    const s = new Scheduler();
    const log: [string, number][] = [];
    const ids = ["p0", "p1", "p2", "p3"].map((n) => s.add(recorder(log, n)));
    for (const i of [2, 0, 3, 1]) s.schedule(ids[i]!, 50);
    s.run();
    expect(log.map(([n]) => n)).toEqual(["p2", "p0", "p3", "p1"]);
  });

  it("an entity that reschedules itself keeps its place behind events already due at that time", () => {
    const s = new Scheduler();
    const log: [string, number][] = [];
    let a = -1;
    a = s.add(recorder(log, "a", (t) => t < 20 && s.schedule(a, t + 10)));
    const b = s.add(recorder(log, "b"));
    s.schedule(a, 0);
    s.schedule(b, 10); // scheduled before a's second wake-up at 10
    s.run();
    expect(log).toEqual([
      ["a", 0],
      ["b", 10],
      ["a", 10],
      ["a", 20],
    ]);
  });

  it("scheduling in the past wakes the entity now: time never goes backwards", () => {
    const s = new Scheduler();
    const log: [string, number][] = [];
    const late = s.add(recorder(log, "late"));
    const a = s.add(recorder(log, "a", () => s.schedule(late, 5)));
    s.schedule(a, 100);
    s.run();
    expect(log).toEqual([
      ["a", 100],
      ["late", 100],
    ]);
  });

  it("the fire times of a busy run never decrease", () => {
    const s = new Scheduler();
    const times: number[] = [];
    const n = 20;
    let seed = 12345;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let i = 0; i < n; i++) {
      const id = s.add({
        fire(nowUs) {
          times.push(nowUs);
          // Sometimes in the past, sometimes now, mostly ahead.
          if (times.length < 5000) s.schedule(id, nowUs + (rand() * 20 - 4));
        },
      });
      s.schedule(id, rand() * 10);
    }
    s.run();
    expect(times.length).toBeGreaterThan(4000);
    for (let i = 1; i < times.length; i++) expect(times[i]!).toBeGreaterThanOrEqual(times[i - 1]!);
  });

  it("run refuses to go back in time when an entity advanced the clock past a pending event", () => {
    const s = new Scheduler();
    const log: [string, number][] = [];
    const b = s.add(recorder(log, "b"));
    const a = s.add(recorder(log, "a", () => s.advanceTo(100))); // ignores canContinue
    s.schedule(a, 0);
    s.schedule(b, 50);
    expect(() => s.run()).toThrow(/time went backwards: 50 < 100/);
  });

  it("advanceTo only moves the clock forward", () => {
    const s = new Scheduler();
    s.advanceTo(40);
    expect(s.nowUs).toBe(40);
    s.advanceTo(10);
    expect(s.nowUs).toBe(40);
    // A later schedule below the clock is clamped to it.
    const log: [string, number][] = [];
    s.schedule(s.add(recorder(log, "x")), 5);
    s.run();
    expect(log).toEqual([["x", 40]]);
  });

  it("canContinue: only strictly before the next event (which was scheduled first and wins a tie)", () => {
    const s = new Scheduler();
    const other = s.add(recorder([], "other"));
    expect(s.canContinue(1e12)).toBe(true); // nothing scheduled, no end
    s.schedule(other, 50);
    expect(s.canContinue(49.999)).toBe(true);
    expect(s.canContinue(50)).toBe(false);
    expect(s.canContinue(60)).toBe(false);
  });

  it("nextEventUs: the next event, Infinity when there is none", () => {
    const s = new Scheduler();
    expect(s.nextEventUs()).toBe(Number.POSITIVE_INFINITY);
    s.schedule(s.add(recorder([], "x")), 75);
    expect(s.nextEventUs()).toBe(75);
  });

  it("within run(untilUs) an entity may continue up to the end but not past it, and nextEventUs is capped at it", () => {
    const s = new Scheduler();
    const seen: { cont100: boolean; cont101: boolean; next: number }[] = [];
    const later = s.add(recorder([], "later"));
    const a = s.add({
      fire() {
        seen.push({ cont100: s.canContinue(100), cont101: s.canContinue(100.5), next: s.nextEventUs() });
      },
    });
    s.schedule(a, 10);
    s.schedule(later, 150);
    s.run(100);
    expect(seen).toEqual([{ cont100: true, cont101: false, next: 100 }]);
  });

  it("run(untilUs) fires events at exactly untilUs, leaves later ones pending, and a later run resumes them", () => {
    const s = new Scheduler();
    const log: [string, number][] = [];
    const ids = ["a", "b", "c"].map((n) => s.add(recorder(log, n)));
    s.schedule(ids[0]!, 50);
    s.schedule(ids[1]!, 100);
    s.schedule(ids[2]!, 150);
    s.run(100);
    expect(log).toEqual([
      ["a", 50],
      ["b", 100],
    ]);
    expect(s.nowUs).toBe(100);
    expect(s.events).toBe(2);
    s.run();
    expect(log.at(-1)).toEqual(["c", 150]);
    expect(s.events).toBe(3);
    expect(s.nextEventUs()).toBe(Number.POSITIVE_INFINITY);
  });

  it("stop() from a poll ends the run at that instant: no entity carries on, no later event fires", () => {
    const s = new Scheduler();
    let id = -1;
    let fired = 0;
    // Never ends by itself, and carries on within its wake-up while nothing else is due.
    id = s.add({
      fire: (t) => {
        fired++;
        let at = t;
        for (;;) {
          at += 1;
          if (!s.canContinue(at)) {
            s.schedule(id, at);
            return;
          }
          s.advanceTo(at);
        }
      },
    });
    s.schedule(id, 0);
    let polls = 0;
    s.onPoll = () => {
      if (++polls === 3) s.stop();
    };
    s.run();
    expect(polls).toBe(3);
    expect(s.stepCount).toBe(3 * 1024 + 1); // the steps within the wake-up, and the wake-up itself
    expect(s.nowUs).toBe(3 * 1024);
    expect(fired).toBe(1); // all of it inside one wake-up: an event-counting poll would never have come
  });
});
