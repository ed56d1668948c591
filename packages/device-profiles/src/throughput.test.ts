import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { builtinProfiles } from "./builtin-profiles.js";
import { throughputAt } from "./throughput.js";

const profiles = builtinProfiles();

describe("throughputAt, properties over every built-in", () => {
  it("obeys Little's law: queue depth = IOPS x mean latency (closed loop)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: profiles.length - 1 }),
        fc.integer({ min: 1, max: 64 }),
        fc.constantFrom(4096, 8192, 131072),
        fc.constantFrom("random" as const, "sequential" as const),
        (i, q, bytes, pattern) => {
          const r = throughputAt(profiles[i]!, {
            queueDepth: q,
            requestBytes: bytes,
            pattern,
            requests: 3000,
          });
          const inFlight = (r.iops * r.meanLatencyUs) / 1e6;
          return Math.abs(inFlight / q - 1) < 0.02;
        },
      ),
      { numRuns: 60 },
    );
  });

  it("never delivers less with more reads in flight, and saturates (random 4 KiB reads)", () => {
    for (const p of profiles) {
      let previous = 0;
      for (const q of [1, 2, 4, 8, 16, 32, 64, 128, 256]) {
        const r = throughputAt(p, { queueDepth: q, requestBytes: 4096 });
        // 2 % slack: which RAID member a random read lands on varies over a finite run.
        expect(r.iops, `${p.name} QD${q}`).toBeGreaterThanOrEqual(previous * 0.98);
        previous = r.iops;
      }
      const deep = throughputAt(p, { queueDepth: 1024, requestBytes: 4096 }).iops;
      expect(deep / previous, p.name).toBeLessThan(1.05);
    }
  });

  it("is deterministic for a seed", () => {
    const p = profiles.find((x) => x.kind === "hdd")!;
    const a = throughputAt(p, { queueDepth: 4, requestBytes: 8192, seed: 9 });
    const b = throughputAt(p, { queueDepth: 4, requestBytes: 8192, seed: 9 });
    expect(a).toEqual(b);
  });
});
