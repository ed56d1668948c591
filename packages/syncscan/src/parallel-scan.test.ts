import { describe, expect, it } from "vitest";
import { beginParallelSyncScan, type ParallelSyncScanHooks, parallelSyncScanHooks } from "./parallel-scan.js";
import { beginSerialScan, continueSerialScan } from "./serial-scan.js";
import { InProcessSyncScanTracker } from "./tracker.js";

const KEY = 11;
const NBUFFERS = 2048; // threshold 512 blocks

/**
 * A participant of PG14+'s chunked allocator, transcribed from apps/docs/src/reference/parallel-block-allocation.md#chunked-allocation
 * (as a test fixture: the real one lives in @scanlab/block-allocator): chunk
 * size = next power of two >= max(nblocks / 2048, 1), capped at 8192; halve
 * when position > nblocks - chunk * 64; report each valid block; the one
 * participant that meets counter nblocks reports the start block.
 */
function chunkedScan(
  nblocks: number,
  startBlock: number,
  participants: number,
  hooks: ParallelSyncScanHooks,
  order: (step: number) => number,
): number[][] {
  let nallocated = 0;
  let chunk = 1;
  while (chunk < Math.max(Math.floor(nblocks / 2048), 1)) chunk *= 2;
  chunk = Math.min(chunk, 8192);
  const state = Array.from({ length: participants }, () => ({
    position: 0,
    remaining: 0,
    chunk,
    done: false,
  }));
  const got: number[][] = state.map(() => []);
  for (let step = 0; state.some((s) => !s.done); step++) {
    const i = order(step) % participants;
    const s = state[i]!;
    if (s.done) continue;
    let n: number;
    if (s.remaining > 0) {
      s.position += 1;
      s.remaining -= 1;
      n = s.position;
    } else {
      if (s.chunk > 1 && s.position > nblocks - s.chunk * 64) s.chunk /= 2;
      n = nallocated;
      nallocated += s.chunk;
      s.position = n;
      s.remaining = s.chunk - 1;
    }
    if (n >= nblocks) {
      if (n === nblocks) hooks.onScanEnd(startBlock);
      s.done = true;
      continue;
    }
    const block = (n + startBlock) % nblocks;
    hooks.onBlock(block);
    got[i]!.push(block);
  }
  return got;
}

describe("parallel cycle (apps/docs/src/reference/parallel-block-allocation.md#atomic-counter, apps/docs/src/reference/parallel-block-allocation.md#chunked-allocation, apps/docs/src/reference/synchronized-scans.md#parallel-scans)", () => {
  it("participants report what they are handed; the end report puts the start block back", () => {
    const t = new InProcessSyncScanTracker();
    const nblocks = 20_000; // chunk 16
    const scan = beginParallelSyncScan(t, { key: KEY, nblocks, nbuffers: NBUFFERS });
    expect(scan.sync).toBe(true);
    expect(scan.startBlock).toBe(0);
    let seen = 0;
    const probe: ParallelSyncScanHooks = {
      getStartBlock: scan.getStartBlock,
      onBlock: (b) => {
        const stored = scan.onBlock(b);
        if (++seen === 5000) {
          // Mid-scan the location is wherever a participant last took a multiple of 16.
          const loc = t.entries()[0]!.location;
          expect(loc % 16).toBe(0);
          expect(Math.abs(loc - b)).toBeLessThan(3 * 16);
        }
        return stored;
      },
      onRun: scan.onRun,
      onScanEnd: scan.onScanEnd,
    };
    const got = chunkedScan(nblocks, scan.startBlock, 3, probe, (s) => (s * 7) % 5);
    expect(got.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: nblocks }, (_, i) => i));
    expect(t.getLocation(KEY, nblocks)).toBe(0);
  });

  it("T4 side note: after joining a sync scan, later scans alone keep starting at the same non-zero block", () => {
    const t = new InProcessSyncScanTracker();
    const nblocks = 50_000;
    // A serial scan gets to block 4800 (say a long-running report query) and stops.
    const serial = beginSerialScan(t, { key: KEY, nblocks, nbuffers: NBUFFERS });
    continueSerialScan(t, KEY, serial, 4800);
    for (let run = 0; run < 3; run++) {
      const scan = beginParallelSyncScan(t, { key: KEY, nblocks, nbuffers: NBUFFERS });
      expect(scan.startBlock).toBe(4800);
      chunkedScan(nblocks, scan.startBlock, 4, scan, (s) => s * 13 + (s >> 3));
      expect(t.getLocation(KEY, nblocks)).toBe(4800);
    }
  });

  it("onRun for a chunk equals onBlock for each of its blocks, across the wrap", () => {
    const a = new InProcessSyncScanTracker();
    const b = new InProcessSyncScanTracker();
    const sa = beginParallelSyncScan(a, { key: KEY, nblocks: 1000, nbuffers: NBUFFERS });
    const sb = beginParallelSyncScan(b, { key: KEY, nblocks: 1000, nbuffers: NBUFFERS });
    sa.onRun(990, 20);
    for (let i = 0; i < 20; i++) sb.onBlock((990 + i) % 1000);
    expect(a.entries()).toEqual(b.entries());
    expect(a.entries()[0]!.location).toBe(0);
  });

  it("an ineligible scan starts at 0 and its hooks report nothing", () => {
    const t = new InProcessSyncScanTracker();
    t.reportLocation(KEY, 256);
    const scan = beginParallelSyncScan(t, { key: KEY, nblocks: 400, nbuffers: NBUFFERS });
    expect(scan).toMatchObject({ sync: false, startBlock: 0 });
    expect(scan.onBlock(16)).toBe(false);
    expect(scan.onRun(0, 400)).toBe(false);
    expect(scan.onScanEnd(0)).toBe(false);
    expect(t.entries()).toEqual([{ key: KEY, location: 256 }]);
  });
});

describe("parallelSyncScanHooks", () => {
  it("getStartBlock is ss_get_location (0 on a miss, 0 past nblocks) and a no-op when not syncing", () => {
    const t = new InProcessSyncScanTracker();
    const hooks = parallelSyncScanHooks(t, { key: KEY, nblocks: 1000, sync: true });
    expect(hooks.getStartBlock(1000)).toBe(0);
    hooks.onBlock(640);
    expect(hooks.getStartBlock(1000)).toBe(640);
    expect(hooks.getStartBlock(600)).toBe(0);
    const off = parallelSyncScanHooks(t, { key: KEY, nblocks: 1000, sync: false });
    expect(off.getStartBlock(1000)).toBe(0);
    expect(off.onBlock(32)).toBe(false);
    expect(t.entries()).toEqual([{ key: KEY, location: 640 }]);
  });
});
