/**
 * The buffer mapping table: (table, block) -> buffer id, as an open-addressing
 * hash with linear probing and backward-shift deletion over typed arrays.
 * PostgreSQL's own is a partitioned dynahash; this one only has to be fast,
 * allocation-free and deterministic, because every shared-buffer miss of a
 * 100-million-block scan goes through it.
 */
const EMPTY = -1;

/**
 * A buffer tag as one number: table x 2^32 + block (block numbers are
 * PostgreSQL's 32-bit BlockNumber, so tags of different tables never meet).
 */
export const TAG_TABLE_STRIDE = 4294967296;

export class BufferMap {
  private readonly keys: Float64Array;
  private readonly values: Int32Array;
  private readonly mask: number;
  /** 32 - log2(capacity): the slot is the top bits of the product. */
  private readonly shift: number;
  size = 0;

  constructor(capacity: number) {
    let cap = 16;
    let bits = 4;
    while (cap < capacity * 2) {
      cap *= 2;
      bits++;
    }
    this.keys = new Float64Array(cap).fill(EMPTY);
    this.values = new Int32Array(cap);
    this.mask = cap - 1;
    this.shift = 32 - bits;
  }

  /**
   * Fibonacci hashing: the top bits of key x 2^32/phi. The low bits of that
   * product are only a permutation of the block's low bits, so blocks a
   * multiple of the capacity apart (parallel workers scanning chunks 8192
   * blocks apart) would share a slot and build long probe chains.
   */
  private slot(table: number, block: number): number {
    return Math.imul(block ^ Math.imul(table + 1, 0x85ebca6b), 0x9e3779b1) >>> this.shift;
  }

  /** The buffer holding (table, block), or -1. */
  get(table: number, block: number): number {
    const key = table * TAG_TABLE_STRIDE + block;
    const keys = this.keys;
    const mask = this.mask;
    let i = this.slot(table, block);
    for (;;) {
      const k = keys[i]!;
      if (k === key) return this.values[i]!;
      if (k === EMPTY) return -1;
      i = (i + 1) & mask;
    }
  }

  /** Maps (table, block) to `buffer` (the key must be absent). */
  set(table: number, block: number, buffer: number): void {
    const key = table * TAG_TABLE_STRIDE + block;
    const keys = this.keys;
    const mask = this.mask;
    let i = this.slot(table, block);
    while (keys[i] !== EMPTY) {
      if (keys[i] === key) {
        this.values[i] = buffer;
        return;
      }
      i = (i + 1) & mask;
    }
    keys[i] = key;
    this.values[i] = buffer;
    this.size++;
  }

  /** Removes (table, block) if present. */
  delete(table: number, block: number): void {
    const key = table * TAG_TABLE_STRIDE + block;
    const keys = this.keys;
    const values = this.values;
    const mask = this.mask;
    let i = this.slot(table, block);
    for (;;) {
      const k = keys[i]!;
      if (k === EMPTY) return;
      if (k === key) break;
      i = (i + 1) & mask;
    }
    // Backward-shift deletion keeps every probe chain unbroken without tombstones.
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const k = keys[j]!;
      if (k === EMPTY) break;
      const t = Math.floor(k / TAG_TABLE_STRIDE);
      const home = this.slot(t, k - t * TAG_TABLE_STRIDE);
      // Move k back into the hole at i if its home is not cyclically in (i, j].
      const between = i <= j ? home > i && home <= j : home > i || home <= j;
      if (!between) {
        keys[i] = k;
        values[i] = values[j]!;
        i = j;
      }
    }
    keys[i] = EMPTY;
    this.size--;
  }
}
