/**
 * The worked examples of apps/docs/src/reference/parallel-block-allocation.md#worked-examples, one participant alone
 * (values are counter values; the block is (counter + start) mod nblocks).
 * Expected values are copied from the reference's table, or derived by hand
 * from the rules of 1.4 where the reference gives only the shape.
 */
import { describe, expect, it } from "vitest";
import {
  allocateRoundRobin,
  pg14ChunkPlan,
  pg14ChunkSize,
  pg14RampDown,
  summarizeChunkLevels,
} from "./index.js";

const row = (chunkBlocks: number, firstCounter: number, chunks: number) => ({
  chunkBlocks,
  firstCounter,
  chunks,
});

describe("apps/docs/src/reference/parallel-block-allocation.md#worked-examples: nblocks = 100,000", () => {
  it("starts with 64-block chunks: 100000 div 2048 = 48, next power of two 64, under the cap", () => {
    expect(pg14ChunkSize(100_000)).toBe(64);
  });

  it("uses each size from the first counter value in the reference table, with the same chunk counts", () => {
    expect(pg14ChunkPlan(100_000)).toEqual([
      row(64, 0, 1499),
      row(32, 95_936, 64),
      row(16, 97_984, 63),
      row(8, 98_992, 63),
      row(4, 99_496, 63),
      row(2, 99_748, 63),
      row(1, 99_874, 126),
    ]);
  });

  it("halves past the thresholds 95,904 (64), 97,952 (32), 98,976 (16), 99,488 (8), 99,744 (4), 99,872 (2)", () => {
    const thresholds: [number, number][] = [
      [64, 95_904],
      [32, 97_952],
      [16, 98_976],
      [8, 99_488],
      [4, 99_744],
      [2, 99_872],
    ];
    for (const [size, threshold] of thresholds) {
      expect(pg14RampDown(size, threshold, 100_000, 64), `at ${threshold}`).toBe(size);
      expect(pg14RampDown(size, threshold + 1, 100_000, 64), `past ${threshold}`).toBe(size / 2);
    }
    expect(pg14RampDown(1, 99_999, 100_000, 64)).toBe(1);
  });

  it("covers exactly 100,000 counter values (the counter value nblocks returns invalid)", () => {
    const plan = pg14ChunkPlan(100_000);
    expect(plan.reduce((sum, l) => sum + l.chunkBlocks * l.chunks, 0)).toBe(100_000);
  });
});

describe("apps/docs/src/reference/parallel-block-allocation.md#worked-examples: nblocks = 10,000,000", () => {
  it("starts with 8192-block chunks: 10,000,000 div 2048 = 4882, next power of two 8192, equal to the cap", () => {
    expect(pg14ChunkSize(10_000_000)).toBe(8192);
  });

  it("matches the reference table row by row", () => {
    expect(pg14ChunkPlan(10_000_000)).toEqual([
      row(8192, 0, 1157),
      row(4096, 9_478_144, 64),
      row(2048, 9_740_288, 63),
      row(1024, 9_869_312, 64),
      row(512, 9_934_848, 64),
      row(256, 9_967_616, 63),
      row(128, 9_983_744, 64),
      row(64, 9_991_936, 63),
      row(32, 9_995_968, 63),
      row(16, 9_997_984, 63),
      row(8, 9_998_992, 63),
      row(4, 9_999_496, 63),
      row(2, 9_999_748, 63),
      row(1, 9_999_874, 126),
    ]);
  });
});

