/**
 * How a scenario's machine becomes models (adapters.ts, os-adapter.ts): the
 * Linux read_ahead_kb and max_sectors_kb a device gets, the FreeBSD and
 * Windows options, osOptions.fadvise, the page-cache capacity, warm tables,
 * and where each segment file lies on the device. Every expected number is
 * worked out by hand from the references named next to it.
 */
import { getBuiltinProfile } from "@scanlab/device-profiles";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type MachineIn, type TableIn, testScenario } from "../../../test/scenario-builder.js";
import { resolveScenario } from "../../scenario/resolve.js";
import type { ScenarioInput } from "../../scenario/schema.js";
import { simulateWith } from "../loop/simulate.js";
import { FILE_ID_STRIDE } from "../pg/machine.js";
import { realModels } from "./adapters.js";
import { OsAdapter, osCapacityPages } from "./os-adapter.js";

// Every device read the adapters submit, as (byte offset, bytes).
const submitted: { offset: number; bytes: number }[] = [];
vi.mock("@scanlab/device-profiles", async (importOriginal) => {
  const mod = await importOriginal<typeof import("@scanlab/device-profiles")>();
  return {
    ...mod,
    createDeviceModel: (...args: Parameters<typeof mod.createDeviceModel>) => {
      const device = mod.createDeviceModel(...args);
      const submit = device.submit.bind(device);
      return Object.assign(Object.create(device), {
        submit(offset: number, bytes: number, now: number) {
          submitted.push({ offset, bytes });
          return submit(offset, bytes, now);
        },
      });
    },
  };
});
afterEach(() => {
  submitted.length = 0;
});

const scenario = (over: Parameters<typeof testScenario>[0] = {}) =>
  testScenario({ name: "adapters", ...over });

const run = (s: ScenarioInput) => simulateWith(resolveScenario(s), realModels);

/** An inline copy of a built-in profile with some fields changed. */
function inline(name: string, fields: Record<string, unknown>): Record<string, unknown> {
  return { ...getBuiltinProfile(name), name: `${name}-edited`, ...fields };
}

const readaheadBlocks = (machine: Partial<MachineIn>) =>
  new OsAdapter(resolveScenario(scenario({ machine })), 1024).adaptive().readaheadBlocks;

describe("Linux read_ahead_kb default: the rule depends on the kernel", () => {
  // An NVMe drive reporting io_opt = 1 MiB (not md RAID).
  const nvme = inline("samsung-990-pro-1tb", { optimalIoBytes: 1024 * 1024 });

  it("6.10: max(2 x io_opt, 128 kB) = 2048 kB = 256 blocks (apps/docs/src/reference/linux-readahead-window.md#readahead-parameters, apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0 'later kernels')", () => {
    expect(readaheadBlocks({ device: nvme, os: "linux-6.10" })).toBe(256);
  });

  it("5.4 (before ~5.9): io_opt does not set it, only md raid0 does; the device keeps 128 kB = 16 blocks", () => {
    // apps/docs/src/reference/linux-readahead-window.md#version-table: the io_opt rule arrived in ~5.9-5.15 (disk_update_readahead);
    // apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0: before ~5.9 the only enlargement was raid0_run()'s 2 x disks x chunk.
    expect(readaheadBlocks({ device: nvme, os: "linux-5.4" })).toBe(16);
    // ...and an md raid0 still gets its stripe rule there: 2 x 6 x 512 kB = 6144 kB = 768 blocks.
    expect(readaheadBlocks({ device: "raid0-6x-intel-s3600-100gb", os: "linux-5.4" })).toBe(768);
  });

  it("the kernel's window shows in the device reads: 128 kB on 5.4, max_sectors_kb-sized (512 kB) on 6.10", () => {
    // 2048 kB windows split at max_sectors_kb = maxIoBytes = 512 kB (apps/docs/src/reference/linux-readahead-window.md#readahead-parameters).
    const old = run(scenario({ machine: { device: nvme, os: "linux-5.4" } }));
    const cur = run(scenario({ machine: { device: nvme, os: "linux-6.10" } }));
    expect(old.device.avgReadKb).toBeGreaterThan(120);
    expect(old.device.avgReadKb).toBeLessThanOrEqual(128);
    expect(cur.device.avgReadKb).toBeGreaterThan(256);
    expect(cur.device.avgReadKb).toBeLessThanOrEqual(512);
  });
});

