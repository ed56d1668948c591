/**
 * PostgreSQL 18's read stream against the real kernel, from a committed
 * measurement (fixtures/read-streams/linux-6.18-vda-ext4.json): a bitmap heap
 * scan whose 1,639 matching blocks are consecutive issues preads of 1, 2, 4
 * and 8 blocks, then of 16 (io_combine_limit), as `strace` showed on
 * PostgreSQL 18 with io_method sync. A C program played that list, and the
 * same blocks as 8 kB preads (PostgreSQL 17 and earlier), on a cold file of
 * the machine of linux-6.18-vda-ext4.json with 20 µs of CPU per block, and
 * counted the device's reads in /proc/diskstats: three runs each, identical.
 * The model plays the same lists here, on that machine's parameters.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { linuxReadahead } from "../linux.js";
import { PageCache } from "../page-cache.js";
import { readAll, TestDevice } from "../test-driver.js";

interface Played {
  /** The reads, as [first block, blocks]. */
  reads: [number, number][];
  /** What the kernel read from the device for them. */
  kernel: { requests: number; bytes: number };
}
const fixture = JSON.parse(
  readFileSync(new URL("../fixtures/read-streams/linux-6.18-vda-ext4.json", import.meta.url), "utf8"),
) as {
  machine: { kernelRelease: string; readAheadKb: number; maxSectorsKb: number; maxSegments: number };
  cpuUsPerBlock: number;
  fileBlocks: number;
  readStream: Played;
  blockByBlock: Played;
};

/** Plays `reads` through the Linux model of the fixture's machine: device requests and bytes. */
function play(reads: readonly [number, number][]): { requests: number; bytes: number } {
  const m = fixture.machine;
  const model = linuxReadahead(new PageCache(), {
    version: ">=6.10",
    readAheadKb: m.readAheadKb,
    maxSectorsKb: m.maxSectorsKb,
    maxSegments: m.maxSegments,
    largeFolios: true,
  });
  const of = model.open(1, { sizePages: fixture.fileBlocks * 2 });
  const dev = new TestDevice();
  let t = 0;
  for (const [block, blocks] of reads) {
    const out = readAll(model, of, block * 2, blocks * 2, t, dev, `block ${block}`);
    t = Math.max(t, out.readyAtUs) + blocks * fixture.cpuUsPerBlock;
  }
  return { requests: dev.log.length, bytes: dev.log.reduce((a, l) => a + l.pages * 4096, 0) };
}

describe("PostgreSQL 18's read-stream reads against Linux 6.18 (committed measurement)", () => {
  it("was measured on the machine the 8 MiB fixture describes", () => {
    expect(fixture.machine).toMatchObject({ readAheadKb: 8192, maxSectorsKb: 4096, maxSegments: 254 });
    expect(fixture.machine.kernelRelease).toMatch(/^6\.18\./);
    // Both lists read the same 1,639 blocks; the read stream's sizes ramp 1, 2, 4, 8, then 16.
    const blocks = (p: Played) => p.reads.reduce((a, [, n]) => a + n, 0);
    expect(blocks(fixture.readStream)).toBe(1639);
    expect(blocks(fixture.blockByBlock)).toBe(1639);
    expect(fixture.readStream.reads.slice(0, 6).map(([, n]) => n)).toEqual([1, 2, 4, 8, 16, 16]);
  });

  it("the read stream's ramp: the kernel's requests and bytes", () => {
    expect(play(fixture.readStream.reads)).toEqual(fixture.readStream.kernel);
  });

  it("the same blocks one 8 kB read at a time: the kernel's requests and bytes", () => {
    expect(play(fixture.blockByBlock.reads)).toEqual(fixture.blockByBlock.kernel);
  });
});
