import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AllocatorError } from "./errors.js";
import { createParallelScan } from "./parallel-scan.js";
import { fastForwardScan } from "./sim.js";

/**
 * fastForward(k) must leave the scan exactly where k more hand-outs would
 * have: the caller accounts for blocks [next, next + k) itself, the
 * participants continue after them, and every block is still covered once.
 */
describe("fastForward", () => {
  for (const kind of ["pg96", "pg11", "batch"] as const) {
    const policy = kind === "batch" ? ({ kind, blocksPerClaim: 3 } as const) : ({ kind } as const);
    it(`${kind}: skipped blocks plus handed-out blocks cover the table exactly once`, () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 4, max: 400 }),
          fc.integer({ min: 0, max: 399 }),
          fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 20 }),
          (nblocks, startSeed, skips) => {
            const startBlock = startSeed % nblocks;
            const scan = createParallelScan(policy, { nblocks, startBlock });
            const a = scan.join();
            const b = scan.join();
            const seen = new Uint8Array(nblocks);
            const take = (run: { startBlock: number; blocks: number } | null) => {
              if (run) for (let i = 0; i < run.blocks; i++) seen[run.startBlock + i]!++;
              return run;
            };
            take(a.nextRun(1));
            for (const k of skips) {
              // A claim in progress (batch) is private to its participant: moving the counter does not touch it.
              const counter = scan.counter;
              const next = (counter + startBlock) % nblocks;
              const room = next >= startBlock ? nblocks - next - 1 : startBlock - next - 1;
              const n = Math.min(k, room, nblocks - counter - 1);
              if (n <= 0) continue;
              fastForwardScan(scan, n);
              for (let i = 0; i < n; i++) seen[next + i]!++;
              take(b.nextRun(1));
            }
            while (take(a.nextRun()) || take(b.nextRun())) {}
            expect([...seen].every((x) => x === 1)).toBe(true);
          },
        ),
        { numRuns: 150 },
      );
    });
  }

  it("refuses chunked policies, the end of the scan and the wrap", () => {
    const pg14 = createParallelScan({ kind: "pg14" }, { nblocks: 1000 });
    pg14.join().nextRun();
    expect(() => fastForwardScan(pg14, 10)).toThrow(AllocatorError);
    const s = createParallelScan({ kind: "pg11" }, { nblocks: 100, startBlock: 90 });
    s.join().nextRun();
    expect(() => fastForwardScan(s, 20)).toThrow(/wrap/);
    const t = createParallelScan({ kind: "pg11" }, { nblocks: 100 });
    t.join().nextRun();
    expect(() => fastForwardScan(t, 99)).toThrow(/end of the scan/);
    expect(() => fastForwardScan(createParallelScan({ kind: "pg11" }, { nblocks: 100 }), 1)).toThrow(
      /not started/,
    );
  });
});
