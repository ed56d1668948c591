/**
 * The ordered set of cached extents of one file: a skip list keyed by first
 * page, whose bottom level is a doubly linked list.
 *
 * The page cache of a simulated machine holds up to millions of pages of
 * hundreds of files; scans leave long runs of pages in the same state, random
 * reads leave many short ones. An extent is a run of pages with one state, so
 * a sequential reader costs a handful of extents whatever the file size, and
 * random reads cost one extent each. Lookups ("which extent holds page p",
 * "what is just below it") are O(log n); walking to a neighbour is O(1)
 * through `prev` / `next[0]`, which is what the readahead models do most
 * (next miss, previous miss, quiet runs).
 *
 * Levels are drawn from a fixed-seed xorshift generator (p = 1/4), so the
 * structure (and its speed) is deterministic; its contents never depend on
 * the draw.
 */
import { type SeededRandom, xorshift32 } from "@scanlab/core";

/** Internal: tallest tower; 4^16 extents is far beyond any simulated cache. */
const MAX_LEVEL = 16;

/** The forward pointers of an extent not yet in a list: shared, never written. */
const NO_LINKS: (Extent | null)[] = [];

/**
 * One run of cached pages `[start, end)` of one file sharing one state.
 * @internal
 */
export class Extent {
  /** First page. */
  start: number;
  /** One past the last page. */
  end: number;
  /** When the pages become valid (µs); `-Infinity` once known to be valid. */
  readyAtUs: number;
  /** LRU epoch of the last touch. */
  epoch: number;
  /** First page of the marker unit (Linux folio with PG_readahead, FreeBSD buffer with B_RAM), or -1. */
  mark: number;
  /** log2 of the size of the (naturally aligned) folios the extent is made of. */
  order: number;
  /** Owning file (renamed only by `renumberSegmentFiles`, sim.ts). */
  file: number;
  /** Forward pointers, one per level (set by {@link ExtentList.insert}; none before). */
  next: (Extent | null)[] = NO_LINKS;
  /** Backward pointer at level 0. */
  prev: Extent | null = null;
  /** False once removed from its list. */
  alive = true;

  constructor(
    file: number,
    start: number,
    end: number,
    readyAtUs: number,
    epoch: number,
    mark: number,
    order = 0,
  ) {
    this.file = file;
    this.order = order;
    this.start = start;
    this.end = end;
    this.readyAtUs = readyAtUs;
    this.epoch = epoch;
    this.mark = mark;
  }
}

/**
 * Skip list of non-overlapping extents ordered by `start`.
 * @internal
 */
export class ExtentList {
  private readonly head: (Extent | null)[] = new Array<Extent | null>(MAX_LEVEL).fill(null);
  private readonly update: (Extent | null)[] = new Array<Extent | null>(MAX_LEVEL).fill(null);
  private level = 1;
  /** xorshift32 from a fixed nonzero state, so that every run builds the same towers. */
  private readonly levels: SeededRandom = xorshift32(0x2545f491);
  /** Number of extents. */
  size = 0;

  /** The lowest extent, or null. */
  first(): Extent | null {
    return this.head[0]!;
  }

  /**
   * The last answer of {@link ExtentList.findLE} (a finger): readers move
   * forward through a file, so the next answer is usually it or the extent
   * after it, found without a search. Cleared when that extent is removed.
   */
  private finger: Extent | null = null;

  /** The last extent whose `start <= page`, or null if every extent starts above `page`. */
  findLE(page: number): Extent | null {
    const f = this.finger;
    if (f !== null && f.start <= page) {
      const n1 = f.next[0]!;
      if (n1 === null || n1.start > page) return f;
      const n2 = n1.next[0]!;
      if (n2 === null || n2.start > page) {
        this.finger = n1;
        return n1;
      }
    }
    const x = this.search(page);
    this.finger = x;
    return x;
  }

  private search(page: number): Extent | null {
    let x: Extent | null = null;
    for (let l = this.level - 1; l >= 0; l--) {
      let nx: Extent | null = x === null ? this.head[l]! : x.next[l]!;
      while (nx !== null && nx.start <= page) {
        x = nx;
        nx = nx.next[l]!;
      }
    }
    return x;
  }

  /** The extent containing `page`, or null. */
  find(page: number): Extent | null {
    const e = this.findLE(page);
    return e !== null && e.end > page ? e : null;
  }

  /** The first extent that ends above `page` (contains it or lies after it), or null. */
  findFrom(page: number): Extent | null {
    const e = this.findLE(page);
    if (e === null) return this.head[0]!;
    return e.end > page ? e : e.next[0]!;
  }

  private randomLevel(): number {
    let lvl = 1;
    for (;;) {
      // Marsaglia's xorshift32 (shifts 13, 17, 5); p = 1/4 per extra level.
      if ((this.levels.nextUint32() & 3) !== 0 || lvl >= MAX_LEVEL) return lvl;
      lvl++;
    }
  }

  private findPredecessors(start: number): void {
    let x: Extent | null = null;
    for (let l = this.level - 1; l >= 0; l--) {
      let nx: Extent | null = x === null ? this.head[l]! : x.next[l]!;
      while (nx !== null && nx.start < start) {
        x = nx;
        nx = nx.next[l]!;
      }
      this.update[l] = x;
    }
  }

  /** Inserts `e` (which must not overlap an extent of the list). */
  insert(e: Extent): void {
    this.findPredecessors(e.start);
    const lvl = this.randomLevel();
    if (lvl > this.level) {
      for (let l = this.level; l < lvl; l++) this.update[l] = null;
      this.level = lvl;
    }
    e.next = new Array<Extent | null>(lvl);
    for (let l = 0; l < lvl; l++) {
      const pred = this.update[l]!;
      if (pred === null) {
        e.next[l] = this.head[l]!;
        this.head[l] = e;
      } else {
        e.next[l] = pred.next[l]!;
        pred.next[l] = e;
      }
    }
    e.prev = this.update[0]!;
    const after = e.next[0]!;
    if (after !== null) after.prev = e;
    e.alive = true;
    this.size++;
  }

  /** Removes `e` from the list. */
  remove(e: Extent): void {
    if (this.finger === e) this.finger = null;
    this.findPredecessors(e.start);
    for (let l = 0; l < e.next.length; l++) {
      const pred = this.update[l]!;
      if (pred === null) this.head[l] = e.next[l]!;
      else pred.next[l] = e.next[l]!;
    }
    const after = e.next[0]!;
    if (after !== null) after.prev = e.prev;
    while (this.level > 1 && this.head[this.level - 1] === null) this.level--;
    e.alive = false;
    this.size--;
  }
}
