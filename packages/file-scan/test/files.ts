/**
 * Real test files whose content says where each block belongs: block b's
 * first 8 bytes hold b (little-endian uint64), the rest is pseudo-random
 * (xorshift32, seeded, so every run writes the same bytes). A scan that read
 * every block exactly once can then be checked by content: each block carries
 * its own number, and the checksum of all blocks must equal the one computed
 * here by reading the file front to back.
 */
import { closeSync, fsyncSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BLCKSZ, xorshift32 } from "@scanlab/core";
import type * as FileScan from "../src/index.js";

/** The built package (the workers only exist in dist/), typed from the sources. */
export async function loadDist(): Promise<typeof FileScan> {
  const url = new URL("../dist/index.js", import.meta.url).href;
  return (await import(url)) as typeof FileScan;
}

/** A temporary directory in os.tmpdir() (same filesystem as /tmp), removed by the returned function. */
export function makeTempDir(prefix = "scanlab-file-scan-"): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Writes `bytes` bytes in blocks of `blockBytes` (the last may be partial), fsyncs, closes. */
export function writeBlockFile(path: string, bytes: number, blockBytes: number = BLCKSZ, seed = 1): void {
  const CHUNK_BLOCKS = Math.max(1, Math.floor((8 * 1024 * 1024) / blockBytes));
  const storage = new ArrayBuffer(Math.ceil((CHUNK_BLOCKS * blockBytes) / 4) * 4);
  const chunk = new Uint8Array(storage, 0, CHUNK_BLOCKS * blockBytes);
  const words = new Uint32Array(storage);
  const view = new DataView(storage);
  const random = xorshift32(seed);
  const fd = openSync(path, "w");
  try {
    let written = 0;
    let block = 0;
    while (written < bytes) {
      const len = Math.min(chunk.length, bytes - written);
      for (let i = 0, n = Math.ceil(len / 4); i < n; i++) {
        words[i] = random.nextUint32();
      }
      for (let off = 0; off < len; off += blockBytes, block++) {
        if (off + 8 <= len) view.setBigUint64(off, BigInt(block), true);
      }
      writeSync(fd, chunk, 0, len, written);
      written += len;
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Reads `paths` front to back as one block space and returns each block's checksum, in order. */
export function readChecksums(
  paths: readonly string[],
  blockBytes: number,
  checksum: (bytes: Uint8Array, block: number) => number,
): number[] {
  const out: number[] = [];
  const buf = new Uint8Array(blockBytes);
  let block = 0;
  for (const p of paths) {
    const fd = openSync(p, "r");
    try {
      for (let pos = 0; ; pos += blockBytes) {
        const n = readSync(fd, buf, 0, blockBytes, pos);
        if (n === 0) break;
        out.push(checksum(buf.subarray(0, n), block++));
        if (n < blockBytes) break;
      }
    } finally {
      closeSync(fd);
    }
  }
  return out;
}
