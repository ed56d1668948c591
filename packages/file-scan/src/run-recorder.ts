/**
 * Growable lists of (first block, blocks) pairs a worker keeps while it reads:
 * its runs of consecutive blocks, and, when asked, every read and every claim.
 * Typed arrays that double as needed, so that recording costs no allocation
 * per entry, and whose buffers are transferred (not copied) to the main
 * thread at the end.
 */

/** Initial capacity of a list (doubles as needed). */
const INITIAL_CAPACITY = 1024;

/** Spans of blocks: count and sizes always, starts and lengths when recording. */
export class RunRecorder {
  /** Entries pushed. */
  count = 0;
  /** Smallest length pushed (0 when none). */
  minBlocks = 0;
  /** Largest length pushed. */
  maxBlocks = 0;
  /** First blocks, when recording (`count` entries used). */
  starts: Uint32Array | null;
  /** Lengths in blocks, when recording. */
  lengths: Uint32Array | null;

  constructor(record: boolean) {
    this.starts = record ? new Uint32Array(INITIAL_CAPACITY) : null;
    this.lengths = record ? new Uint32Array(INITIAL_CAPACITY) : null;
  }

  /** Adds a span of `blocks` blocks starting at `start`. */
  push(start: number, blocks: number): void {
    if (this.count === 0 || blocks < this.minBlocks) this.minBlocks = blocks;
    if (blocks > this.maxBlocks) this.maxBlocks = blocks;
    if (this.starts !== null && this.lengths !== null) {
      if (this.count === this.starts.length) this.grow();
      this.starts[this.count] = start;
      this.lengths[this.count] = blocks;
    }
    this.count++;
  }

  /** The buffers to transfer to the main thread. */
  buffers(): ArrayBuffer[] {
    const out: ArrayBuffer[] = [];
    if (this.starts !== null) out.push(this.starts.buffer as ArrayBuffer);
    if (this.lengths !== null) out.push(this.lengths.buffer as ArrayBuffer);
    return out;
  }

  protected grow(): void {
    const s = new Uint32Array(this.count * 2);
    s.set(this.starts!);
    this.starts = s;
    const l = new Uint32Array(this.count * 2);
    l.set(this.lengths!);
    this.lengths = l;
  }
}

/** Reads: spans, each with whether it was advised. */
export class ReadRecorder extends RunRecorder {
  /** 1 for an advised read, when recording. */
  advised: Uint8Array | null;

  constructor(record: boolean) {
    super(record);
    this.advised = record ? new Uint8Array(INITIAL_CAPACITY) : null;
  }

  /** Adds a read of `blocks` blocks at `start`, advised or not. */
  pushRead(start: number, blocks: number, advised: boolean): void {
    if (this.advised !== null) {
      if (this.count === this.advised.length) {
        const a = new Uint8Array(this.count * 2);
        a.set(this.advised);
        this.advised = a;
      }
      this.advised[this.count] = advised ? 1 : 0;
    }
    this.push(start, blocks);
  }

  /** Adds the unadvised one-block reads of blocks `start` .. `start + blocks - 1`. */
  pushOneBlockReads(start: number, blocks: number): void {
    for (let b = start, e = start + blocks; b < e; b++) this.pushRead(b, 1, false);
  }

  /** Counts `blocks` one-block reads without recording where they were. */
  countOneBlockReads(blocks: number): void {
    if (blocks === 0) return;
    if (this.count === 0 || this.minBlocks > 1) this.minBlocks = 1;
    if (this.maxBlocks < 1) this.maxBlocks = 1;
    this.count += blocks;
  }

  /** The buffers to transfer to the main thread. */
  override buffers(): ArrayBuffer[] {
    const out = super.buffers();
    if (this.advised !== null) out.push(this.advised.buffer as ArrayBuffer);
    return out;
  }
}
