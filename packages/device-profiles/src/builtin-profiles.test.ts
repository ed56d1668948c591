/**
 * Each built-in profile reproduces its own datasheet figures through the model
 * (throughputAt runs createDeviceModel in a closed loop), within 10 %. The
 * expected values are typed in from apps/docs/src/reference/storage-device-models.md, not read from the
 * profiles, so a profile that drifts from its source fails here.
 */
import { describe, expect, it } from "vitest";
import { builtinProfiles, getBuiltinProfile, raid0Of } from "./builtin-profiles.js";
import { createDeviceModel } from "./create-device-model.js";
import { DeviceProfileError } from "./errors.js";
import { throughputAt } from "./throughput.js";

const KiB = 1024;
const MB = 1e6;

function within10(actual: number, expected: number): void {
  expect(Math.abs(actual - expected) / expected, `${actual} vs ${expected}`).toBeLessThanOrEqual(0.1);
}

interface DatasheetFigures {
  /** Sequential read bandwidth at a deep queue (bytes/s), with the read size and depth to test it at. */
  seq: { bytesPerSecond: number; requestBytes: number; queueDepth: number };
  /** Random read IOPS at the datasheet's queue depth. */
  random: { iops: number; requestBytes: number; queueDepth: number };
  /** Where the figures are in apps/docs/src/reference/storage-device-models.md. */
  cite: string;
}

const figures: Record<string, DatasheetFigures> = {
  "intel-ssd-320-120gb": {
    seq: { bytesPerSecond: 270 * MB, requestBytes: 128 * KiB, queueDepth: 32 },
    random: { iops: 38_000, requestBytes: 4 * KiB, queueDepth: 32 },
    cite: "apps/docs/src/reference/storage-device-models.md#intel-ssd-320: 270 MB/s (Iometer QD32) [D]; 38 000 IOPS 4 KB QD32 (120 GB) [S]",
  },
  "intel-dc-s3700-100gb": {
    seq: { bytesPerSecond: 500 * MB, requestBytes: 128 * KiB, queueDepth: 32 },
    random: { iops: 75_000, requestBytes: 4 * KiB, queueDepth: 32 },
    cite: "apps/docs/src/reference/storage-device-models.md#intel-dc-s3700-and-s3610: DC S3700 500 MB/s, 75 000 IOPS 4 KB QD32 [D]",
  },
  "intel-dc-s3610-100gb": {
    seq: { bytesPerSecond: 550 * MB, requestBytes: 128 * KiB, queueDepth: 32 },
    random: { iops: 84_000, requestBytes: 4 * KiB, queueDepth: 32 },
    cite: "apps/docs/src/reference/storage-device-models.md#intel-dc-s3700-and-s3610: DC S3610 550 MB/s, 84 000 IOPS 4 KB QD32 [D]",
  },
  "raid0-6x-intel-s3600-100gb": {
    // apps/docs/src/reference/storage-device-models.md#intel-dc-s3700-and-s3610: drive-side ceiling 6 x 500 MB/s [I]; 6 x 75 000 IOPS with 32 per drive.
    seq: { bytesPerSecond: 6 * 500 * MB, requestBytes: 6 * 1024 * KiB, queueDepth: 4 },
    random: { iops: 6 * 75_000, requestBytes: 4 * KiB, queueDepth: 6 * 32 },
    cite: "apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0: 6 x DC S3700 figures; md raid0 512 KiB chunks",
  },
  "samsung-990-pro-1tb": {
    seq: { bytesPerSecond: 7450 * MB, requestBytes: 128 * KiB, queueDepth: 64 },
    random: { iops: 1_200_000, requestBytes: 4 * KiB, queueDepth: 64 },
    cite: "apps/docs/src/reference/storage-device-models.md#samsung-990-pro: 7 450 MB/s, 1.2 M IOPS multi-queue aggregate (~60 in flight) [S]",
  },
  "wd-ultrastar-dc-sn640-960gb": {
    seq: { bytesPerSecond: 3000 * MB, requestBytes: 128 * KiB, queueDepth: 64 },
    random: { iops: 400_000, requestBytes: 4 * KiB, queueDepth: 128 },
    cite: "apps/docs/src/reference/storage-device-models.md#wd-ultrastar-dc-sn640: placeholders ~3.0 GB/s, 'several hundred thousand' IOPS [R]",
  },
  "hdd-7200rpm": {
    // apps/docs/src/reference/storage-device-models.md#hard-disks-at-7200-rpm: outer-zone 175 MB/s [D] (sequential at LBA 0); random 8 KiB ~ 11.6 ms = ~85 IOPS at QD1 [I].
    seq: { bytesPerSecond: 175 * MB, requestBytes: 128 * KiB, queueDepth: 4 },
    random: { iops: 85, requestBytes: 8 * KiB, queueDepth: 1 },
    cite: "apps/docs/src/reference/storage-device-models.md#hard-disks-at-7200-rpm",
  },
  "aws-ebs-gp3-baseline": {
    seq: { bytesPerSecond: 125 * 1024 * 1024, requestBytes: 128 * KiB, queueDepth: 16 },
    random: { iops: 3000, requestBytes: 8 * KiB, queueDepth: 16 },
    cite: "apps/docs/src/reference/storage-device-models.md#aws-ebs-volumes: gp3 3 000 IOPS, 125 MiB/s baseline [D]",
  },
};

