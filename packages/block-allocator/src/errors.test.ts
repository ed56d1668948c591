/**
 * Bad input a user can give (a relation size, a policy option, a participant
 * count, a buffer) gets an AllocatorError with a stable code and one sentence
 * naming what was wrong (apps/docs/src/reference/design.md#conventions).
 */
import { describe, expect, it } from "vitest";
import {
  AllocatorError,
  type AllocatorPolicy,
  allocateRoundRobin,
  attachSharedParallelScan,
  blocksFromSize,
  createParallelScan,
  createSharedParallelScan,
  pg14ChunkPlan,
  pg14ChunkSize,
} from "./index.js";

function errorOf(fn: () => unknown): AllocatorError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AllocatorError);
    const err = e as AllocatorError;
    expect(err.name).toBe("AllocatorError");
    expect(err.userError).toBe(true);
    // one sentence: ends with a full stop, no other sentence break, no newline
    expect(err.message).toMatch(/^[^\n]+\.$/);
    expect(err.message.slice(0, -1)).not.toMatch(/\.\s[A-Z]/);
    return err;
  }
  throw new Error("expected an AllocatorError, nothing was thrown");
}

describe("relation sizes", () => {
  for (const bad of [
    -1,
    1.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    2 ** 32,
    2 ** 40,
    "100" as unknown as number,
  ]) {
    it(`rejects nblocks ${String(bad)} in every entry point`, () => {
      for (const fn of [
        () => createParallelScan({ kind: "pg14" }, { nblocks: bad }),
        () => createSharedParallelScan({ kind: "pg11" }, { nblocks: bad }),
        () => pg14ChunkSize(bad),
        () => pg14ChunkPlan(bad),
        () => allocateRoundRobin({ kind: "pg14" }, { nblocks: bad, participants: 2 }),
      ]) {
        const e = errorOf(fn);
        expect(e.code).toBe("ALLOCATOR_BAD_NBLOCKS");
        expect(e.message).toContain("nblocks must be an integer from 0 to 4294967295");
      }
    });
  }

  it("accepts the extremes 0 and 2^32 - 1", () => {
    expect(createParallelScan({ kind: "pg14" }, { nblocks: 0 }).nblocks).toBe(0);
    expect(createParallelScan({ kind: "pg14" }, { nblocks: 2 ** 32 - 1 }).nblocks).toBe(2 ** 32 - 1);
  });

  it("parses sizes with PostgreSQL's units and rejects the rest", () => {
    expect(blocksFromSize("800GB")).toBe(104_857_600);
    expect(blocksFromSize("100 GB")).toBe(13_107_200);
    expect(blocksFromSize("10000000")).toBe(10_000_000);
    expect(blocksFromSize("1kB")).toBe(1); // a partial block rounds up: relations are whole blocks
    expect(blocksFromSize("1.5 MB")).toBe(192);
    for (const bad of ["-5", "1.5", "ten", "", "5 parsecs", "32TB", "4294967296", Number.NaN, -3, 0.5]) {
      expect(errorOf(() => blocksFromSize(bad)).code, String(bad)).toBe("ALLOCATOR_BAD_SIZE");
    }
  });
});

describe("start blocks", () => {
  for (const bad of [-1, 0.5, Number.NaN, 100, 2 ** 32 - 1]) {
    it(`rejects startBlock ${String(bad)} for a 100-block relation`, () => {
      const e = errorOf(() => createParallelScan({ kind: "pg14" }, { nblocks: 100, startBlock: bad }));
      expect(e.code).toBe("ALLOCATOR_BAD_START_BLOCK");
    });
  }
});

describe("policies", () => {
  const cases: [string, unknown, string][] = [
    ["an unknown kind", { kind: "pg13" }, "ALLOCATOR_BAD_POLICY"],
    ["no policy", null, "ALLOCATOR_BAD_POLICY"],
    ["a batch of 0", { kind: "batch", blocksPerClaim: 0 }, "ALLOCATOR_BAD_OPTION"],
    ["a batch of 2.5", { kind: "batch", blocksPerClaim: 2.5 }, "ALLOCATOR_BAD_OPTION"],
    ["a batch without a size", { kind: "batch" }, "ALLOCATOR_BAD_OPTION"],
    ["a munro cap of -64", { kind: "munro2020", maxChunkBlocks: -64 }, "ALLOCATOR_BAD_OPTION"],
    ["pg14 nchunks NaN", { kind: "pg14", nchunks: Number.NaN }, "ALLOCATOR_BAD_OPTION"],
    ["pg14 nchunks 0", { kind: "pg14", nchunks: 0 }, "ALLOCATOR_BAD_OPTION"],
    ["pg14 rampdownChunks -1", { kind: "pg14", rampdownChunks: -1 }, "ALLOCATOR_BAD_OPTION"],
    ["pg14 cap 0", { kind: "pg14", maxChunkBlocks: 0 }, "ALLOCATOR_BAD_OPTION"],
  ];
  for (const [what, policy, code] of cases) {
    it(`rejects ${what}`, () => {
      expect(errorOf(() => createParallelScan(policy as AllocatorPolicy, { nblocks: 10 })).code).toBe(code);
    });
  }

  it("rejects an uncapped pg14 chunk above 2^31 blocks (nchunks 1 on a relation over 2^31 blocks)", () => {
    const e = errorOf(() => pg14ChunkSize(2 ** 31 + 1, { nchunks: 1, maxChunkBlocks: null }));
    expect(e.code).toBe("ALLOCATOR_BAD_OPTION");
  });
});

describe("participants and runs", () => {
  for (const bad of [0, -1, 1.5, Number.NaN]) {
    it(`rejects ${String(bad)} participants`, () => {
      const e = errorOf(() => allocateRoundRobin({ kind: "pg14" }, { nblocks: 100, participants: bad }));
      expect(e.code).toBe("ALLOCATOR_BAD_PARTICIPANTS");
      expect(e.message).toContain("participants must be an integer from 1");
    });
  }

  for (const bad of [0, -3, 2.5, Number.NaN]) {
    it(`rejects nextRun(${String(bad)})`, () => {
      const p = createParallelScan({ kind: "pg14" }, { nblocks: 100 }).join();
      expect(errorOf(() => p.nextRun(bad)).code).toBe("ALLOCATOR_BAD_MAX_BLOCKS");
    });
  }
});

describe("shared buffers", () => {
  it("rejects a buffer that does not hold a shared allocator", () => {
    expect(errorOf(() => attachSharedParallelScan(new SharedArrayBuffer(128))).code).toBe(
      "ALLOCATOR_BAD_SHARED_BUFFER",
    );
    expect(errorOf(() => attachSharedParallelScan(new SharedArrayBuffer(8))).code).toBe(
      "ALLOCATOR_BAD_SHARED_BUFFER",
    );
    expect(
      errorOf(() => attachSharedParallelScan(new ArrayBuffer(128) as unknown as SharedArrayBuffer)).code,
    ).toBe("ALLOCATOR_BAD_SHARED_BUFFER");
  });
});
