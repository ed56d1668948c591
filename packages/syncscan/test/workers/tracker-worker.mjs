// A worker thread for shared-tracker.test.ts. It uses the *built* package
// (dist/), exactly what @scanlab/file-scan's workers will load.
import { parentPort, workerData } from "node:worker_threads";
import { mulberry32 } from "@scanlab/core";
import { SharedSyncScanTracker } from "../../dist/index.js";

if (workerData.mode === "hammer") {
  const tracker = SharedSyncScanTracker.attach(workerData.buffer);
  // Deterministic per-worker pseudo-random operations (mulberry32, seeded by the worker id).
  const random = mulberry32(workerData.seed);
  const rand = () => random.nextFloat();
  const { keys, nblocks, iterations } = workerData;
  let stored = 0;
  let notStored = 0;
  let badLocations = 0;
  for (let i = 0; i < iterations; i++) {
    const key = Math.floor(rand() * keys);
    const r = rand();
    if (r < 0.2) {
      const loc = tracker.getLocation(key, nblocks);
      if (loc >= nblocks || loc % tracker.reportIntervalBlocks !== 0) badLocations++;
    } else if (r < 0.6) {
      if (tracker.reportLocation(key, Math.floor(rand() * (nblocks / 16)) * 16)) stored++;
      else notStored++;
    } else {
      if (tracker.reportRun(key, Math.floor(rand() * nblocks), 1 + Math.floor(rand() * 64), nblocks))
        stored++;
    }
  }
  parentPort.postMessage({ stored, notStored, badLocations });
} else if (workerData.mode === "blocked") {
  const tracker = SharedSyncScanTracker.attach(workerData.buffer);
  // The main thread holds the lock. A report must not wait: it is dropped.
  const flags = new Int32Array(workerData.flags);
  const reported = tracker.reportLocation(workerData.key, workerData.block);
  parentPort.postMessage({ reported });
  parentPort.once("message", () => {
    // A reader waits (Atomics.wait) until the main thread releases the lock.
    Atomics.store(flags, 0, 1); // about to ask
    const location = tracker.getLocation(workerData.key, workerData.nblocks);
    Atomics.store(flags, 1, 1); // got an answer
    parentPort.postMessage({ location });
  });
} else if (workerData.mode === "attach-bad") {
  try {
    SharedSyncScanTracker.attach(workerData.buffer);
    parentPort.postMessage({ error: null });
  } catch (e) {
    parentPort.postMessage({ error: e.code });
  }
}
