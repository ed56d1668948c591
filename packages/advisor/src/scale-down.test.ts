import { PG14_MAX_CHUNK_BLOCKS } from "@scanlab/block-allocator";
import { describe, expect, it } from "vitest";
import { seqScan } from "../test/scripted-runner.js";
import { scaleDown } from "./scale-down.js";

const GiB = 1024 ** 3;

describe("scaleDown", () => {
  it("divides the table, RAM, shared_buffers and the chunk cap by one factor", () => {
    const s = seqScan("100GB");
    const before = structuredClone(s);
    const r = scaleDown(s, GiB);
    expect(s).toEqual(before);
    expect(r.factor).toBe(100);
    expect(r.fullTableBlocks).toBe((100 * GiB) / 8192);
    expect(r.chunkCapBlocks).toBe(Math.round(PG14_MAX_CHUNK_BLOCKS / 100));
    expect(r.scenario.tables[0]!.size).toBe(Math.round((100 * GiB) / 100));
    expect(r.scenario.machine.ram).toBe(Math.round((16 * GiB) / 100));
    expect(r.scenario.machine.sharedBuffers).toBe(Math.round((128 * 1024 ** 2) / 100));
    expect(r.scale).toEqual({
      factor: 100,
      simulatedTableBytes: r.scenario.tables[0]!.size,
      simulatedRamBytes: r.scenario.machine.ram,
      simulatedSharedBuffersBytes: r.scenario.machine.sharedBuffers,
      simulatedChunkCapBlocks: r.chunkCapBlocks,
    });
  });

  it("keeps shared_buffers at PostgreSQL's 128 kB floor and at most half the scaled RAM", () => {
    const floor = scaleDown(seqScan("1TB"), 64 * 1024 ** 2);
    expect(floor.factor).toBe(16384);
    // 128 MB / 16384 = 8 kB, under the floor; 16 GB / 16384 = 1 MB of RAM, so the floor stands.
    expect(floor.scenario.machine.sharedBuffers).toBe(128 * 1024);
    const small = seqScan("1TB");
    small.machine.ram = "1GB";
    // 1 GB / 16384 = 64 kB of RAM: shared_buffers gets half of it, under the floor.
    expect(scaleDown(small, 64 * 1024 ** 2).scenario.machine.sharedBuffers).toBe(32 * 1024);
  });

  it("leaves a table at or under the simulated size as it is", () => {
    const s = seqScan("512MB");
    const r = scaleDown(s, GiB);
    expect(r.factor).toBe(1);
    expect(r.scale).toBeNull();
    expect(r.chunkCapBlocks).toBe(PG14_MAX_CHUNK_BLOCKS);
    expect(r.scenario).toEqual(s);
  });

  it("scales every table, one given in blocks included, by the scanned table's factor", () => {
    const s = seqScan("10GB");
    s.tables.push({ name: "other", blocks: 131072, tuplesPerPage: 100 });
    const r = scaleDown(s, GiB);
    expect(r.factor).toBe(10);
    expect(r.scenario.tables[1]).toEqual({ name: "other", size: Math.round(GiB / 10), tuplesPerPage: 100 });
  });
});
