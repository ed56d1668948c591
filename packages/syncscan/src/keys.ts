/**
 * How a file's identity becomes a tracker key.
 *
 * PostgreSQL keys the syncscan list by the relation's physical file identity,
 * the RelFileLocator (tablespace OID, database OID, relfilenumber), not by the
 * table's OID, so a table rewritten by VACUUM FULL or TRUNCATE gets a new file
 * and starts afresh (apps/docs/src/reference/synchronized-scans.md#lru-of-scan-locations). For an ordinary file the equivalent
 * identity is (device, inode).
 *
 * The shared tracker stores keys in two 32-bit words, so a key here is an
 * integer from 0 to 2^53 - 1 (a JavaScript safe integer). Identities are wider
 * than that (96 bits for a RelFileLocator, up to 128 for dev + inode), so they
 * are hashed: the identity is cut into 32-bit words, prefixed with a domain word
 * (1 = RelFileLocator, 2 = dev/inode, 3 = a name) so different kinds never meet,
 * and run through two MurmurHash3 (x86_32) lanes with different seeds; the key
 * is 21 bits of the first lane's result times 2^32 plus the second lane's 32
 * bits. Two different identities share a key with probability about 2^-53 (with
 * F files in play, about F^2 / 2^54). A collision is harmless to correctness,
 * exactly like a stale entry in PostgreSQL: the location is only a hint about
 * where to start, and one at or past the table's end is answered with 0.
 *
 * A caller with small distinct numbers of its own (a simulator's table
 * numbers) can use them directly as keys instead.
 */
import { SyncScanError } from "./errors.js";

/** MurmurHash3 x86_32 constants (Austin Appleby, public domain, MurmurHash3.cpp). */
const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;
const N1 = 0xe6546b64;
const F1 = 0x85ebca6b;
const F2 = 0xc2b2ae35;
/** Two arbitrary seeds for the two lanes (the MurmurHash2 multiplier and a MurmurHash3 test seed). */
const SEED_A = 0x5bd1e995;
const SEED_B = 0x9747b28c;
/** 2^32. */
const TWO_POW_32 = 4294967296;
/** Domain words. */
const DOMAIN_RELFILE = 1;
const DOMAIN_FILE = 2;
const DOMAIN_NAME = 3;

function mixWord(h: number, word: number): number {
  let k = Math.imul(word, C1);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, C2);
  let x = h ^ k;
  x = (x << 13) | (x >>> 19);
  return (Math.imul(x, 5) + N1) | 0;
}

function finalMix(h: number, length: number): number {
  let x = h ^ length;
  x ^= x >>> 16;
  x = Math.imul(x, F1);
  x ^= x >>> 13;
  x = Math.imul(x, F2);
  x ^= x >>> 16;
  return x >>> 0;
}

function hash53(domain: number, words: readonly number[]): number {
  let a = SEED_A;
  let b = SEED_B;
  a = mixWord(a, domain);
  b = mixWord(b, domain);
  for (const w of words) {
    a = mixWord(a, w);
    b = mixWord(b, w);
  }
  const len = (words.length + 1) * 4;
  return (finalMix(a, len) & 0x1fffff) * TWO_POW_32 + finalMix(b, len);
}

function uint32(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) {
    throw new SyncScanError(
      "SYNCSCAN_BAD_KEY",
      `${name} must be an unsigned 32-bit integer, got ${String(value)}.`,
    );
  }
  return value;
}

/** A non-negative integer (number up to 2^53-1, or bigint up to 2^64-1) as [low word, high word]. */
function uint64Words(value: number | bigint, name: string): [number, number] {
  if (typeof value === "bigint") {
    if (value < 0n || value > 0xffffffffffffffffn) {
      throw new SyncScanError(
        "SYNCSCAN_BAD_KEY",
        `${name} must be an unsigned 64-bit integer, got ${value}.`,
      );
    }
    return [Number(BigInt.asUintN(32, value)), Number(value >> 32n)];
  }
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new SyncScanError(
      "SYNCSCAN_BAD_KEY",
      `${name} must be a non-negative safe integer or a bigint (use stat with { bigint: true } for large inode numbers), got ${String(value)}.`,
    );
  }
  return [value >>> 0, Math.floor(value / TWO_POW_32)];
}

/** PostgreSQL's physical relation identity (RelFileLocator; RelFileNode before PG16). */
export interface RelFileLocator {
  /** Tablespace OID (`pg_tablespace.oid`; 1663 is pg_default). */
  readonly spcOid: number;
  /** Database OID. */
  readonly dbOid: number;
  /** `pg_class.relfilenode` (relfilenumber). */
  readonly relNumber: number;
}

/**
 * The tracker key for a PostgreSQL relation file, as PostgreSQL itself keys
 * its list (apps/docs/src/reference/synchronized-scans.md#lru-of-scan-locations): by tablespace, database and relfilenumber.
 *
 * @example
 * ```ts
 * import { relFileLocatorKey } from "@scanlab/syncscan";
 * const key = relFileLocatorKey({ spcOid: 1663, dbOid: 5, relNumber: 16384 });
 * Number.isSafeInteger(key); // true
 * ```
 */
export function relFileLocatorKey(locator: RelFileLocator): number {
  return hash53(DOMAIN_RELFILE, [
    uint32(locator.spcOid, "spcOid"),
    uint32(locator.dbOid, "dbOid"),
    uint32(locator.relNumber, "relNumber"),
  ]);
}

/** An ordinary file's identity, as `fs.stat` reports it (`dev`, `ino`; numbers or bigints). */
export interface FileIdentity {
  /** Device number (`stats.dev`). */
  readonly dev: number | bigint;
  /** Inode number (`stats.ino`); pass a bigint (`stat(path, { bigint: true })`) when it may exceed 2^53. */
  readonly ino: number | bigint;
}

/**
 * The tracker key for an ordinary file, from its device and inode numbers:
 * the same file under two paths (hard links, bind mounts) gets one key, and a
 * file replaced by a new one (new inode) starts afresh, as a rewritten
 * PostgreSQL table does.
 *
 * @example
 * ```ts
 * import { fileIdentityKey } from "@scanlab/syncscan";
 * // Node: const { dev, ino } = await stat(path, { bigint: true });
 * const key = fileIdentityKey({ dev: 2049n, ino: 1234567n });
 * ```
 */
export function fileIdentityKey(identity: FileIdentity): number {
  const [devLo, devHi] = uint64Words(identity.dev, "dev");
  const [inoLo, inoHi] = uint64Words(identity.ino, "ino");
  return hash53(DOMAIN_FILE, [devLo, devHi, inoLo, inoHi]);
}

/**
 * A tracker key for a named table that has no file (a simulated one): a hash
 * of the name's UTF-16 code units.
 *
 * @example
 * ```ts
 * import { nameKey } from "@scanlab/syncscan";
 * nameKey("lineitem") === nameKey("lineitem"); // true
 * ```
 */
export function nameKey(name: string): number {
  const words: number[] = [];
  for (let i = 0; i < name.length; i += 2) {
    words.push(name.charCodeAt(i) | ((i + 1 < name.length ? name.charCodeAt(i + 1) : 0) << 16));
  }
  words.push(name.length);
  return hash53(DOMAIN_NAME, words);
}
