/**
 * Device resolution against fake sysfs trees shaped like the kernel's
 * (/sys/dev/block/MAJ:MIN links into /sys/devices/.../block/NAME, a
 * `partition` file in partitions, `dm/` and `slaves/` in device-mapper
 * devices), and diskstats deltas against hand-written /proc/diskstats lines
 * (field layout from Documentation/admin-guide/iostats.rst).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  blockQueueLimits,
  DISKSTATS_SECTOR_BYTES,
  deviceNumbers,
  probeDevice,
  readDiskstats,
  resolveBlockDevice,
} from "./block-device.js";

const tmp = { dir: mkdtempSync(join(tmpdir(), "scanlab-host-sysfs-")) };
afterAll(() => rmSync(tmp.dir, { recursive: true, force: true }));
const sys = join(tmp.dir, "sys");

function device(path: string, dev: string, extra: string[] = []): string {
  const dir = join(sys, "devices", path);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "dev"), `${dev}\n`);
  for (const e of extra) {
    if (e.endsWith("/")) mkdirSync(join(dir, e), { recursive: true });
    else writeFileSync(join(dir, e), "1\n");
  }
  const link = join(sys, "dev", "block", dev);
  mkdirSync(dirname(link), { recursive: true });
  symlinkSync(relative(dirname(link), dir), link);
  const cls = join(sys, "class", "block", path.split("/").pop()!);
  mkdirSync(dirname(cls), { recursive: true });
  symlinkSync(relative(dirname(cls), dir), cls);
  return dir;
}

// A virtio disk with two partitions, a SCSI disk, and an LVM volume over vda2 and sdb.
device("pci0000:00/virtio1/block/vda", "254:0", ["device/"]);
device("pci0000:00/virtio1/block/vda/vda1", "254:1", ["partition"]);
device("pci0000:00/virtio1/block/vda/vda2", "254:2", ["partition"]);
device("pci0000:00/ata1/block/sdb", "8:16", ["device/"]);
const dm = device("virtual/block/dm-0", "253:0", ["dm/", "slaves/"]);
symlinkSync(
  relative(join(dm, "slaves"), join(sys, "devices", "pci0000:00/virtio1/block/vda/vda2")),
  join(dm, "slaves", "vda2"),
);
symlinkSync(
  relative(join(dm, "slaves"), join(sys, "devices", "pci0000:00/ata1/block/sdb")),
  join(dm, "slaves", "sdb"),
);

// vda's request queue (a partition has none of its own); dm-0 has its own.
const vdaQueue = join(sys, "devices", "pci0000:00/virtio1/block/vda", "queue");
mkdirSync(vdaQueue, { recursive: true });
for (const [f, v] of [
  ["read_ahead_kb", 128],
  ["max_sectors_kb", 1280],
  ["max_segments", 254],
  ["logical_block_size", 512],
] as const)
  writeFileSync(join(vdaQueue, f), `${v}\n`);
mkdirSync(join(dm, "queue"), { recursive: true });
writeFileSync(join(dm, "queue", "read_ahead_kb"), "4096\n");
writeFileSync(join(dm, "queue", "max_sectors_kb"), "512\n");

describe("blockQueueLimits: sysfs queue/ of the device, or of the parent disk for a partition", () => {
  it("a disk and its partitions read the disk's queue", () => {
    for (const minor of [0, 1, 2]) {
      expect(blockQueueLimits({ major: 254, minor }, { sysRoot: sys })).toEqual({
        queueDir: vdaQueue,
        readAheadKb: 128,
        maxSectorsKb: 1280,
        maxSegments: 254,
        logicalBlockBytes: 512,
      });
    }
  });

  it("a device-mapper volume has its own queue; missing files fall back", () => {
    expect(blockQueueLimits({ major: 253, minor: 0 }, { sysRoot: sys })).toMatchObject({
      readAheadKb: 4096,
      maxSectorsKb: 512,
      maxSegments: 0,
      logicalBlockBytes: 512,
    });
  });

  it("no queue or no device: null", () => {
    expect(blockQueueLimits({ major: 8, minor: 16 }, { sysRoot: sys })).toBeNull();
    expect(blockQueueLimits({ major: 7, minor: 7 }, { sysRoot: sys })).toBeNull();
  });
});

describe("deviceNumbers (glibc dev_t encoding)", () => {
  it("splits old-style and large device numbers", () => {
    expect(deviceNumbers(0xfe00n)).toEqual({ major: 254, minor: 0 }); // /dev/vda
    expect(deviceNumbers(0x0801)).toEqual({ major: 8, minor: 1 }); // /dev/sda1
    // major 259 (blkext, NVMe partitions) and minor 300 need the high bits: makedev(259, 300)
    const dev = ((259n & 0xfffn) << 8n) | (300n & 0xffn) | ((300n & ~0xffn) << 12n);
    expect(deviceNumbers(dev)).toEqual({ major: 259, minor: 300 });
    expect(deviceNumbers(0x2dn)).toEqual({ major: 0, minor: 45 }); // tmpfs / overlayfs: anonymous
  });
});

describe("resolveBlockDevice through /sys/dev/block", () => {
  it("a whole virtio disk is its own physical disk", () => {
    const r = resolveBlockDevice({ major: 254, minor: 0 }, { sysRoot: sys });
    expect(r).toMatchObject({ available: true, device: { name: "vda", kind: "disk" } });
    if (r.available) expect(r.physical.map((p) => p.name)).toEqual(["vda"]);
  });

  it("a partition: its own line, with its parent disk underneath", () => {
    const r = resolveBlockDevice({ major: 254, minor: 1 }, { sysRoot: sys });
    expect(r).toMatchObject({ available: true, device: { name: "vda1", kind: "partition" } });
    if (r.available) expect(r.physical).toEqual([{ name: "vda", major: 254, minor: 0 }]);
  });

  it("device-mapper over a partition and a disk: both whole disks underneath", () => {
    const r = resolveBlockDevice({ major: 253, minor: 0 }, { sysRoot: sys });
    expect(r).toMatchObject({ available: true, device: { name: "dm-0", kind: "device-mapper" } });
    if (r.available) expect(r.physical.map((p) => p.name).sort()).toEqual(["sdb", "vda"]);
  });

  it("says why when there is no block device", () => {
    const anon = resolveBlockDevice({ major: 0, minor: 45 }, { sysRoot: sys });
    expect(anon.available).toBe(false);
    if (!anon.available) expect(anon.reason).toMatch(/not a block device/);
    const missing = resolveBlockDevice({ major: 9, minor: 9 }, { sysRoot: sys });
    expect(missing.available).toBe(false);
    if (!missing.available) expect(missing.reason).toMatch(/does not exist/);
  });
});

function diskstats(lines: [string, number, number, number, number][]): string {
  // major minor name reads merged sectors ms | writes ... (11 more fields, zero here)
  return lines
    .map(([dev, r, m, s, ms]) => {
      const [maj, min] = dev.split(":");
      const name = { "254:0": "vda", "254:1": "vda1", "254:2": "vda2", "8:16": "sdb", "253:0": "dm-0" }[dev];
      return `${maj!.padStart(4)} ${min!.padStart(7)} ${name} ${r} ${m} ${s} ${ms} 0 0 0 0 0 0 0 0 0 0 0 0 0`;
    })
    .join("\n");
}

describe("diskstats deltas", () => {
  it("parses the read fields of /proc/diskstats", () => {
    const p = join(tmp.dir, "diskstats-parse");
    writeFileSync(p, diskstats([["254:0", 1235760, 37547, 44302778, 357829]]));
    expect(readDiskstats(p).get("254:0")).toEqual({
      reads: 1235760,
      readsMerged: 37547,
      sectors: 44302778,
      readTimeUs: 357829000,
    });
  });

  it("the iostat arithmetic of Munro's 2020 FreeBSD report: 3 reads of 256 sectors each are 128 kB requests", () => {
    const p = join(tmp.dir, "diskstats-lvm");
    const dev = (253n << 8n) | 0n;
    writeFileSync(
      p,
      diskstats([
        ["253:0", 100, 0, 1000, 10],
        ["254:0", 50, 5, 800, 7],
        ["8:16", 10, 0, 80, 1],
      ]),
    );
    const probe = probeDevice(dev, { sysRoot: sys, diskstats: p });
    expect(probe.unavailableReason).toBeNull();
    const before = probe.sample();
    writeFileSync(
      p,
      diskstats([
        ["253:0", 103, 0, 1768, 14],
        ["254:0", 52, 9, 1312, 9],
        ["8:16", 11, 0, 336, 2],
      ]),
    );
    const r = probe.report(before, probe.sample());
    expect(r.available).toBe(true);
    if (!r.available) return;
    expect(r.name).toBe("dm-0");
    expect(r.reads).toBe(3);
    expect(r.sectors).toBe(768);
    expect(r.readBytes).toBe(768 * DISKSTATS_SECTOR_BYTES);
    expect(r.avgRequestBytes).toBe(128 * 1024);
    expect(r.readTimeUs).toBe(4000);
    expect(r.caveat).toMatch(/other processes/);
    const byName = Object.fromEntries(r.physical.map((d) => [d.name, d]));
    expect(byName.vda).toMatchObject({ reads: 2, readsMerged: 4, avgRequestBytes: 128 * 1024 });
    expect(byName.sdb).toMatchObject({ reads: 1, avgRequestBytes: 128 * 1024 });
  });

  it("no reads: the average request size is null, not NaN", () => {
    const p = join(tmp.dir, "diskstats-idle");
    writeFileSync(p, diskstats([["254:0", 7, 0, 56, 1]]));
    const probe = probeDevice(0xfe00n, { sysRoot: sys, diskstats: p });
    const r = probe.report(probe.sample(), probe.sample());
    expect(r).toMatchObject({ available: true, reads: 0, avgRequestBytes: null });
  });

  it("an unreadable diskstats file or a missing line is reported, not guessed", () => {
    const none = probeDevice(0xfe00n, { sysRoot: sys, diskstats: join(tmp.dir, "no-such-diskstats") });
    expect(none.unavailableReason).toMatch(/cannot be read/);
    expect(none.report(none.sample(), none.sample()).available).toBe(false);
    const p = join(tmp.dir, "diskstats-other");
    writeFileSync(p, diskstats([["8:16", 1, 0, 8, 0]]));
    expect(probeDevice(0xfe00n, { sysRoot: sys, diskstats: p }).unavailableReason).toMatch(/no line/);
  });
});
