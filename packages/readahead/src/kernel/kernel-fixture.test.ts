/**
 * The Linux model against a measurement of the real kernel, committed as a
 * fixture: Linux 6.18.44 on a 2-core VM, ext4 on
 * a virtio disk with read_ahead_kb 8192, max_sectors_kb 4096, max_segments
 * 254 (see the README, "Measured on the real kernel"). The fixture holds what
 * the kernel did (fincore after each read of two cold ramps; median request
 * count of three quiet runs per pattern from /proc/diskstats) and the
 * machine parameters the model is given; the model side is recomputed here.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { linuxReadahead } from "../linux.js";
import { PageCache } from "../page-cache.js";
import { readAll, TestDevice } from "../test-driver.js";
import { compareMeasurement, type KernelMeasurement } from "./kernel-measurement.js";

const fixture = JSON.parse(
  readFileSync(new URL("../fixtures/linux-6.18-vda-ext4.json", import.meta.url), "utf8"),
) as KernelMeasurement;

describe("the linux model against Linux 6.18 (committed measurement)", () => {
  const m = compareMeasurement(fixture);

  it("was measured on the kernel line the model is held to", () => {
    expect(fixture.machine.kernelRelease).toMatch(/^6\.18\./);
    expect(fixture.machine).toMatchObject({
      version: ">=6.10",
      readAheadKb: 8192,
      maxSectorsKb: 4096,
      largeFolios: true,
    });
    expect(fixture.patterns.map((p) => p.name)).toEqual([
      "sequential",
      "stride 2",
      "stride 4",
      "chunk 16 x2",
      "chunk 16 x4",
      "chunk 64 x2",
      "chunk 64 x4",
      "chunk 256 x2",
      "chunk 256 x4",
      "chunk 8192 x2",
      "chunk 8192 x4",
      "random 8k",
    ]);
  });

  it("has the same initial window and ramp, page for page, from block 0 and from mid-file", () => {
    for (const r of m.ramps) expect(r.model).toEqual(r.kernel);
    // 32 KiB initial window, then 128 KiB, 480 KiB, 1.9 MiB (fincore after reads 0, 1, 4, 20)
    expect([
      m.ramps[0]!.kernel[0],
      m.ramps[0]!.kernel[1],
      m.ramps[0]!.kernel[4],
      m.ramps[0]!.kernel[20],
    ]).toEqual([8, 40, 160, 640]);
  });

  it("has the average device request within 15% for every pattern", () => {
    const off = m.patterns
      .filter((p) => Math.abs(p.gap) > 0.15)
      .map((p) => `${p.name}: model ${p.model.avgKiB} KiB vs kernel ${p.kernel.avgKiB} KiB`);
    expect(off).toEqual([]);
  }, 300_000);
});

/**
 * A second measurement on the same kernel at the default read_ahead_kb 128,
 * on a loop device (ext4 in a 3 GiB image, direct I/O), so the 128 KiB
 * regime of apps/docs/src/reference/readahead-predictions.md#linux-predictions is held to the real kernel too. Striding and
 * 16-block chunks do not agree there, and the kernel does not agree with
 * itself either (its three runs of stride 2 gave 11 261 to 18 965 requests):
 * with 128 KiB windows, which reader reaches which marker first is decided by
 * thread scheduling on this loaded 2-core VM (README, "What the kernel
 * taught us"). Those patterns are listed, with the gap they show, so a change
 * that closes one is noticed.
 */
const loop = JSON.parse(
  readFileSync(new URL("../fixtures/linux-6.18-loop-ext4-ra128.json", import.meta.url), "utf8"),
) as KernelMeasurement;
const SCHEDULING_BOUND = ["stride 2", "stride 4", "chunk 16 x2", "chunk 16 x4"];

