import { describe, expect, it } from "vitest";
import { nbuffersForSharedBuffers, syncScanEligible, syncScanThresholdBlocks } from "./eligibility.js";
import { SyncScanError } from "./errors.js";

const MB = 1024 * 1024;

describe("eligibility: not temp, nblocks > NBuffers / 4, synchronize_seqscans on (apps/docs/src/reference/synchronized-scans.md#syncscan-constants, apps/docs/src/reference/synchronized-scans.md#serial-scans)", () => {
  it("shared_buffers 128 MB -> NBuffers 16384 -> tables over 4096 blocks (the reference's example)", () => {
    const nbuffers = nbuffersForSharedBuffers(128 * MB);
    expect(nbuffers).toBe(16384);
    expect(syncScanThresholdBlocks(nbuffers)).toBe(4096);
    expect(syncScanEligible({ nblocks: 4096, nbuffers })).toBe(false);
    expect(syncScanEligible({ nblocks: 4097, nbuffers })).toBe(true);
  });

  it("shared_buffers 16 MB -> NBuffers 2048 -> tables over 512 blocks (the conformance setting)", () => {
    const nbuffers = nbuffersForSharedBuffers(16 * MB);
    expect(nbuffers).toBe(2048);
    expect(syncScanEligible({ nblocks: 512, nbuffers })).toBe(false);
    expect(syncScanEligible({ nblocks: 513, nbuffers })).toBe(true);
  });

  it("uses integer division: NBuffers 2050 and 2051 still give 512", () => {
    expect(syncScanThresholdBlocks(2050)).toBe(512);
    expect(syncScanThresholdBlocks(2051)).toBe(512);
    expect(syncScanThresholdBlocks(2052)).toBe(513);
    expect(syncScanEligible({ nblocks: 513, nbuffers: 2051 })).toBe(true);
  });

  it("temporary tables and synchronize_seqscans = off never synchronize", () => {
    const big = { nblocks: 1_000_000, nbuffers: 16384 };
    expect(syncScanEligible(big)).toBe(true);
    expect(syncScanEligible({ ...big, temp: true })).toBe(false);
    expect(syncScanEligible({ ...big, synchronizeSeqscans: false })).toBe(false);
    expect(syncScanEligible({ ...big, synchronizeSeqscans: true, temp: false })).toBe(true);
  });

  it("an empty table never synchronizes", () => {
    expect(syncScanEligible({ nblocks: 0, nbuffers: 1 })).toBe(false);
  });

  it("bad parameters are SyncScanErrors", () => {
    expect(() => syncScanThresholdBlocks(0)).toThrow(SyncScanError);
    expect(() => syncScanEligible({ nblocks: -1, nbuffers: 10 })).toThrow(/nblocks/);
    expect(() => nbuffersForSharedBuffers(100)).toThrow(/sharedBuffersBytes/);
  });
});
