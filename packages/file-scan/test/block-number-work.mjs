// Per-block work that checks the block's own label: test files (files.ts)
// hold each block's number in its first 8 bytes, little-endian. Returns 1 when
// the block read under number b says b, 0 otherwise; finish() reports the
// sizes of the views it was given, so partial blocks are visible.
const sizes = new Map();

export default function blockNumber(bytes, block) {
  sizes.set(bytes.length, (sizes.get(bytes.length) ?? 0) + 1);
  if (bytes.length < 8) return 1; // too short to hold a label: nothing to check
  const view = new DataView(bytes.buffer, bytes.byteOffset, 8);
  return view.getBigUint64(0, true) === BigInt(block) ? 1 : 0;
}

export function finish() {
  return Object.fromEntries(sizes);
}