describe("built-in profiles reproduce their datasheet figures through the model (within 10 %)", () => {
  it("has figures for every built-in and a built-in for every figure", () => {
    expect(
      builtinProfiles()
        .map((p) => p.name)
        .sort(),
    ).toEqual(Object.keys(figures).sort());
  });

  for (const [name, f] of Object.entries(figures)) {
    describe(name, () => {
      const profile = getBuiltinProfile(name);
      it(`sequential read: ${f.cite}`, () => {
        const r = throughputAt(profile, { ...f.seq, pattern: "sequential" });
        within10(r.bytesPerSecond, f.seq.bytesPerSecond);
      });
      it(`random read IOPS at the datasheet's queue depth: ${f.cite}`, () => {
        const r = throughputAt(profile, { ...f.random, pattern: "random" });
        within10(r.iops, f.random.iops);
      });
    });
  }
});

describe("figures apps/docs/src/reference/storage-device-models.md infers from the datasheets", () => {
  it("Intel 320: a 128 KiB read at QD1 is link-bound, about 250 MB/s (apps/docs/src/reference/storage-device-models.md#intel-ssd-320 [I])", () => {
    const r = throughputAt(getBuiltinProfile("intel-ssd-320-120gb"), {
      queueDepth: 1,
      requestBytes: 128 * KiB,
      pattern: "sequential",
    });
    within10(r.bytesPerSecond, 250 * MB);
  });

  it("Samsung 990 PRO: QD1 4 KiB reads at about 20 000 IOPS (apps/docs/src/reference/storage-device-models.md#samsung-990-pro, review measurement)", () => {
    within10(
      throughputAt(getBuiltinProfile("samsung-990-pro-1tb"), { queueDepth: 1, requestBytes: 4 * KiB }).iops,
      20_000,
    );
  });

  it("Samsung 990 PRO: a lone QD1 128 KiB stream reaches only 1.5-2 GB/s (apps/docs/src/reference/storage-device-models.md#samsung-990-pro [I])", () => {
    const r = throughputAt(getBuiltinProfile("samsung-990-pro-1tb"), {
      queueDepth: 1,
      requestBytes: 128 * KiB,
      pattern: "sequential",
    });
    expect(r.bytesPerSecond).toBeGreaterThan(1.5e9);
    expect(r.bytesPerSecond).toBeLessThan(2.0e9 * 1.1);
  });

  it("gp3: baseline 8 KiB random reads are capped at 23.4 MiB/s (apps/docs/src/reference/storage-device-models.md#aws-ebs-volumes [I])", () => {
    const r = throughputAt(getBuiltinProfile("aws-ebs-gp3-baseline"), {
      queueDepth: 64,
      requestBytes: 8 * KiB,
    });
    within10(r.bytesPerSecond / (1024 * 1024), 23.4);
  });
});

describe("every built-in is honest about its sources", () => {
  for (const p of builtinProfiles()) {
    it(`${p.name} cites apps/docs/src/reference/storage-device-models.md and states its assumptions`, () => {
      expect(p.sources.length).toBeGreaterThan(0);
      expect(p.sources.some((s) => s.startsWith("apps/docs/src/reference/storage-device-models.md"))).toBe(
        true,
      );
      expect(p.note.length).toBeGreaterThan(40);
      if (p.kind !== "raid0" && p.kind !== "cloud-volume" && p.kind !== "hdd")
        expect(p.internalReadAhead).toBeUndefined();
    });
  }

  it("flags the SN640 as placeholders, loudly", () => {
    const p = getBuiltinProfile("wd-ultrastar-dc-sn640-960gb");
    expect(p.basis).toBe("placeholder");
    expect(p.title).toMatch(/PLACEHOLDER/);
    expect(p.note).toMatch(/PLACEHOLDER/);
  });

  it("says the RAID members' identity is uncertain and which candidate was picked", () => {
    const p = getBuiltinProfile("raid0-6x-intel-s3600-100gb");
    expect(p.note).toMatch(/IDENTITY UNCERTAIN/);
    expect(p.kind === "raid0" && p.member.name).toBe("intel-dc-s3700-100gb");
  });

  it("sets Linux's read_ahead_kb: 128 KiB for single devices, 6144 KiB for the 6-disk md array", () => {
    for (const p of builtinProfiles()) {
      expect(createDeviceModel(p).readAheadKbDefault).toBe(p.kind === "raid0" ? 6144 : 128);
    }
  });
});

