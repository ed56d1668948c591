/**
 * Per-block work: what a scan does with each block after reading it.
 *
 * A PostgreSQL sequential scan does CPU work per page (visibility checks,
 * deforming tuples, the count(*) of Munro's 2020 FreeBSD report (postgr.es/m/CA+hUKGJ_EErDv41YycXcbMbCBkztA34+z1ts9VQH+ACRuvpxig@mail.gmail.com)), and that work decides how
 * much time the process spends away from read(), which is what a
 * readahead heuristic sees. The built-in kinds are:
 *
 * - `"none"`: read and forget, the pure I/O measurement (what `dd of=/dev/null` does).
 * - `"count-bytes"`: touch every byte and count the non-zero ones: light,
 *   data-dependent work that cannot be optimised away, a stand-in for
 *   looking at every tuple. Counted four bytes at a time with the exact
 *   zero-byte test from "Bit Twiddling Hacks" (Sean Eron Anderson,
 *   "Determine if a word has a zero byte", the variant without false
 *   positives), so it costs about as much as a memory scan.
 * - `"checksum"`: a per-block hash that includes the block number, summed over
 *   all blocks modulo 2^64. The sum does not depend on the order the blocks
 *   were read in or on which worker read them, so any scan of the same file
 *   (any policy, any worker count) must produce the same value, and a block
 *   read twice or skipped changes it: that is how the tests check exact cover
 *   by content. The per-block hash is FNV-1a (Fowler, Noll, Vo; offset basis
 *   2166136261 and prime 16777619, the 32-bit parameters from
 *   http://www.isthe.com/chongo/tech/comp/fnv/) over the block's 32-bit words
 *   in the machine's byte order, then over any tail bytes, started from the
 *   offset basis XOR the block number and finished with MurmurHash3's fmix32
 *   (Austin Appleby, public domain) so that sums of hashes spread over all
 *   64 bits. It is not PostgreSQL's page checksum (checksum_impl.h), which
 *   needs a page header to mean anything; ours works on any file.
 * - a module of your own (`{ module: path }`), loaded in each worker: see
 *   {@link BlockWorkModule}.
 *
 * The functions below are what the workers run, exported so that callers
 * (and the tests) can compute the expected values independently by reading
 * the file front to back.
 */

/** FNV-1a 32-bit offset basis (isthe.com/chongo/tech/comp/fnv). */
export const FNV_OFFSET_BASIS_32 = 2166136261;
/** FNV-1a 32-bit prime 2^24 + 2^8 + 0x93 (isthe.com/chongo/tech/comp/fnv). */
export const FNV_PRIME_32 = 16777619;
/** MurmurHash3 fmix32 multipliers (MurmurHash3.cpp, public domain). */
const FMIX_1 = 0x85ebca6b;
const FMIX_2 = 0xc2b2ae35;

/**
 * Built-in per-block work, or a module run in each worker.
 *
 * @example
 * ```ts
 * import type { BlockWork } from "@scanlab/file-scan";
 * const plain: BlockWork = "none";
 * const mine: BlockWork = { module: new URL("./my-work.mjs", import.meta.url).href };
 * ```
 */
export type BlockWork =
  | "none"
  | "count-bytes"
  | "checksum"
  | {
      /** Path (relative to the current directory) or file URL of a {@link BlockWorkModule}. */
      module: string;
    };

/**
 * What a per-block work module exports (an ES module, loaded with `import()`
 * in every worker). Its default export is called once per block read, in the
 * worker that read it, with the bytes read (the worker's reused buffer: copy
 * what you want to keep) and the block number. If it returns a number, the
 * numbers are summed per worker. An optional `finish()` export is called once
 * per worker at the end; what it returns (anything structured-clonable) is
 * reported per worker.
 *
 * @example
 * ```ts
 * // my-work.mjs
 * let lines = 0;
 * export default function (bytes, block) {
 *   let n = 0;
 *   for (let i = 0; i < bytes.length; i++) if (bytes[i] === 10) n++;
 *   lines += n;
 *   return n;
 * }
 * export function finish() { return { lines }; }
 * ```
 */
