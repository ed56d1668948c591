// Per-block work that sleeps ~100 microseconds on every 32nd block: enough
// pauses for the workers of a scan to interleave their claims, few enough to
// keep a 100,000-block scan short.
const cell = new Int32Array(new SharedArrayBuffer(4));

export default function nap(_bytes, block) {
  if (block % 32 === 0) Atomics.wait(cell, 0, 0, 0.1);
}
