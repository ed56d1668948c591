/**
 * The LRU list of scan locations, laid out in one Int32Array.
 *
 * PostgreSQL keeps, in shared memory, a fixed array of SYNC_SCAN_NELEM (20)
 * items threaded into a doubly linked list with a head (most recently used)
 * and a tail (least recently used); apps/docs/src/reference/synchronized-scans.md#lru-of-scan-locations. Each item holds a
 * relation's physical file identity and the last block some scan of it
 * reported. At start-up every item is empty and the items are linked
 * 0 <-> 1 <-> ... <-> 19, head = 0, tail = 19.
 *
 * There is one operation, ss_search(key, location, set): walk from the head to
 * the first item whose key matches, or to the last item. If nothing matched,
 * the last item is overwritten with (key, location) - even when `set` is false,
 * which is how a lookup of an unknown relation inserts it with location 0. If
 * an item matched and `set` is true, its location is overwritten. Either way
 * the item moves to the head and its location is returned. Nothing else ever
 * changes the list, so a relation that nobody scans for 20 other relations'
 * lookups or reports silently falls off the end.
 *
 * The list lives in an Int32Array so that exactly this code runs over a plain
 * ArrayBuffer (the in-process tracker the simulator drives) and over a
 * SharedArrayBuffer (worker threads). The caller holds the tracker's lock; no
 * function here synchronises.
 *
 * Layout (32-bit words):
 *   header  [LOCK, MAGIC, NELEM, REPORT_INTERVAL, HEAD, TAIL, DROPPED, reserved]
 *   slot i  [PREV, NEXT, KEY_HI, KEY_LO, LOCATION] at HEADER_WORDS + i * SLOT_WORDS
 * Keys are integers 0..2^53-1 split into a high (21-bit) and a low (32-bit)
 * word; KEY_HI = -1 marks an empty slot (PostgreSQL's InvalidOid key). The
 * location is an unsigned 32-bit block number stored in a signed word.
 */

/** Word offsets of the header. */
export const LOCK_WORD = 0;
export const MAGIC_WORD = 1;
export const NELEM_WORD = 2;
export const REPORT_INTERVAL_WORD = 3;
export const HEAD_WORD = 4;
export const TAIL_WORD = 5;
export const DROPPED_WORD = 6;
/** Header length in words (the last one is reserved). */
export const HEADER_WORDS = 8;

/** Word offsets inside a slot. */
const PREV = 0;
const NEXT = 1;
const KEY_HI = 2;
const KEY_LO = 3;
const LOCATION = 4;
/** Words per slot. */
export const SLOT_WORDS = 5;

/** "No item" in PREV / NEXT, and "empty" in KEY_HI. */
const NIL = -1;

/** Identifies a syncscan tracker buffer ("5CA95C01": scanlab syncscan layout 1). */
export const TRACKER_MAGIC = 0x5ca95c01;

/** 2^32, to split a 53-bit key into two words. */
const TWO_POW_32 = 4294967296;

/** Words a tracker with `nelem` slots needs. */
export function lruWords(nelem: number): number {
  return HEADER_WORDS + nelem * SLOT_WORDS;
}

/** High word of a key (0..2^21-1). */
export function keyHigh(key: number): number {
  return Math.floor(key / TWO_POW_32);
}

/** Low word of a key, as the signed value stored in the array. */
export function keyLow(key: number): number {
  return key | 0;
}

/** Initialise an all-empty list linked 0 <-> 1 <-> ... <-> nelem-1 (ss_shmem_init). */
export function initLru(words: Int32Array, nelem: number, reportIntervalBlocks: number): void {
  words[LOCK_WORD] = 0;
  words[NELEM_WORD] = nelem;
  words[REPORT_INTERVAL_WORD] = reportIntervalBlocks;
  words[HEAD_WORD] = 0;
  words[TAIL_WORD] = nelem - 1;
  words[DROPPED_WORD] = 0;
  for (let i = 0; i < nelem; i++) {
    const s = HEADER_WORDS + i * SLOT_WORDS;
    words[s + PREV] = i === 0 ? NIL : i - 1;
    words[s + NEXT] = i === nelem - 1 ? NIL : i + 1;
    words[s + KEY_HI] = NIL;
    words[s + KEY_LO] = 0;
    words[s + LOCATION] = -1; // InvalidBlockNumber, never returned: an empty slot is overwritten before use
  }
  // The magic word goes last so that a concurrent attach never sees a half-built list.
  words[MAGIC_WORD] = TRACKER_MAGIC;
}

/**
 * ss_search: find `key` (or take the tail), optionally store `location`, move
 * the item to the head, return its location. The caller holds the lock.
 */
