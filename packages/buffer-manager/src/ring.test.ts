/**
 * The BAS_BULKREAD ring's size, computed by hand for a few settings
 * (apps/docs/src/reference/buffer-ring.md#ring-size-by-version,
 * apps/docs/src/reference/buffer-ring.md#ring-size-with-pg18-defaults), and the settings PostgreSQL
 * would refuse.
 */
import { describe, expect, it } from "vitest";
import { BufferManagerError } from "./errors.js";
import { BufferRing, bulkReadRingSize, PG18_EXTRA_PROCS } from "./ring.js";

/** Buffers in a shared_buffers setting of `mb` MiB (BLCKSZ 8 kB). */
const nbuffersOf = (mb: number) => (mb * 1024) / 8;

describe("bulkReadRingSize (apps/docs/src/reference/buffer-ring.md#ring-size-by-version)", () => {
  const pg18Defaults = {
    growsWithIo: true,
    nBuffers: nbuffersOf(128),
    maxConnections: 100,
    ioCombineLimit: 16,
    effectiveIoConcurrency: 16,
  };

  it("constants: 256 kB ring = 32 buffers, 74 extra processes (100 connections -> 174)", () => {
    expect(bulkReadRingSize({ nBuffers: nbuffersOf(128) })).toBe((256 * 1024) / 8192);
    expect(100 + PG18_EXTRA_PROCS).toBe(174);
    // 16 autovacuum + 8 worker processes + 10 WAL senders + 2 special workers + 38 auxiliary.
    expect(PG18_EXTRA_PROCS).toBe(16 + 8 + 10 + 2 + 38);
  });

  it("up to PG17 (growsWithIo off) the ring is 32 buffers whatever io_combine_limit and effective_io_concurrency say", () => {
    const pre18 = { ...pg18Defaults, growsWithIo: false };
    expect(bulkReadRingSize(pre18)).toBe(32);
    expect(bulkReadRingSize({ ...pre18, ioCombineLimit: 32, effectiveIoConcurrency: 200 })).toBe(32);
    expect(bulkReadRingSize({ nBuffers: nbuffersOf(1024) })).toBe(32);
  });

  it("up to PG17 the ring is capped at NBuffers / 8: shared_buffers 1 MB (128 buffers) gives 16", () => {
    expect(bulkReadRingSize({ ...pg18Defaults, growsWithIo: false, nBuffers: 128 })).toBe(16);
    expect(bulkReadRingSize({ ...pg18Defaults, growsWithIo: false, nBuffers: 256 })).toBe(32);
    expect(bulkReadRingSize({ ...pg18Defaults, growsWithIo: false, nBuffers: 255 })).toBe(31);
  });

  it("PG18 defaults, shared_buffers 128 MB: target 256 + 8 x 16 x 16 = 2304 kB, pin limit 16384 / 174 = 94 -> 94 buffers (752 kB)", () => {
    expect(bulkReadRingSize(pg18Defaults)).toBe(94);
    expect(bulkReadRingSize(pg18Defaults) * 8).toBe(752);
  });

  it("PG18, shared_buffers 1 GB: pin limit 131072 / 174 = 753 no longer binds, ring is the full 288 buffers (2304 kB)", () => {
    expect(bulkReadRingSize({ ...pg18Defaults, nBuffers: nbuffersOf(1024) })).toBe(288);
    expect(bulkReadRingSize({ ...pg18Defaults, nBuffers: nbuffersOf(8192) })).toBe(288);
  });

  it("PG18, shared_buffers 256 MB: pin limit 32768 / 174 = 188 buffers", () => {
    expect(bulkReadRingSize({ ...pg18Defaults, nBuffers: nbuffersOf(256) })).toBe(188);
  });

  it("PG18 grows with io_combine_limit x effective_io_concurrency: eic 1 -> 32 + 16 = 48, eic 0 -> 32", () => {
    expect(bulkReadRingSize({ ...pg18Defaults, effectiveIoConcurrency: 1 })).toBe(48);
    expect(bulkReadRingSize({ ...pg18Defaults, effectiveIoConcurrency: 0 })).toBe(32);
    expect(bulkReadRingSize({ ...pg18Defaults, ioCombineLimit: 1, effectiveIoConcurrency: 4 })).toBe(36);
    // io_combine_limit 32 x eic 64 on 16 GB: 32 + 2048 = 2080, below pin limit 2097152 / 174 = 12052.
    expect(
      bulkReadRingSize({
        ...pg18Defaults,
        nBuffers: nbuffersOf(16384),
        ioCombineLimit: 32,
        effectiveIoConcurrency: 64,
      }),
    ).toBe(2080);
  });

  it("PG18 never goes below 256 kB because of the pin limit: max_connections 1000 -> pin limit 15, ring 32", () => {
    expect(bulkReadRingSize({ ...pg18Defaults, maxConnections: 1000 })).toBe(32);
    // 500 connections: 16384 / 574 = 28 -> still 32.
    expect(bulkReadRingSize({ ...pg18Defaults, maxConnections: 500 })).toBe(32);
    // 50 connections: 16384 / 124 = 132 -> 132.
    expect(bulkReadRingSize({ ...pg18Defaults, maxConnections: 50 })).toBe(132);
  });

  it("PG18 is still capped at NBuffers / 8: 2 MB (256 buffers) -> 32, 1 MB (128 buffers) -> 16", () => {
    expect(bulkReadRingSize({ ...pg18Defaults, nBuffers: 256 })).toBe(32);
    expect(bulkReadRingSize({ ...pg18Defaults, nBuffers: 128 })).toBe(16);
  });

  it("PG18's defaults fill in what growsWithIo needs: 100 connections, io_combine_limit 16, eic 16", () => {
    expect(bulkReadRingSize({ nBuffers: nbuffersOf(128), growsWithIo: true })).toBe(94);
  });
});