describe("apps/docs/src/reference/parallel-block-allocation.md#smaller-relations: smaller relations", () => {
  it("1,000 blocks: size 1 throughout (1000 div 2048 = 0 -> max(0, 1) = 1, the pre-14 behaviour)", () => {
    expect(pg14ChunkPlan(1_000)).toEqual([row(1, 0, 1_000)]);
  });

  it("5,000 blocks: 2 then 1", () => {
    // 5000 div 2048 = 2 -> chunk 2. Halve once the position passes 5000 - 2 x 64 = 4872:
    // the chunk at 4872 ends at position 4873, so the claim at 4874 is the first of size 1
    // (4874 / 2 = 2437 chunks of 2), and counters 4874..4999 go out singly (126).
    expect(pg14ChunkPlan(5_000)).toEqual([row(2, 0, 2_437), row(1, 4_874, 126)]);
  });

  it("20,000 blocks: 16 down to 1", () => {
    // 20000 div 2048 = 9 -> 16. Threshold 20000 - 16 x 64 = 18976: the chunk at 18976 ends at 18991,
    // so size 8 starts at 18992 after 1187 chunks of 16. Threshold 20000 - 512 = 19488: the 8-chunk at
    // 19488 ends at 19495, size 4 starts at 19496 after 63 chunks of 8; likewise 2 at 19748, 1 at 19874.
    expect(pg14ChunkPlan(20_000)).toEqual([
      row(16, 0, 1_187),
      row(8, 18_992, 63),
      row(4, 19_496, 63),
      row(2, 19_748, 63),
      row(1, 19_874, 126),
    ]);
  });

  it("a relation of 4,095 blocks still gets size 1, and 4,096 gets 2 (apps/docs/src/reference/parallel-block-allocation.md#start-up: under 4096 blocks, chunk size 1)", () => {
    expect(pg14ChunkSize(4_095)).toBe(1);
    expect(pg14ChunkSize(4_096)).toBe(2);
  });

  it("reaches the cap at 8,390,656 blocks and starts to bind at 16,779,264 (apps/docs/src/reference/parallel-block-allocation.md#start-up)", () => {
    expect(pg14ChunkSize(8_390_655)).toBe(4096);
    expect(pg14ChunkSize(8_390_656)).toBe(8192);
    expect(pg14ChunkSize(16_779_263, { maxChunkBlocks: null })).toBe(8192);
    expect(pg14ChunkSize(16_779_264, { maxChunkBlocks: null })).toBe(16384);
    expect(pg14ChunkSize(16_779_264)).toBe(8192);
  });
});

describe("apps/docs/src/reference/parallel-block-allocation.md#four-participants: four participants taking turns block by block", () => {
  const claims = allocateRoundRobin({ kind: "pg14" }, { nblocks: 100_000, participants: 4 });
  const levels = summarizeChunkLevels(claims);

  it("gives every ramp-down level about 60-61 chunks", () => {
    expect(levels[0]!.chunkBlocks).toBe(64);
    for (const level of levels.slice(1, -1)) {
      expect(level.chunks, `size ${level.chunkBlocks}`).toBeGreaterThanOrEqual(60);
      expect(level.chunks, `size ${level.chunkBlocks}`).toBeLessThanOrEqual(61);
    }
  });

  it("hands the last 120 counter values out singly", () => {
    const single = claims.filter((c) => c.chunkBlocks === 1);
    expect(single.length).toBe(120);
    expect(single[0]!.firstCounter).toBe(100_000 - 120);
  });

  it("lets each of the four participants claim its own chunks", () => {
    expect(new Set(claims.map((c) => c.participant))).toEqual(new Set([0, 1, 2, 3]));
  });
});

describe("apps/docs/src/reference/experiments.md#t2-chunk-size-cap-sweep, apps/docs/src/reference/experiments.md#t3-synchronized-scans-on-an-800-gb-table: the cap as an option", () => {
  it("a 100 GB table (13,107,200 blocks) gets 8192 uncapped, and each cap of the 256..8192 sweep when capped", () => {
    expect(pg14ChunkSize(13_107_200, { maxChunkBlocks: null })).toBe(8192);
    for (const cap of [256, 512, 1024, 2048, 4096, 8192])
      expect(pg14ChunkSize(13_107_200, { maxChunkBlocks: cap })).toBe(cap);
  });

  it("an 800 GB table (104,857,600 blocks) gets 65,536 uncapped (T3) and 8192 capped", () => {
    expect(pg14ChunkSize(104_857_600, { maxChunkBlocks: null })).toBe(65_536);
    expect(pg14ChunkSize(104_857_600)).toBe(8192);
    // Threshold 104,857,600 - 65,536 x 64 = 100,663,296: the chunk at 100,597,760 (k = 1535) ends exactly
    // there (not past it), the one at 100,663,296 (k = 1536) ends past it, so 1537 full chunks.
    expect(pg14ChunkPlan(104_857_600, { maxChunkBlocks: null })[0]).toEqual(row(65_536, 0, 1537));
  });
});
