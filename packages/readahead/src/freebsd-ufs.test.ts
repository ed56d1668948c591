/** The FreeBSD UFS model against apps/docs/src/reference/freebsd-ufs-clustering.md (heuristic, cluster_read, the apps/docs/src/reference/freebsd-ufs-clustering.md#why-striding-collapses-to-32-kb collapse). */
import { describe, expect, it } from "vitest";
import { ReadaheadError } from "./errors.js";
import { type FreeBsdUfsOptions, freebsdUfsReadahead } from "./freebsd-ufs.js";
import { PageCache } from "./page-cache.js";
import { readBlock, TestDevice } from "./test-driver.js";

const BSD12: FreeBsdUfsOptions = { version: "<=12" }; // bsize 32 KiB, MAXPHYS 128 KiB: racluster 4

function setup(opts: FreeBsdUfsOptions = BSD12, openers = 1, sizePages = 1 << 20) {
  const cache = new PageCache();
  const model = freebsdUfsReadahead(cache, opts);
  const ofs = Array.from({ length: openers }, () => model.open(1, { sizePages }));
  return { cache, model, ofs, dev: new TestDevice() };
}

describe("sequential_heuristic (apps/docs/src/reference/freebsd-ufs-clustering.md#sequential-heuristic)", () => {
  it("adds one per 8 kB sequential read, draws down to 1 then 0 on jumps", () => {
    const { model, ofs, dev } = setup();
    const of = ofs[0]!;
    expect(of.seqcount).toBe(1); // open() sets 1
    readBlock(model, of, 0, 0, dev); // offset 0 with a positive counter counts as sequential
    expect(of.seqcount).toBe(2);
    readBlock(model, of, 1, 1000, dev);
    expect(of.seqcount).toBe(3);
    readBlock(model, of, 10, 2000, dev);
    expect(of.seqcount).toBe(1);
    readBlock(model, of, 20, 3000, dev);
    expect(of.seqcount).toBe(0);
    readBlock(model, of, 0, 4000, dev); // offset 0 is special only while the counter is positive
    expect(of.seqcount).toBe(0);
  });
});

describe("one sequential reader", () => {
  it("reads the first block synchronously, then 128 KiB clusters ahead, up to read_max blocks ahead", () => {
    const { model, ofs, dev } = setup();
    let t = 0;
    let ahead = 0;
    for (let b = 0; b < 4000; b++) {
      t = readBlock(model, ofs[0]!, b, t, dev).readyAtUs + 15;
      const last = dev.log.at(-1)!;
      ahead = Math.max(ahead, (last.page + last.pages) / 8 - Math.floor(b / 4)); // UFS blocks ahead
    }
    expect(dev.log[0]).toMatchObject({ page: 0, pages: 8, sync: true }); // 32 KiB, block 0
    expect(dev.log.slice(1).every((l) => l.kib === 128 && !l.sync)).toBe(true);
    expect(ahead).toBeGreaterThanOrEqual(60); // vfs.read_max = 64 blocks = 2 MiB
    expect(ahead).toBeLessThanOrEqual(64 + 4);
  });
});

describe("two striding readers collapse to 32 KiB synchronous reads (apps/docs/src/reference/freebsd-ufs-clustering.md#why-striding-collapses-to-32-kb)", () => {
  for (const version of ["<=12", ">=13"] as const) {
    it(`FreeBSD ${version}`, () => {
      const { model, ofs, dev } = setup({ version }, 2);
      let t = 0;
      for (let b = 0; b < 2000; b++) {
        readBlock(model, ofs[b % 2]!, b, t, dev);
        t += 20;
      }
      // Only the very first read, at offset 0, counts as sequential: block 0 plus one readahead cluster.
      expect(dev.log[0]).toMatchObject({ page: 0, pages: 8, sync: true });
      expect(dev.log[1]).toMatchObject({ page: 8, sync: false });
      const rest = dev.log.slice(2);
      expect(rest.length).toBeGreaterThan(100);
      expect(rest.every((l) => l.kib === 32 && l.sync)).toBe(true);
      expect(ofs.map((o) => o.seqcount)).toEqual([0, 0]);
    });
  }

  it("F_READAHEAD on each descriptor bypasses the gate (apps/docs/src/reference/freebsd-ufs-clustering.md#why-striding-collapses-to-32-kb [I])", () => {
    const cache = new PageCache();
    const model = freebsdUfsReadahead(cache, BSD12);
    const ofs = [model.open(1, { readaheadSeqcount: 16 }), model.open(1, { readaheadSeqcount: 16 })];
    const dev = new TestDevice();
    let t = 0;
    for (let b = 0; b < 2000; b++) {
      readBlock(model, ofs[b % 2]!, b, t, dev);
      t += 20;
    }
    const kib = dev.log.reduce((a, l) => a + l.kib, 0) / dev.log.length;
    expect(kib).toBeGreaterThan(100);
  });
});