describe("lookup", () => {
  it("names the known profiles when a name is unknown", () => {
    expect(() => getBuiltinProfile("floppy")).toThrow(DeviceProfileError);
    expect(() => getBuiltinProfile("floppy")).toThrow(
      /no built-in device profile "floppy" \(known: intel-ssd-320-120gb/,
    );
  });

  it("builds other md arrays from a member", () => {
    const r = raid0Of(getBuiltinProfile("intel-dc-s3610-100gb"), 4, { chunkBytes: 64 * KiB });
    expect(r.kind).toBe("raid0");
    expect(createDeviceModel(r).readAheadKbDefault).toBe(512); // 2 x 4 x 64 KiB
    expect(() => raid0Of(r, 2)).toThrow(/must be a flash or hdd profile/);
  });
});

describe("units: apps/docs/src/reference/storage-device-models.md#units-and-evidence-tags figures converted by its preamble (MB/s = 10^6 B/s, MiB = 2^20 B, vendor KB = 1024 B)", () => {
  // A MB/s vs MiB/s mix-up is a 4.9 % error, inside the 10 % the throughput checks above allow, so the
  // figures are checked exactly here, converted by hand.
  const get = (name: string) => getBuiltinProfile(name);

  it("flash: 270 / 500 / 550 / 7 450 / 3 000 MB/s are 10^6 B/s; latencies in us; '4 KB' IOPS reads are 4096 bytes", () => {
    const expected: Record<string, [number, number, number]> = {
      // name: [latency us, sequential B/s, IOPS]
      "intel-ssd-320-120gb": [75, 270e6, 38_000], // apps/docs/src/reference/storage-device-models.md#intel-ssd-320
      "intel-dc-s3700-100gb": [50, 500e6, 75_000], // apps/docs/src/reference/storage-device-models.md#intel-dc-s3700-and-s3610
      "intel-dc-s3610-100gb": [55, 550e6, 84_000], // apps/docs/src/reference/storage-device-models.md#intel-dc-s3700-and-s3610
      "samsung-990-pro-1tb": [50, 7.45e9, 1.2e6], // apps/docs/src/reference/storage-device-models.md#samsung-990-pro
      "wd-ultrastar-dc-sn640-960gb": [80, 3.0e9, 400_000], // apps/docs/src/reference/storage-device-models.md#wd-ultrastar-dc-sn640 placeholders
    };
    for (const [name, [latencyUs, bytesPerSecond, iops]] of Object.entries(expected)) {
      const p = get(name);
      if (p.kind !== "sata-ssd" && p.kind !== "nvme") throw new Error(`${name} is not flash`);
      expect(p.readLatencyQd1Us, name).toBe(latencyUs);
      expect(p.sequentialReadBytesPerSecond, name).toBe(bytesPerSecond);
      expect(p.randomReadIops, name).toBe(iops);
      expect(p.randomReadBlockBytes, name).toBe(4096);
      expect(p.latencyReadBytes, name).toBe(4096);
    }
  });

  it("Intel 320: the 300 MB/s link and 111 GiB capacity", () => {
    const p = get("intel-ssd-320-120gb");
    expect(p.kind === "sata-ssd" && p.linkBytesPerSecond).toBe(300e6);
    expect(p.kind === "sata-ssd" && p.capacityBytes).toBe(111 * 2 ** 30);
  });

  it("hdd: 7.4 ms and 0.23 ms seeks in us, 175 and 83 MB/s in 10^6 B/s (apps/docs/src/reference/storage-device-models.md#hard-disks-at-7200-rpm)", () => {
    const p = get("hdd-7200rpm");
    if (p.kind !== "hdd") throw new Error("not hdd");
    expect([p.averageSeekUs, p.trackToTrackSeekUs, p.rpm]).toEqual([7400, 230, 7200]);
    expect([p.outerZoneReadBytesPerSecond, p.innerZoneReadBytesPerSecond]).toEqual([175e6, 83e6]);
  });

  it("gp3: 125 MiB/s is 125 x 2^20 B/s and the counting unit 256 KiB is 262 144 bytes (apps/docs/src/reference/storage-device-models.md#aws-ebs-volumes)", () => {
    const p = get("aws-ebs-gp3-baseline");
    if (p.kind !== "cloud-volume") throw new Error("not cloud");
    expect(p.throughputLimitBytesPerSecond).toBe(131_072_000);
    expect(p.ioCountingUnitBytes).toBe(262_144);
    expect(p.iopsLimit).toBe(3000);
    // apps/docs/src/reference/storage-device-models.md#aws-ebs-volumes [I]: 125 MiB/s is "about 1 000 x 128 KiB I/Os per second" (exactly, in MiB).
    expect(p.throughputLimitBytesPerSecond / 131_072).toBe(1000);
  });

  it("raid0: 512 KiB chunks are 524 288 bytes, read_ahead_kb 6144 = 2 x 6 x 512 (apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0)", () => {
    const p = get("raid0-6x-intel-s3600-100gb");
    if (p.kind !== "raid0") throw new Error("not raid0");
    expect(p.chunkBytes).toBe(524_288);
    expect(p.memberCount).toBe(6);
  });
});