describe("BufferRing", () => {
  it("a new ring is empty with its cursor before slot 0", () => {
    const ring = new BufferRing(4);
    expect(ring.size).toBe(4);
    expect(ring.cursor).toBe(-1);
    expect([...ring.slots]).toEqual([-1, -1, -1, -1]);
  });
});

describe("settings PostgreSQL would not accept", () => {
  /** A BufferManagerError with `code`. */
  const failure = (code: string) => expect.objectContaining({ name: "BufferManagerError", code });

  it("a ring of no buffers, or of a fraction", () => {
    expect(() => new BufferRing(0)).toThrow(failure("BUFFER_MANAGER_BAD_RING_SIZE"));
    expect(() => new BufferRing(2.5)).toThrow(failure("BUFFER_MANAGER_BAD_RING_SIZE"));
  });

  it("shared_buffers below 16 buffers, io_combine_limit past 128, eic past 1000, no connections", () => {
    const bad = failure("BUFFER_MANAGER_BAD_RING_SETTING");
    const pg18 = { nBuffers: 16384, growsWithIo: true };
    expect(() => bulkReadRingSize({ nBuffers: 15 })).toThrow(bad);
    expect(() => bulkReadRingSize({ ...pg18, ioCombineLimit: 129 })).toThrow(bad);
    expect(() => bulkReadRingSize({ ...pg18, effectiveIoConcurrency: 1001 })).toThrow(bad);
    expect(() => bulkReadRingSize({ ...pg18, maxConnections: 0 })).toThrow(bad);
    expect(() => bulkReadRingSize({ nBuffers: 15 })).toThrow(BufferManagerError);
    expect(() => bulkReadRingSize({ nBuffers: 15 })).toThrow(
      "nBuffers must be a whole number from 16 to 1073741823 (shared_buffers in guc_tables.c), got 15.",
    );
  });

  it("settings only PG18's ring reads are not looked at without growsWithIo", () => {
    expect(bulkReadRingSize({ nBuffers: 16384, ioCombineLimit: 0 })).toBe(32);
  });
});