describe("FreeBSD 13 page-cache fast path (apps/docs/src/reference/freebsd-ufs-clustering.md#version-notes)", () => {
  it("a resident, valid read does not run the heuristic; FreeBSD 12 does", () => {
    for (const [version, expected] of [
      [">=13", 1],
      ["<=12", 41],
    ] as const) {
      const { model, ofs, dev } = setup({ version }, 2);
      let t = 0;
      for (let b = 0; b < 40; b++) t = readBlock(model, ofs[0]!, b, t, dev).readyAtUs + 15;
      t += 1e6; // everything landed
      for (let b = 0; b < 40; b++) t = readBlock(model, ofs[1]!, b, t, dev).readyAtUs + 15;
      expect(ofs[1]!.seqcount).toBe(expected);
      expect(ofs[1]!.nextOffPages).toBe(80);
    }
  });
});

describe("advice", () => {
  it("POSIX_FADV_RANDOM skips the heuristic: lone 32 KiB reads; WILLNEED does nothing", () => {
    const { model, ofs, dev } = setup();
    const of = ofs[0]!;
    model.fadvise(of, "random", 0, 0, 0, dev.submit);
    expect(model.fadvise(of, "willneed", 0, 1000, 0, dev.submit).asyncIos).toBe(0);
    let t = 0;
    for (let b = 0; b < 64; b++) t = readBlock(model, of, b, t, dev).readyAtUs + 15;
    expect(dev.sizes()).toEqual(new Array(16).fill(32));
  });
});

describe("bad parameters", () => {
  it("name what was wrong in one sentence", () => {
    const cache = new PageCache();
    expect(() => freebsdUfsReadahead(cache, { version: "14" as never })).toThrow(
      'FreeBSD version "14" is unknown; use "<=12" or ">=13".',
    );
    expect(() => freebsdUfsReadahead(cache, { bsizeBytes: 10000 })).toThrow(ReadaheadError);
    expect(() => freebsdUfsReadahead(cache, { readMax: -1 })).toThrow(
      "FreeBSD readMax must be an integer >= 0, got -1.",
    );
  });
});

describe("a read that waits (PendingRead)", () => {
  it("counts as remaining only the pages from the next block still to hand to cluster_read", () => {
    const { model, ofs, dev } = setup();
    // Pages 100-131 = UFS blocks 12 (from its page 4) to 16, cold: block 12 misses and
    // clusters 12-15 (128 KiB, synchronous); the reader sleeps on block 12 (bufwait)
    // before it hands block 13 on, so 13-16 remain: pages 104-131.
    const out = model.read(ofs[0]!, 100, 32, 0, dev.submit);
    expect(dev.log).toMatchObject([{ page: 96, pages: 32, sync: true }]);
    const pending = out.pending!;
    expect(pending.remainingPages).toBe(132 - 104);
    dev.nowUs = out.readyAtUs;
    const done = model.resume(pending, out.readyAtUs, dev.submit);
    expect(done.pending).toBeNull();
    expect(dev.log[1]).toMatchObject({ page: 128, pages: 8, sync: true }); // block 16
    expect(pending.remainingPages).toBe(0);
  });
});
