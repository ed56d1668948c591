/**
 * Simulator hooks stay off the main entries (sim-hooks.ts): the rule finds a
 * leak, and no main entry of a model package has one, while each `./sim`
 * subpath offers the protocol's function.
 */
import * as bitmap from "@scanlab/bitmap-prefetch";
import * as bitmapSim from "@scanlab/bitmap-prefetch/sim";
import * as allocator from "@scanlab/block-allocator";
import * as allocatorSim from "@scanlab/block-allocator/sim";
import * as buffers from "@scanlab/buffer-manager";
import * as buffersSim from "@scanlab/buffer-manager/sim";
import * as core from "@scanlab/core";
import * as coreSim from "@scanlab/core/sim";
import * as readahead from "@scanlab/readahead";
import * as readaheadSim from "@scanlab/readahead/sim";
import * as syncscan from "@scanlab/syncscan";
import * as syncscanSim from "@scanlab/syncscan/sim";
import { describe, expect, it } from "vitest";
import { simHookLeaks } from "./sim-hooks.js";

describe("simHookLeaks", () => {
  it("finds hooks exported by name, on a class, and on an object a factory returns", () => {
    class Scan {
      relabel(): void {}
      static fastForwardAll(): void {}
    }
    const hidden = Symbol("renumber");
    class Quiet {
      [hidden](): void {}
    }
    expect(
      simHookLeaks(
        { renumberScan: () => {}, Scan, Quiet, ok: 1 },
        { "createScan()": { relocate() {} } },
      ).sort(),
    ).toEqual(["Scan.fastForwardAll", "Scan.prototype.relabel", "createScan().relocate", "renumberScan"]);
  });
});

describe("the model packages' main entries", () => {
  const scan = allocator.createParallelScan({ kind: "pg14" }, { nblocks: 100 });
  const cache = new readahead.PageCache();
  const cases: [string, Record<string, unknown>, Record<string, object>][] = [
    ["@scanlab/core", core, {}],
    ["@scanlab/block-allocator", allocator, { "createParallelScan()": scan, "join()": scan.join() }],
    [
      "@scanlab/buffer-manager",
      buffers,
      { "new SharedBuffers()": new buffers.SharedBuffers({ nBuffers: 16, relationBlocks: [100] }) },
    ],
    [
      "@scanlab/syncscan",
      syncscan,
      { "new InProcessSyncScanTracker()": new syncscan.InProcessSyncScanTracker() },
    ],
    [
      "@scanlab/readahead",
      readahead,
      { "new PageCache()": cache, "linuxReadahead().open()": readahead.linuxReadahead(cache).open(1) },
    ],
    [
      "@scanlab/bitmap-prefetch",
      bitmap,
      { "HeapBitmap.fromPages()": bitmap.HeapBitmap.fromPages(10, [1, 2]) },
    ],
  ];
  for (const [name, entry, samples] of cases)
    it(`${name} exposes no simulator hook`, () => {
      expect(simHookLeaks(entry, samples)).toEqual([]);
    });

  it("each ./sim subpath offers the renumbering protocol", () => {
    expect(Object.keys(coreSim).sort()).toEqual(["cutStretch", "renumberSegment", "restoreStretch"]);
    expect(Object.keys(allocatorSim).sort()).toEqual(["fastForwardScan", "renumberScan"]);
    expect(Object.keys(syncscanSim)).toEqual(["renumberLocation"]);
    expect(Object.keys(buffersSim)).toEqual(["renumberBuffers"]);
    expect(Object.keys(readaheadSim).sort()).toEqual(["renumberOpenFile", "renumberSegmentFiles"]);
    expect(Object.keys(bitmapSim).sort()).toEqual(["renumberBitmap", "renumberPrefetch"]);
  });
});