describe("the linux model against Linux 6.18 at read_ahead_kb 128 (committed measurement)", () => {
  const m = compareMeasurement(loop);

  it("has the same ramp, page for page (4 12 16 16 16 16 24 24 32...: folio-aligned windows)", () => {
    expect(loop.machine).toMatchObject({ readAheadKb: 128, maxSectorsKb: 1280, largeFolios: true });
    for (const r of m.ramps) expect(r.model).toEqual(r.kernel);
    expect(m.ramps[0]!.kernel.slice(0, 9)).toEqual([4, 12, 16, 16, 16, 16, 24, 24, 32]);
  });

  it("is within 15% for the single reader, random reads and chunks of 64 blocks and more", () => {
    const off = m.patterns
      .filter((p) => !SCHEDULING_BOUND.includes(p.name))
      .filter((p) => Math.abs(p.gap) > 0.15)
      .map((p) => `${p.name}: ${(p.gap * 100).toFixed(1)}%`);
    expect(off).toEqual([]);
  }, 300_000);

  it("overestimates the request size of striding and 16-block chunks (scheduling-bound, see above)", () => {
    for (const name of SCHEDULING_BOUND) {
      const p = m.patterns.find((x) => x.name === name)!;
      expect(p.gap, name).toBeGreaterThan(0.15);
      // the model's requests stay at least as large as the kernel's smallest-request run
      expect(p.model.avgKiB).toBeGreaterThan(p.kernel.bytes / 1024 / Math.max(...p.kernel.runs));
    }
  }, 300_000);
});

/*
 * PostgreSQL 18's read stream against the real kernel, from a committed
 * measurement (fixtures/read-streams/linux-6.18-vda-ext4.json): a bitmap heap
 * scan whose 1,639 matching blocks are consecutive issues preads of 1, 2, 4
 * and 8 blocks, then of 16 (io_combine_limit), as `strace` showed on
 * PostgreSQL 18 with io_method sync. A C program played that list, and the
 * same blocks as 8 kB preads (PostgreSQL 17 and earlier), on a cold file of
 * the machine of linux-6.18-vda-ext4.json with 20 µs of CPU per block, and
 * counted the device's reads in /proc/diskstats: three runs each, median kept.
 * The model plays the same lists here, on that machine's parameters.
 */

interface Played {
  /** The reads, as [first block, blocks]. */
  reads: [number, number][];
  /** What the kernel read from the device for them. */
  kernel: { requests: number; bytes: number };
}
const streamFixture = JSON.parse(
  readFileSync(new URL("../fixtures/read-streams/linux-6.18-vda-ext4.json", import.meta.url), "utf8"),
) as {
  machine: { kernelRelease: string; readAheadKb: number; maxSectorsKb: number; maxSegments: number };
  cpuUsPerBlock: number;
  fileBlocks: number;
  readStream: Played;
  blockByBlock: Played;
};

/** Plays `reads` through the Linux model of the streamFixture's machine: device requests and bytes. */
function play(reads: readonly [number, number][]): { requests: number; bytes: number } {
  const m = streamFixture.machine;
  const model = linuxReadahead(new PageCache(), {
    version: ">=6.10",
    readAheadKb: m.readAheadKb,
    maxSectorsKb: m.maxSectorsKb,
    maxSegments: m.maxSegments,
    largeFolios: true,
  });
  const of = model.open(1, { sizePages: streamFixture.fileBlocks * 2 });
  const dev = new TestDevice();
  let t = 0;
  for (const [block, blocks] of reads) {
    const out = readAll(model, of, block * 2, blocks * 2, t, dev, `block ${block}`);
    t = Math.max(t, out.readyAtUs) + blocks * streamFixture.cpuUsPerBlock;
  }
  return { requests: dev.log.length, bytes: dev.log.reduce((a, l) => a + l.pages * 4096, 0) };
}

describe("PostgreSQL 18's read-stream reads against Linux 6.18 (committed measurement)", () => {
  it("was measured on the machine the 8 MiB streamFixture describes", () => {
    expect(streamFixture.machine).toMatchObject({ readAheadKb: 8192, maxSectorsKb: 4096, maxSegments: 254 });
    expect(streamFixture.machine.kernelRelease).toMatch(/^6\.18\./);
    // Both lists read the same 1,639 blocks; the read stream's sizes ramp 1, 2, 4, 8, then 16.
    const blocks = (p: Played) => p.reads.reduce((a, [, n]) => a + n, 0);
    expect(blocks(streamFixture.readStream)).toBe(1639);
    expect(blocks(streamFixture.blockByBlock)).toBe(1639);
    expect(streamFixture.readStream.reads.slice(0, 6).map(([, n]) => n)).toEqual([1, 2, 4, 8, 16, 16]);
  });

  it("the read stream's ramp: the kernel's requests and bytes", () => {
    expect(play(streamFixture.readStream.reads)).toEqual(streamFixture.readStream.kernel);
  });

  it("the same blocks one 8 kB read at a time: the kernel's requests and bytes", () => {
    expect(play(streamFixture.blockByBlock.reads)).toEqual(streamFixture.blockByBlock.kernel);
  });
});
