import { existsSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { SyncScanError } from "./errors.js";
import { SharedSyncScanTracker, sharedSyncScanBytes } from "./shared-tracker.js";

// Real worker threads on one SharedArrayBuffer. Workers run the built package
// (dist/index.js), so `npm run build` comes first (turbo's test task does it).
const workerUrl = new URL("../test/workers/tracker-worker.mjs", import.meta.url);
const distUrl = new URL("../dist/index.js", import.meta.url);

const workers: Worker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.terminate()));
});

function spawn(workerData: Record<string, unknown>): Worker {
  const w = new Worker(workerUrl, { workerData });
  workers.push(w);
  return w;
}

function nextMessage<T>(w: Worker): Promise<T> {
  return new Promise((resolve, reject) => {
    w.once("message", resolve);
    w.once("error", reject);
  });
}

async function until(cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > timeoutMs) throw new Error("timed out waiting for a worker");
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("SharedSyncScanTracker in one thread", () => {
  it("two views of one buffer share one list", () => {
    const a = SharedSyncScanTracker.create();
    const b = SharedSyncScanTracker.attach(a.buffer);
    expect(a.buffer.byteLength).toBe(sharedSyncScanBytes(20));
    expect(b.nelem).toBe(20);
    expect(b.reportIntervalBlocks).toBe(16);
    a.reportLocation(7, 4096);
    expect(b.getLocation(7, 100_000)).toBe(4096);
    const release = a.holdLock();
    expect(b.reportLocation(7, 8192)).toBe(false);
    release();
    expect(a.droppedReports).toBe(1);
    expect(b.droppedReports).toBe(1);
  });

  it("keeps its configuration in the buffer", () => {
    const a = SharedSyncScanTracker.create({ nelem: 5, reportIntervalBlocks: 32 });
    const b = SharedSyncScanTracker.attach(a.buffer);
    expect([b.nelem, b.reportIntervalBlocks]).toEqual([5, 32]);
  });

  it("refuses a buffer that is not a tracker", () => {
    expect(() => SharedSyncScanTracker.attach(new SharedArrayBuffer(432))).toThrow(SyncScanError);
    expect(() => SharedSyncScanTracker.attach(new ArrayBuffer(432) as unknown as SharedArrayBuffer)).toThrow(
      /not a syncscan tracker/,
    );
    expect(() => SharedSyncScanTracker.create({ nelem: 1 })).toThrow(SyncScanError);
  });
});

describe("SharedSyncScanTracker with worker threads", () => {
  beforeAll(() => {
    expect(
      existsSync(distUrl),
      "dist/index.js is missing: run `npm run build` in packages/syncscan first",
    ).toBe(true);
  });

  it("a reporter that finds the lock held drops its report; a reader waits for it", async () => {
    const tracker = SharedSyncScanTracker.create();
    tracker.reportLocation(5, 320);
    const flags = new SharedArrayBuffer(8);
    const f = new Int32Array(flags);
    const release = tracker.holdLock(); // main thread plays the backend inside SyncScanLock
    const w = spawn({ mode: "blocked", buffer: tracker.buffer, flags, key: 5, block: 480, nblocks: 10_000 });
    expect(await nextMessage<{ reported: boolean }>(w)).toEqual({ reported: false });
    expect(tracker.droppedReports).toBe(1);
    const answer = nextMessage<{ location: number }>(w);
    w.postMessage("get");
    await until(() => Atomics.load(f, 0) === 1);
    await new Promise((r) => setTimeout(r, 200));
    expect(Atomics.load(f, 1)).toBe(0); // still waiting for the lock
    release();
    // The dropped report never landed: the reader sees the earlier 320.
    expect(await answer).toEqual({ location: 320 });
    expect(Atomics.load(f, 1)).toBe(1);
  });

  it("four workers hammering one tracker leave a sound list and lose nothing but dropped reports", async () => {
    const tracker = SharedSyncScanTracker.create();
    const nblocks = 100_000;
    const results = await Promise.all(
      [1, 2, 3, 4].map((seed) =>
        nextMessage<{ stored: number; notStored: number; badLocations: number }>(
          spawn({ mode: "hammer", buffer: tracker.buffer, seed, keys: 30, nblocks, iterations: 200_000 }),
        ),
      ),
    );
    expect(results.map((r) => r.badLocations)).toEqual([0, 0, 0, 0]);
    expect(results.reduce((s, r) => s + r.stored, 0)).toBeGreaterThan(0);
    expect(tracker.structureProblem()).toBeNull();
    const entries = tracker.entries();
    expect(entries).toHaveLength(20);
    expect(new Set(entries.map((e) => e.key)).size).toBe(20);
    for (const e of entries) {
      expect(e.key).toBeLessThan(30);
      expect(e.location % 16).toBe(0);
      expect(e.location).toBeLessThan(nblocks);
    }
    // Every report of a multiple either landed or was counted as dropped (the
    // hammer only reports multiples through reportLocation).
    const notStored = results.reduce((s, r) => s + r.notStored, 0);
    expect(tracker.droppedReports).toBeGreaterThanOrEqual(notStored);
    console.log(
      `shared tracker, 4 workers x 200k ops: ${tracker.droppedReports} reports dropped on contention`,
    );
  });

  it("a worker is refused a buffer that is not a tracker", async () => {
    const w = spawn({ mode: "attach-bad", buffer: new SharedArrayBuffer(64) });
    expect(await nextMessage<{ error: string | null }>(w)).toEqual({ error: "SYNCSCAN_BAD_BUFFER" });
  });
});
