// Per-block work that fails on block 5.
export default function throwing(_bytes, block) {
  if (block === 5) throw new Error("block 5 is cursed");
}