export function lruSearch(words: Int32Array, key: number, location: number, set: boolean): number {
  const hi = keyHigh(key);
  const lo = keyLow(key);
  let item = words[HEAD_WORD]!;
  for (;;) {
    const s = HEADER_WORDS + item * SLOT_WORDS;
    if (words[s + KEY_HI] === hi && words[s + KEY_LO] === lo) {
      if (set) words[s + LOCATION] = location | 0;
      break;
    }
    const next = words[s + NEXT]!;
    if (next === NIL) {
      // Not found: reuse the least recently used item, whatever `set` says.
      words[s + KEY_HI] = hi;
      words[s + KEY_LO] = lo;
      words[s + LOCATION] = location | 0;
      break;
    }
    item = next;
  }
  moveToHead(words, item);
  return words[HEADER_WORDS + item * SLOT_WORDS + LOCATION]! >>> 0;
}

function moveToHead(words: Int32Array, item: number): void {
  const head = words[HEAD_WORD]!;
  if (item === head) return;
  const s = HEADER_WORDS + item * SLOT_WORDS;
  const prev = words[s + PREV]!;
  const next = words[s + NEXT]!;
  // Unlink (item is not the head, so prev is an item).
  words[HEADER_WORDS + prev * SLOT_WORDS + NEXT] = next;
  if (next === NIL) words[TAIL_WORD] = prev;
  else words[HEADER_WORDS + next * SLOT_WORDS + PREV] = prev;
  // Link in front of the old head.
  words[s + PREV] = NIL;
  words[s + NEXT] = head;
  words[HEADER_WORDS + head * SLOT_WORDS + PREV] = item;
  words[HEAD_WORD] = item;
}

/** One occupied slot of the list, as {@link SyncScanTracker.entries} returns it. */
export interface SyncScanEntry {
  /** The relation's key (see `fileIdentityKey`, `relFileLocatorKey`, `nameKey`). */
  readonly key: number;
  /** The last location stored for it: a block number, 0 or a multiple of the report interval. */
  readonly location: number;
}

/** The occupied slots from most to least recently used. The caller holds the lock. */
export function lruEntries(words: Int32Array): SyncScanEntry[] {
  const out: SyncScanEntry[] = [];
  let item = words[HEAD_WORD]!;
  const nelem = words[NELEM_WORD]!;
  for (let steps = 0; item !== NIL && steps < nelem; steps++) {
    const s = HEADER_WORDS + item * SLOT_WORDS;
    const hi = words[s + KEY_HI]!;
    if (hi !== NIL) {
      out.push({ key: hi * TWO_POW_32 + (words[s + KEY_LO]! >>> 0), location: words[s + LOCATION]! >>> 0 });
    }
    item = words[s + NEXT]!;
  }
  return out;
}

/**
 * Rewrites the location stored for `key` as `map(location)`, in place: the
 * entry keeps its place in the LRU (nobody scanned or reported; the relation
 * was renumbered). Returns false when the key has no entry. The caller holds
 * the lock.
 */
export function lruRelocate(words: Int32Array, key: number, map: (location: number) => number): boolean {
  const hi = keyHigh(key);
  const lo = keyLow(key);
  let item = words[HEAD_WORD]!;
  const nelem = words[NELEM_WORD]!;
  for (let steps = 0; item !== NIL && steps < nelem; steps++) {
    const s = HEADER_WORDS + item * SLOT_WORDS;
    if (words[s + KEY_HI] === hi && words[s + KEY_LO] === lo) {
      words[s + LOCATION] = map(words[s + LOCATION]! >>> 0) | 0;
      return true;
    }
    item = words[s + NEXT]!;
  }
  return false;
}

/**
 * Check the list's structure (every slot linked exactly once, prev/next
 * consistent, head and tail at the ends, no key twice). Returns a description
 * of the first problem found, or `null`. The caller holds the lock.
 */
export function lruProblem(words: Int32Array): string | null {
  const nelem = words[NELEM_WORD]!;
  const seen = new Set<number>();
  const keys = new Set<number>();
  let prev = NIL;
  let item = words[HEAD_WORD]!;
  while (item !== NIL) {
    if (item < 0 || item >= nelem) return `link to slot ${item} outside 0..${nelem - 1}`;
    if (seen.has(item)) return `slot ${item} linked twice`;
    seen.add(item);
    const s = HEADER_WORDS + item * SLOT_WORDS;
    if (words[s + PREV] !== prev) return `slot ${item} has prev ${words[s + PREV]}, expected ${prev}`;
    const hi = words[s + KEY_HI]!;
    if (hi !== NIL) {
      const key = hi * TWO_POW_32 + (words[s + KEY_LO]! >>> 0);
      if (keys.has(key)) return `key ${key} stored twice`;
      keys.add(key);
    }
    prev = item;
    item = words[s + NEXT]!;
  }
  if (seen.size !== nelem) return `${seen.size} of ${nelem} slots reachable from the head`;
  if (words[TAIL_WORD] !== prev) return `tail is ${words[TAIL_WORD]}, last linked slot is ${prev}`;
  return null;
}
