// A worker_threads participant for the shared-backing tests and the bench: it
// attaches to the allocator in the SharedArrayBuffer it is given, waits for the
// start signal so that all workers race from the same moment, takes blocks
// until it is done, and counts each block it got in a shared array (so the
// main thread can check that every block was handed out exactly once).
import { parentPort, workerData } from "node:worker_threads";
import { attachSharedParallelScan } from "../dist/index.js";

const { buffer, counts, go, mode, record } = workerData;
let ends = 0;
const scan = attachSharedParallelScan(buffer, { hooks: { onScanEnd: () => ends++ } });
const me = scan.join();
const seen = counts ? new Uint8Array(counts) : null;
const gate = new Int32Array(go);
const claimSizes = [];

parentPort.postMessage({ type: "ready" });
Atomics.wait(gate, 0, 0);

const t0 = performance.now();
let blocks = 0;
let calls = 0;
if (mode === "block") {
  for (let b = me.nextBlock(); b !== 0xffffffff; b = me.nextBlock()) {
    blocks++;
    if (seen) Atomics.add(seen, b, 1);
  }
} else {
  for (let run = me.nextRun(); run !== null; run = me.nextRun()) {
    calls++;
    blocks += run.blocks;
    if (record && run.op !== "none") claimSizes.push(me.chunkBlocks);
    if (seen)
      for (let b = run.startBlock, end = run.startBlock + run.blocks; b < end; b++) Atomics.add(seen, b, 1);
  }
}
const elapsedMs = performance.now() - t0;
parentPort.postMessage({ type: "done", blocks, calls, ends, elapsedMs, claimSizes, ops: me.opsPerformed });
