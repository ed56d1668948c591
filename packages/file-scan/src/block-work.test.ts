import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  blockChecksum,
  blockChecksumWords,
  countNonZeroBytes,
  countNonZeroBytesWords,
  FNV_OFFSET_BASIS_32,
  FNV_PRIME_32,
  sumBlockChecksums,
} from "./block-work.js";

/** Byte-at-a-time reference: FNV-1a 32 over little-endian words then tail bytes, fmix32 (block-work.ts header). */
function referenceChecksum(bytes: Uint8Array, block: number): number {
  let h = (FNV_OFFSET_BASIS_32 ^ block) >>> 0;
  const nwords = Math.floor(bytes.length / 4);
  for (let i = 0; i < nwords; i++) {
    const w =
      bytes[4 * i]! | (bytes[4 * i + 1]! << 8) | (bytes[4 * i + 2]! << 16) | (bytes[4 * i + 3]! << 24);
    h = Number((BigInt((h ^ w) >>> 0) * BigInt(FNV_PRIME_32)) % 4294967296n);
  }
  for (let i = nwords * 4; i < bytes.length; i++) {
    h = Number((BigInt((h ^ bytes[i]!) >>> 0) * BigInt(FNV_PRIME_32)) % 4294967296n);
  }
  h ^= h >>> 16;
  h = Number((BigInt(h >>> 0) * 0x85ebca6bn) % 4294967296n);
  h ^= h >>> 13;
  h = Number((BigInt(h >>> 0) * 0xc2b2ae35n) % 4294967296n);
  h ^= h >>> 16;
  return h >>> 0;
}

describe("count-bytes work", () => {
  it("counts non-zero bytes exactly, four at a time (no false positives from the zero-byte trick)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 257 }), (data) => {
        const storage = new ArrayBuffer(Math.ceil(data.length / 4) * 4 + 4);
        const bytes = new Uint8Array(storage, 0, data.length);
        bytes.set(data);
        const words = new Uint32Array(storage);
        expect(countNonZeroBytesWords(bytes, words, data.length)).toBe(countNonZeroBytes(data));
      }),
    );
  });

  it("handles the bytes the trick is known to trip on: 0x00, 0x01, 0x80, 0xff next to each other", () => {
    const data = new Uint8Array([0x00, 0x01, 0x80, 0xff, 0x80, 0x00, 0x00, 0x01]);
    const words = new Uint32Array(data.buffer);
    expect(countNonZeroBytesWords(data, words, 8)).toBe(5);
  });
});

describe("checksum work", () => {
  it("matches a byte-at-a-time BigInt transcription of FNV-1a + fmix32", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 64 }), fc.nat(0xfffffffe), (data, block) => {
        expect(blockChecksum(data, block)).toBe(referenceChecksum(data, block));
      }),
    );
  });

  it("includes the block number: the same bytes under another number hash differently", () => {
    const zeros = new Uint8Array(8192);
    expect(blockChecksum(zeros, 0)).not.toBe(blockChecksum(zeros, 1));
  });

  it("hashes only the bytes read: a partial last block differs from the full buffer", () => {
    const storage = new ArrayBuffer(8192);
    const bytes = new Uint8Array(storage);
    bytes.fill(7);
    const words = new Uint32Array(storage);
    expect(blockChecksumWords(bytes, words, 100, 3)).toBe(blockChecksum(bytes.subarray(0, 100), 3));
    expect(blockChecksumWords(bytes, words, 100, 3)).not.toBe(blockChecksumWords(bytes, words, 8192, 3));
  });

  it("sums modulo 2^64 independently of order, and a block counted twice changes the sum", () => {
    const hashes = [0xffffffff, 0xffffffff, 1, 12345];
    expect(sumBlockChecksums(hashes)).toBe(sumBlockChecksums([...hashes].reverse()));
    expect(sumBlockChecksums(hashes)).toBe((0xffffffff * 2 + 1 + 12345).toString(16).padStart(16, "0"));
    expect(sumBlockChecksums([...hashes, 1])).not.toBe(sumBlockChecksums(hashes));
  });
});