describe("Linux max_sectors_kb = the device's largest I/O", () => {
  // apps/docs/src/reference/linux-readahead-window.md#readahead-parameters: "a 128 KiB window on a 64 KiB-limit device becomes 2 requests".
  const small = inline("intel-ssd-320-120gb", { maxIoBytes: 64 * 1024 });

  it("a 64 kB device: the 128 kB windows become two 64 kB requests", () => {
    const r = run(scenario({ machine: { device: small } }));
    expect(Math.max(...submitted.map((s) => s.bytes))).toBe(64 * 1024);
    // Ramp 16 + 32 + 64 kB, then 64 kB pieces: the average is just under 64.
    expect(r.device.avgReadKb).toBeGreaterThan(60);
    expect(r.device.avgReadKb).toBeLessThanOrEqual(64);
  });

  it("osOptions.maxSectorsKb overrides it", () => {
    const r = run(scenario({ machine: { device: small, osOptions: { maxSectorsKb: 128 } } }));
    expect(r.device.avgReadKb).toBeGreaterThan(120);
  });
});

describe("osOptions.fadvise reaches the OS model (every open file is advised)", () => {
  // One cold serial PG14 scan of 20,000 blocks: 8 kB reads in block order.
  const cold = (machine: Partial<MachineIn>) => run(scenario({ machine }));

  it("Linux sequential: ra_pages = 2 x 128 kB, so 256 kB windows (apps/docs/src/reference/linux-readahead-window.md#fadvise-and-modes, apps/docs/src/reference/readahead-predictions.md#linux-predictions)", () => {
    const r = cold({ osOptions: { fadvise: "sequential" } });
    expect(r.device.avgReadKb).toBeGreaterThan(240);
    expect(r.device.avgReadKb).toBeLessThanOrEqual(256);
  });

  it("Linux random: each miss reads exactly the 8 kB asked for, 20,000 reads (apps/docs/src/reference/linux-readahead-window.md#fadvise-and-modes)", () => {
    const r = cold({ osOptions: { fadvise: "random" } });
    expect(r.device.reads).toBe(20_000);
    expect(r.device.avgReadKb).toBe(8);
  });

  it("Linux normal: the default 128 kB windows", () => {
    const r = cold({ osOptions: { fadvise: "normal" } });
    expect(r.device.avgReadKb).toBeGreaterThan(120);
    expect(r.device.avgReadKb).toBeLessThanOrEqual(128);
  });

  it("FreeBSD random: seq stays 0, every miss is one synchronous 32 kB fs block: 20,000 / 4 = 5,000 reads (apps/docs/src/reference/freebsd-ufs-clustering.md#sequential-heuristic, apps/docs/src/reference/freebsd-ufs-clustering.md#block-absent)", () => {
    const r = cold({ os: "freebsd-12", osOptions: { fadvise: "random" } });
    expect(r.device.reads).toBe(5_000);
    expect(r.device.avgReadKb).toBe(32);
  });
});

describe("FreeBSD and Windows options", () => {
  it("FreeBSD: mnt_iosize_max = min(device's largest I/O, MAXPHYS): a 64 kB device gets 64 kB clusters (apps/docs/src/reference/freebsd-ufs-clustering.md#ufs-parameters)", () => {
    const dev = inline("intel-ssd-320-120gb", { maxIoBytes: 64 * 1024 });
    const r = run(scenario({ machine: { os: "freebsd-12", device: dev } }));
    // racluster = 64 kB / 32 kB = 2 blocks; the first read is one synchronous 32 kB block.
    expect(Math.max(...submitted.map((s) => s.bytes))).toBe(64 * 1024);
    expect(r.device.avgReadKb).toBeGreaterThan(60);
  });

  it("FreeBSD: osOptions.freebsd.maxphysBytes 64 kB caps clusters the same way on a 512 kB device", () => {
    run(scenario({ machine: { os: "freebsd-12", osOptions: { freebsd: { maxphysBytes: 65536 } } } }));
    expect(Math.max(...submitted.map((s) => s.bytes))).toBe(64 * 1024);
  });

  it("Windows: osOptions.windows.granularityBytes 16 kB and demandClusterBytes 8 kB: no read over 16 kB", () => {
    // apps/docs/src/reference/windows-cache-manager.md#inferred-model: read-ahead k x roundup(8 kB, G) = 16 kB; demand misses C = 8 kB.
    run(
      scenario({
        machine: {
          os: "windows",
          osOptions: { windows: { granularityBytes: 16384, demandClusterBytes: 8192 } },
        },
      }),
    );
    expect(Math.max(...submitted.map((s) => s.bytes))).toBe(16 * 1024);
  });
});

