// Per-block work that remembers, in this worker, every block it was handed
// and how many bytes came with it, in order: finish() returns them, so a test
// can compare what each worker really read with the run list the scanner
// reports for that worker. It waits ~50 microseconds per block so that the
// workers of a scan interleave (and an abort can land mid-scan), and returns
// the byte count, so work.total is the bytes the module saw.
const blocks = [];
const sizes = [];
const cell = new Int32Array(new SharedArrayBuffer(4));

export default function seen(bytes, block) {
  blocks.push(block);
  sizes.push(bytes.length);
  Atomics.wait(cell, 0, 0, 0.05);
  return bytes.length;
}

export function finish() {
  return { blocks, sizes };
}
