// Per-block work that sleeps 100 microseconds after each block, the way a
// PostgreSQL worker waits for a read that misses the page cache: while one
// worker sleeps the others claim blocks, so allocation interleaves even on a
// busy two-core machine. Returns 1 per block.
const cell = new Int32Array(new SharedArrayBuffer(4));
const SLEEP_MS = 0.1;

export default function sleepy() {
  Atomics.wait(cell, 0, 0, SLEEP_MS);
  return 1;
}