describe("page cache and warm tables", () => {
  it("page-cache capacity = RAM - shared_buffers: (4 GiB - 128 MiB) / 4 kB = 1,015,808 pages", () => {
    const resolved = resolveScenario(scenario({ tables: [{ name: "t", blocks: 10, tuplesPerPage: 1 }] }));
    expect(osCapacityPages(resolved)).toBe(((4096 - 128) * 2 ** 20) / 4096);
  });

  it("a page cache of RAM - shared_buffers = 512 MiB (65,536 blocks) cannot keep a 70,000-block table for a second scan", () => {
    // ram 1 GiB, shared_buffers 512 MiB. Scan twice with sync off: the second scan starts at
    // block 0, long evicted by LRU, so the device reads the table twice, less at most the 32
    // blocks the first scan's BAS_BULKREAD ring left in shared buffers (apps/docs/src/reference/buffer-ring.md).
    const twice = (ram: string) =>
      run(
        scenario({
          machine: { ram, sharedBuffers: "512MB" },
          tables: [{ name: "t", blocks: 70_000, tuplesPerPage: 100 }],
          query: { runs: 2, synchronizeSeqscans: false },
        }),
      );
    expect(twice("1GB").device.bytes).toBeGreaterThanOrEqual((2 * 70_000 - 32) * 8192);
    // With 2 GiB of RAM, 1.5 GiB of page cache holds it: the device reads it once (plus readahead past nothing).
    expect(twice("2GB").device.bytes).toBeLessThan(1.01 * 70_000 * 8192);
  });

  it("a warm table is in the cache in every segment file, and a cold table before it stays cold", () => {
    // Table 0 "cold" (300 blocks), table 1 "warm": 2,500 blocks in 1,000-block segments (files
    // 65,536 + 0, 1, 2). Scanning "warm" reads nothing; scanning "cold" reads all 300 blocks.
    const tables: TableIn[] = [
      { name: "cold", blocks: 300, tuplesPerPage: 10 },
      { name: "warm", blocks: 2_500, tuplesPerPage: 10, segmentBlocks: 1_000, cached: "os" },
    ];
    const s = scenario({ tables });
    s.queries = [{ name: "warm", table: "warm" }];
    expect(run(s).device.reads).toBe(0);
    s.queries = [{ name: "cold", table: "cold" }];
    expect(run(s).device.bytes).toBeGreaterThanOrEqual(300 * 8192);
  });
});

describe("files on the device", () => {
  const GiB = 2 ** 30;

  it("each segment file starts at a 1 GB boundary, tables one after another; a block's offset is its place in its file", () => {
    // Direct I/O: every 8 kB block is one device read at its own offset.
    // Table 0: 300 blocks, one 1 GB segment -> [0, 1 GiB). Table 1: 2,500 blocks in
    // 1,000-block segments (8,192,000 bytes, each rounded up to 1 GiB) -> 1, 2 and 3 GiB.
    const s = scenario({
      machine: { os: "none" },
      tables: [
        { name: "a", blocks: 300, tuplesPerPage: 10 },
        { name: "b", blocks: 2_500, tuplesPerPage: 10, segmentBlocks: 1_000 },
      ],
    });
    s.queries = [{ name: "q", table: "b" }];
    run(s);
    const expected = Array.from({ length: 2_500 }, (_, b) => ({
      offset: (1 + Math.floor(b / 1000)) * GiB + (b % 1000) * 8192,
      bytes: 8192,
    }));
    expect(submitted).toEqual(expected);
  });

  it("each segment file has its own size: Linux readahead stops at every file's end, so 2,500 blocks are 2,500 x 8 kB", () => {
    // apps/docs/src/reference/linux-readahead-window.md#submission: SUBMIT clamps each window to EOF. Files of 1,000, 1,000 and 500 blocks, a
    // cache far larger than the table: every page is read once, none past a file's end.
    const r = run(
      scenario({ tables: [{ name: "t", blocks: 2_500, tuplesPerPage: 10, segmentBlocks: 1_000 }] }),
    );
    expect(r.device.bytes).toBe(2_500 * 8192);
    expect(Math.max(...submitted.map((s) => s.offset + s.bytes))).toBe(2 * GiB + 500 * 8192);
  });

  it("a segment larger than 1 GB takes whole GBs: 200,000-block segments (1.53 GiB) are 2 GiB apart", () => {
    // Table 0: 300,000 blocks in 200,000-block segments -> files at 0 and 2 GiB, 4 GiB in all.
    // Table 1 starts at 4 GiB. Read through the OS port directly: page p of a file is at base + 4 kB x p.
    const resolved = resolveScenario(
      scenario({
        machine: { os: "none" },
        tables: [
          { name: "a", blocks: 300_000, tuplesPerPage: 10, segmentBlocks: 200_000 },
          { name: "b", blocks: 10, tuplesPerPage: 10 },
        ],
      }),
    );
    const port = new OsAdapter(resolved, 1024);
    const readBlock = (file: number, block: number) => port.read(port.open(file), block * 2, 2, 0);
    readBlock(0, 5);
    readBlock(1, 99_999); // the last block of segment 1 (300,000 - 200,000 = 100,000 blocks)
    readBlock(FILE_ID_STRIDE, 3);
    expect(submitted).toEqual([
      { offset: 5 * 8192, bytes: 8192 },
      { offset: 2 * GiB + 99_999 * 8192, bytes: 8192 },
      { offset: 4 * GiB + 3 * 8192, bytes: 8192 },
    ]);
  });
});