export interface BlockWorkModule {
  /** Called for each block: the bytes read and the block number; a returned number is summed. */
  default: (bytes: Uint8Array, blockNumber: number) => number | undefined;
  /** Called once per worker after its last block; the value is reported. */
  finish?: () => unknown;
}

/**
 * The per-block checksum: FNV-1a over the block's 32-bit words (machine byte
 * order) and tail bytes, seeded with the block number, finished with fmix32.
 * `words` must view the same memory as `bytes` from its start (a Uint32Array
 * over the same, 4-byte aligned buffer).
 *
 * @param bytes the buffer the block was read into.
 * @param words the same buffer as 32-bit words.
 * @param length bytes actually read (a partial last block hashes only these).
 * @param blockNumber the block's number in the target.
 * @returns an unsigned 32-bit hash.
 */
export function blockChecksumWords(
  bytes: Uint8Array,
  words: Uint32Array,
  length: number,
  blockNumber: number,
): number {
  let h = (FNV_OFFSET_BASIS_32 ^ blockNumber) | 0;
  const nwords = length >>> 2;
  for (let i = 0; i < nwords; i++) {
    h = Math.imul(h ^ words[i]!, FNV_PRIME_32);
  }
  for (let i = nwords << 2; i < length; i++) {
    h = Math.imul(h ^ bytes[i]!, FNV_PRIME_32);
  }
  h ^= h >>> 16;
  h = Math.imul(h, FMIX_1);
  h ^= h >>> 13;
  h = Math.imul(h, FMIX_2);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * The checksum of one block's bytes (copies them into an aligned buffer when
 * needed; the workers use {@link blockChecksumWords} on their own buffer).
 *
 * @example
 * ```ts
 * import { blockChecksum, sumBlockChecksums } from "@scanlab/file-scan";
 * const a = blockChecksum(new Uint8Array(8192), 0);
 * const b = blockChecksum(new Uint8Array(8192), 1);
 * a !== b; // true: the block number is part of the hash
 * sumBlockChecksums([a, b]); // "checksum" of a two-block file of zeros, as 16 hex digits
 * ```
 */
export function blockChecksum(bytes: Uint8Array, blockNumber: number): number {
  let aligned = bytes;
  if (bytes.byteOffset % 4 !== 0) {
    aligned = new Uint8Array(bytes.length);
    aligned.set(bytes);
  }
  const words = new Uint32Array(aligned.buffer, aligned.byteOffset, aligned.length >>> 2);
  return blockChecksumWords(aligned, words, aligned.length, blockNumber);
}

/**
 * Sums per-block checksums modulo 2^64, as a 16-digit hex string: the value a
 * `"checksum"` scan reports.
 */
export function sumBlockChecksums(hashes: Iterable<number>): string {
  let sum = 0n;
  for (const h of hashes) sum += BigInt(h >>> 0);
  return formatChecksum(sum);
}

/** @internal A 64-bit sum as 16 hex digits. */
export function formatChecksum(sum: bigint): string {
  return BigInt.asUintN(64, sum).toString(16).padStart(16, "0");
}

/**
 * Non-zero bytes among the first `length` bytes of `bytes` (`words` views the
 * same aligned memory), four at a time.
 */
export function countNonZeroBytesWords(bytes: Uint8Array, words: Uint32Array, length: number): number {
  let zero = 0;
  const nwords = length >>> 2;
  for (let i = 0; i < nwords; i++) {
    const w = words[i]!;
    // High bit of each byte of t is set exactly when that byte of w is zero (no false positives).
    const t = ~(((w & 0x7f7f7f7f) + 0x7f7f7f7f) | w | 0x7f7f7f7f);
    zero += Math.imul((t >>> 7) & 0x01010101, 0x01010101) >>> 24;
  }
  let tailNonZero = 0;
  for (let i = nwords << 2; i < length; i++) if (bytes[i] !== 0) tailNonZero++;
  return (nwords << 2) - zero + tailNonZero;
}

/**
 * Non-zero bytes in `bytes`: the per-block value of the `"count-bytes"` work.
 *
 * @example
 * ```ts
 * import { countNonZeroBytes } from "@scanlab/file-scan";
 * countNonZeroBytes(new Uint8Array([0, 1, 2, 0, 0, 7])); // 3
 * ```
 */
export function countNonZeroBytes(bytes: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== 0) n++;
  return n;
}
