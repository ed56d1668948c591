/**
 * The corners a user reaches first, through the built package: files that are
 * tiny, ragged (not a multiple of the block size) or smaller than a chunk,
 * more workers than blocks, every allocator policy, a start block that makes
 * the scan wrap; each worker's reported runs checked against the blocks a work
 * module saw in that worker; aborts at the very end; a file that grows; bad
 * paths and options; file descriptors after success and failure.
 */
import {
  appendFileSync,
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import type { AllocatorPolicy } from "@scanlab/block-allocator";
import { afterAll, describe, expect, it } from "vitest";
import { loadDist, makeTempDir, readChecksums, writeBlockFile } from "../test/files.js";
import { userError } from "../test/user-error.js";
import { blockChecksum, countNonZeroBytes, sumBlockChecksums } from "./block-work.js";
import type { ScanResult } from "./index.js";

const { scanFile } = await loadDist();
const tmp = makeTempDir();
afterAll(() => tmp.remove());

const seen = new URL("../test/seen-blocks-work.mjs", import.meta.url).href;
const sleepy = new URL("../test/sleepy-work.mjs", import.meta.url).href;

const POLICIES: AllocatorPolicy[] = [
  { kind: "pg96" },
  { kind: "pg11" },
  { kind: "batch", blocksPerClaim: 4 },
  { kind: "munro2020" },
  { kind: "pg14" },
];

interface Seen {
  blocks: number[];
  sizes: number[];
}

/** Blocks of a run list, in the order the runs were read. */
function expandRuns(starts: Uint32Array, lengths: Uint32Array): number[] {
  const out: number[] = [];
  for (let i = 0; i < starts.length; i++) for (let k = 0; k < lengths[i]!; k++) out.push(starts[i]! + k);
  return out;
}

/**
 * What every complete scan must satisfy, checked against what the seen-blocks
 * module recorded in each worker (not against the scanner's own counters).
 */
function checkComplete(r: ScanResult, size: number, blockBytes: number, workers: number): void {
  const nblocks = Math.ceil(size / blockBytes);
  const last = size - (nblocks - 1) * blockBytes;
  expect(r.target).toMatchObject({ nblocks, lastBlockBytes: last, bytes: size });
  expect([r.aborted, r.blocks, r.bytes, r.shortReads]).toEqual([false, nblocks, size, 0]);
  expect(r.cover).toMatchObject({ exact: true, readOnce: nblocks, neverRead: 0, readMoreThanOnce: 0 });
  expect(r.work).toMatchObject({ kind: "module", total: size });
  expect(r.perWorker).toHaveLength(workers);
  const all: number[] = [];
  for (const w of r.perWorker) {
    const s = w.finish as Seen;
    // The worker's run list is exactly the blocks this worker's module saw, in the same order.
    expect(expandRuns(w.runs.starts!, w.runs.lengths!)).toEqual(s.blocks);
    expect(w.blocks).toBe(s.blocks.length);
    expect(w.bytes).toBe(s.sizes.reduce((a, b) => a + b, 0));
    // Each block came with its real size: full, or the partial last one.
    s.blocks.forEach((b, i) => {
      expect(s.sizes[i]).toBe(b === nblocks - 1 ? last : blockBytes);
    });
    const lengths = [...w.runs.lengths!];
    expect(w.runs.count).toBe(lengths.length);
    expect(w.runs.minBlocks).toBe(lengths.length === 0 ? 0 : Math.min(...lengths));
    expect(w.runs.maxBlocks).toBe(lengths.length === 0 ? 0 : Math.max(...lengths));
    // Adjacent claims merge: no run starts where the previous one ended.
    for (let i = 1; i < lengths.length; i++) {
      expect(w.runs.starts![i]).not.toBe(w.runs.starts![i - 1]! + lengths[i - 1]!);
    }
    all.push(...s.blocks);
  }
  expect(all.sort((a, b) => a - b)).toEqual(Array.from({ length: nblocks }, (_, i) => i));
}

describe("exact cover, block by block and worker by worker, on small and ragged files", () => {
  const B = 1000; // not a multiple of 4: the checksum and byte counting take their tail paths
  const sizes = [1, B, B + 1, 7 * B + 3, 130 * B + 17];
  const files = new Map<number, string>();
  for (const size of sizes) {
    const p = join(tmp.dir, `ragged-${size}.dat`);
    writeBlockFile(p, size, B, size);
    files.set(size, p);
  }

  for (const policy of POLICIES) {
    it(`${policy.kind}: 1, 3 and 9 workers on sizes from 1 byte to 130 blocks + 17 bytes`, async () => {
      for (const size of sizes) {
        for (const workers of [1, 3, 9]) {
          const r = await scanFile(files.get(size)!, {
            workers,
            policy,
            blockBytes: B,
            work: { module: seen },
          });
          checkComplete(r, size, B, workers);
        }
      }
    });
  }

  it("every policy, 4 workers, starting near the end (the scan wraps): still every block once, runs split at the wrap", async () => {
    const size = 37 * B + 5; // 38 blocks, the last one 5 bytes
    const p = join(tmp.dir, "wrap.dat");
    writeBlockFile(p, size, B, 11);
    for (const policy of POLICIES) {
      for (const startBlock of [0, 1, 35, 37]) {
        const w = await scanFile(p, {
          workers: 4,
          policy,
          blockBytes: B,
          startBlock,
          work: { module: seen },
        });
        checkComplete(w, size, B, 4);
        expect(w.startBlock).toBe(startBlock);
        // The first run handed out starts at the start block.
        const firsts = w.perWorker.filter((x) => x.runs.count > 0).map((x) => x.runs.starts![0]);
        expect(firsts).toContain(startBlock);
      }
    }
  });

  it("content: checksum and count-bytes of ragged files equal a front-to-back read, any policy", async () => {
    for (const size of sizes) {
      const p = files.get(size)!;
      const expected = sumBlockChecksums(readChecksums([p], B, blockChecksum));
      const nonZero = countNonZeroBytes(readFileSync(p));
      for (const policy of POLICIES) {
        const c = await scanFile(p, { workers: 3, policy, blockBytes: B, work: "checksum" });
        expect(c.work).toEqual({ kind: "checksum", checksum: expected });
      }
      const n = await scanFile(p, { workers: 2, blockBytes: B, work: "count-bytes" });
      expect(n.work).toEqual({ kind: "count-bytes", nonZeroBytes: nonZero });
    }
  });

  it("relation segments of 3 blocks, partial last segment and block, every policy, more workers than segments", async () => {
    const base = join(tmp.dir, "rel", "16385");
    mkdirSync(join(tmp.dir, "rel"));
    const whole = join(tmp.dir, "rel-whole.dat");
    const size = 10 * B + 7; // segments of 3, 3, 3 and 1 block + 7 bytes
    writeBlockFile(whole, size, B, 21);
    const data = readFileSync(whole);
    const paths = [base, `${base}.1`, `${base}.2`, `${base}.3`];
    paths.forEach((p, i) => {
      writeFileSync(p, data.subarray(i * 3 * B, Math.min(size, (i + 1) * 3 * B)));
    });
    const expected = sumBlockChecksums(readChecksums([whole], B, blockChecksum));
    for (const policy of POLICIES) {
      const r = await scanFile(base, {
        workers: 6,
        policy,
        blockBytes: B,
        segmentBlocks: 3,
        work: { module: seen },
      });
      expect(r.target.kind).toBe("relation");
      expect(r.target.segments).toHaveLength(4);
      checkComplete(r, size, B, 6);
      const c = await scanFile(base, {
        workers: 6,
        policy,
        blockBytes: B,
        segmentBlocks: 3,
        work: "checksum",
      });
      expect(c.work).toEqual({ kind: "checksum", checksum: expected });
    }
  });
});

describe("abort and growth", () => {
  const B = 512;
  const p = join(tmp.dir, "abort.dat");
  writeBlockFile(p, 4000 * B, B, 3);

  it("an abort that arrives after every block was read (from the final progress call) is not reported as a stopped scan", async () => {
    const controller = new AbortController();
    const r = await scanFile(p, {
      workers: 2,
      blockBytes: B,
      signal: controller.signal,
      onProgress: (progress) => {
        if (progress.blocks === progress.nblocks) controller.abort();
      },
    });
    expect(controller.signal.aborted).toBe(true);
    expect(r.cover.exact).toBe(true);
    expect(r.blocks).toBe(4000);
    expect(r.aborted).toBe(false);
  });

  it("an abort mid-scan: partial, aborted, and each worker's runs are still exactly the blocks it read", async () => {
    const controller = new AbortController();
    const r = await scanFile(p, {
      workers: 3,
      blockBytes: B,
      policy: { kind: "batch", blocksPerClaim: 50 }, // claims long enough for the abort to land inside one
      work: { module: seen },
      progressIntervalMs: 5,
      signal: controller.signal,
      onProgress: (progress) => {
        if (progress.blocks >= 100) controller.abort();
      },
    });
    expect(r.aborted).toBe(true);
    expect(r.blocks).toBeGreaterThanOrEqual(100);
    expect(r.blocks).toBeLessThan(4000);
    expect(r.cover).toMatchObject({ exact: false, readOnce: r.blocks, readMoreThanOnce: 0 });
    expect(r.cover.neverRead).toBe(4000 - r.blocks);
    let total = 0;
    for (const w of r.perWorker) {
      const s = w.finish as Seen;
      expect(expandRuns(w.runs.starts!, w.runs.lengths!)).toEqual(s.blocks);
      expect(w.blocks).toBe(s.blocks.length);
      total += w.bytes;
    }
    expect(r.bytes).toBe(total);
    expect(r.bytes).toBe(r.blocks * B);
  });

  it("a file that grows during the scan: only the size sampled at the start is scanned, and the result says so", async () => {
    const g = join(tmp.dir, "growing.dat");
    writeBlockFile(g, 2000 * B + 100, B, 8);
    const expected = sumBlockChecksums(readChecksums([g], B, blockChecksum));
    let grown = false;
    const r = await scanFile(g, {
      workers: 2,
      blockBytes: B,
      work: { module: sleepy },
      progressIntervalMs: 5,
      onProgress: (progress) => {
        if (!grown && progress.blocks >= 100) {
          appendFileSync(g, Buffer.alloc(5 * B, 7));
          grown = true;
        }
      },
    });
    expect(grown).toBe(true);
    expect([r.blocks, r.bytes, r.shortReads]).toEqual([2001, 2000 * B + 100, 0]);
    expect(r.bytesAfter).toBe(2005 * B + 100);
    expect(r.cover.exact).toBe(true);
    expect(r.warnings.join(" ")).toMatch(/grew during the scan/);
    // The grown file's old bytes are what was hashed: truncate back and compare with a fresh read.
    truncateSync(g, 2000 * B + 100);
    const c = await scanFile(g, { workers: 2, blockBytes: B, work: "checksum" });
    expect(c.work).toEqual({ kind: "checksum", checksum: expected });
  });
});

describe("bad paths and options: one typed sentence", () => {
  const ok = join(tmp.dir, "ok.dat");
  writeBlockFile(ok, 16 * 8192);

  it("a symbolic-link loop, a dangling link, a name too long, a NUL byte; a link to a file is followed", async () => {
    const loop = join(tmp.dir, "loop");
    symlinkSync(loop, loop);
    const e1 = await userError(scanFile(loop));
    expect([e1.name, e1.code]).toEqual(["FileScanError", "FILESCAN_NOT_FOUND"]);
    expect(e1.message).toMatch(/symbolic-link loop/);
    const dangling = join(tmp.dir, "dangling");
    symlinkSync(join(tmp.dir, "nowhere"), dangling);
    expect((await userError(scanFile(dangling))).code).toBe("FILESCAN_NOT_FOUND");
    expect((await userError(scanFile(join(tmp.dir, "x".repeat(300))))).code).toBe("FILESCAN_NOT_FOUND");
    expect((await userError(scanFile(`/${"d/".repeat(3000)}f`))).code).toBe("FILESCAN_NOT_FOUND");
    const nul = await userError(scanFile(`${ok}\0x`));
    expect(nul.code).toBe("FILESCAN_BAD_OPTION");
    expect(nul.message).toMatch(/NUL byte/);
    const link = join(tmp.dir, "link.dat");
    symlinkSync(ok, link);
    const r = await scanFile(link, { workers: 2 });
    expect([r.blocks, r.cover.exact]).toEqual([16, true]);
  });

  it("numeric options that are NaN, infinite, negative, fractional, strings or too large name the option", async () => {
    const cases: [string, Record<string, unknown>][] = [
      ["workers", { workers: Number.NaN }],
      ["workers", { workers: -1 }],
      ["workers", { workers: Number.POSITIVE_INFINITY }],
      ["workers", { workers: "2" }],
      ["workers", { workers: 1025 }],
      ["blockBytes", { blockBytes: Number.NaN }],
      ["blockBytes", { blockBytes: -8192 }],
      ["blockBytes", { blockBytes: 8192.5 }],
      ["blockBytes", { blockBytes: 64 * 1024 * 1024 + 1 }],
      ["segmentBlocks", { segmentBlocks: 0 }],
      ["progressIntervalMs", { progressIntervalMs: Number.NaN }],
      ["cover", { cover: "bogus" }],
      ["onProgress", { onProgress: "yes" }],
      [
        "syncscan.key",
        {
          syncscan: { tracker: (await import("@scanlab/syncscan")).SharedSyncScanTracker.create(), key: -1 },
        },
      ],
    ];
    for (const [name, options] of cases) {
      const e = await userError(scanFile(ok, options as never));
      expect(e.code, name).toBe("FILESCAN_BAD_OPTION");
      expect(e.message).toContain(name);
    }
  });

  it("a signal that is not an AbortSignal is refused before any worker starts", async () => {
    for (const signal of [{}, { aborted: false }, "abort", null]) {
      const e = await userError(scanFile(ok, { workers: 2, signal: signal as never }));
      expect(e.code).toBe("FILESCAN_BAD_OPTION");
      expect(e.message).toMatch(/signal/);
    }
  });

  it("a work module whose finish() returns something that cannot be cloned is a work failure, not a read failure", async () => {
    const module = new URL("../test/unclonable-finish-work.mjs", import.meta.url).href;
    const e = await userError(scanFile(ok, { workers: 2, work: { module } }));
    expect(e.code).toBe("FILESCAN_WORK_FAILED");
    expect(e.message).toMatch(/finish\(\)/);
  });
});

describe("file descriptors", () => {
  it("are all closed after scans that succeed, are aborted, evict, or fail in any of the usual ways", async () => {
    const p = join(tmp.dir, "fds.dat");
    writeBlockFile(p, 64 * 8192);
    const throwing = new URL("../test/throwing-work.mjs", import.meta.url).href;
    const noDefault = new URL("../test/no-default-work.mjs", import.meta.url).href;
    const empty = join(tmp.dir, "fds-empty.dat");
    writeFileSync(empty, "");
    // Only descriptors of this test's own files count: vitest and other test files share the process,
    // and their descriptors come and go while this test runs.
    const countFds = () =>
      readdirSync("/proc/self/fd").filter((fd) => {
        try {
          return readlinkSync(join("/proc/self/fd", fd)).startsWith(`${tmp.dir}/`);
        } catch {
          return false; // closed since readdir
        }
      }).length;
    const settle = () => new Promise((r) => setTimeout(r, 50));
    // Node opens a few descriptors of its own the first time workers and child processes run.
    await scanFile(p, { workers: 4, evict: true });
    await scanFile(p, { workers: 4, work: { module: throwing } }).catch(() => {});
    await settle();
    const before = countFds();
    // The count sees this test's files (so a leak cannot hide from it).
    const probe = openSync(p, "r");
    expect(countFds()).toBe(before + 1);
    closeSync(probe);
    await scanFile(p, { workers: 4, evict: true, work: "checksum" });
    await scanFile(p, { workers: 4, signal: AbortSignal.abort() });
    await scanFile(p, { workers: 4, work: { module: throwing } }).catch(() => {});
    await scanFile(p, { workers: 4, work: { module: noDefault } }).catch(() => {});
    await scanFile(p, { workers: 2, policy: { kind: "batch", blocksPerClaim: 0 } }).catch(() => {});
    await scanFile(join(tmp.dir, "missing"), {}).catch(() => {});
    await scanFile(tmp.dir, {}).catch(() => {});
    await scanFile(empty, {}).catch(() => {});
    await settle();
    expect(countFds()).toBe(before);
  });
});
