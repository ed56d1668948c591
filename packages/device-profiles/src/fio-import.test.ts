/**
 * fio import against real fio output recorded on the scanlab dev machine
 * (fixtures/fio/*.json, made with the job files beside them: fio 3.33, a
 * 2-vCPU KVM guest, virtio disk, ext4). The expected figures are read off the
 * fixture files themselves (jobs[].read), not from the importer.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseFioSize } from "@scanlab/core";
import { describe, expect, it } from "vitest";
import { DeviceProfileError } from "./errors.js";
import { fioReadMeasurements, importFioJson } from "./fio-import.js";
import { modelAtPoints } from "./queue-fit.js";

const fixtures = join(import.meta.dirname, "..", "fixtures", "fio");
const libaio = JSON.parse(readFileSync(join(fixtures, "vda-ext4-libaio.json"), "utf8"));
const psync = JSON.parse(readFileSync(join(fixtures, "vda-ext4-psync-numjobs.json"), "utf8"));

function job(
  json: { jobs: { jobname: string; read: { iops: number; bw_bytes: number; lat_ns: { mean: number } } }[] },
  name: string,
) {
  const j = json.jobs.find((x) => x.jobname === name);
  if (j === undefined) throw new Error(`fixture has no job ${name}`);
  return j.read;
}

describe("fio sizes", () => {
  it("reads k/m suffixes as powers of 1024 (fio's default kb_base)", () => {
    expect(parseFioSize("4k")).toBe(4096);
    expect(parseFioSize("128K")).toBe(131072);
    expect(parseFioSize("1m")).toBe(1048576);
    expect(parseFioSize("4kB")).toBe(4096); // an SI "B" suffix keeps the kb_base of 1024
    expect(parseFioSize("8192")).toBe(8192);
    expect(parseFioSize("fast")).toBeNaN();
  });

  it("reads IEC sizes the way fio does: with the default kb_base=1024, KiB and MiB are powers of 1000", () => {
    // fio's HOWTO, kb_base: "1024: Compatibility mode (default) ... power-of-2 values with SI prefixes,
    // power-of-10 values with IEC prefixes". Checked on this machine with fio 3.33: bs=4KiB reads 4000-byte
    // blocks (1048000 bytes in 262 I/Os of a 1 MiB file), bs=4kB and bs=4Ki 4096-byte blocks.
    expect(parseFioSize("4KiB")).toBe(4000);
    expect(parseFioSize("8kib")).toBe(8000);
    expect(parseFioSize("1MiB")).toBe(1_000_000);
    expect(parseFioSize("4Ki")).toBe(4096);
    // kb_base=1000 swaps them: 4k = 4000, 8KiB = 8192, 1m = 10^6.
    expect(parseFioSize("4k", 1000)).toBe(4000);
    expect(parseFioSize("8KiB", 1000)).toBe(8192);
    expect(parseFioSize("1m", 1000)).toBe(1_000_000);
  });

  it("uses the job's kb_base when it reads bs out of fio JSON", () => {
    const read = { iops: 1000, bw_bytes: 8_192_000, total_ios: 1000, lat_ns: { mean: 1_000_000 } };
    const points = fioReadMeasurements(
      {
        jobs: [
          { jobname: "iec", groupid: 0, "job options": { rw: "randread", bs: "8KiB" }, read },
          { jobname: "si", groupid: 1, "job options": { rw: "randread", bs: "8KiB", kb_base: "1000" }, read },
        ],
      },
      "kb-base.json",
    );
    expect(points.map((p) => p.blockBytes)).toEqual([8000, 8192]);
  });
});

describe("fio JSON, libaio jobs at several block sizes and depths", () => {
  const points = fioReadMeasurements(libaio, "vda-ext4-libaio.json");

  it("finds all nine read jobs with their pattern, block size and depth", () => {
    expect(points).toHaveLength(9);
    expect(points.map((p) => `${p.pattern} ${p.blockBytes} ${p.queueDepth}`)).toEqual([
      "sequential 131072 1",
      "sequential 131072 16",
      "sequential 1048576 8",
      "random 4096 1",
      "random 4096 4",
      "random 4096 16",
      "random 4096 64",
      "random 8192 1",
      "random 8192 16",
    ]);
  });

  it("takes IOPS, bandwidth and mean latency (lat_ns, in microseconds) from each job", () => {
    const qd1 = job(libaio, "rand-read-4k-qd1");
    const p = points[3]!;
    expect(p.iops).toBe(qd1.iops);
    expect(p.bytesPerSecond).toBe(qd1.bw_bytes);
    expect(p.meanLatencyUs).toBeCloseTo(qd1.lat_ns.mean / 1000, 9);
  });

  it("imports a profile whose fitted model follows all nine measured points (rms ln error below 0.1, each within 0.8-1.25)", () => {
    const profile = importFioJson(libaio, { name: "vda" }, "vda-ext4-libaio.json");
    expect(profile.kind).toBe("ssd");
    expect(profile.basis).toBe("measurement");
    expect(profile.measuredWith).toMatch(/^fio-3\.33 ioengine=libaio direct=1 \(vda-ext4-libaio.json\)$/);
    expect(profile.measurements).toHaveLength(9);
    expect(profile.queueModel).toBeDefined();
    // One queue for 4 KiB and 8 KiB reads: its unit time does not grow with the read size, and this
    // device's 8 KiB reads are slower than its 4 KiB ones at the same depth, so a least-squares fit
    // splits the difference (8 KiB QD16 about 1.2, 4 KiB QD64 about 0.87).
    const rows = modelAtPoints(profile);
    const rms = Math.sqrt(rows.reduce((s, r) => s + Math.log(r.ratio) ** 2, 0) / rows.length);
    expect(rms).toBeLessThan(0.1);
    for (const r of rows) {
      expect(r.ratio, `${r.point.pattern} ${r.point.blockBytes} QD${r.point.queueDepth}`).toBeGreaterThan(
        0.8,
      );
      expect(r.ratio, `${r.point.pattern} ${r.point.blockBytes} QD${r.point.queueDepth}`).toBeLessThan(1.25);
    }
    const qd1 = job(libaio, "rand-read-4k-qd1");
    expect(profile.readLatencyQd1Us).toBeCloseTo(qd1.lat_ns.mean / 1000, 9);
  }, 60_000);
});

describe("fio JSON, synchronous engine with numjobs", () => {
  it("counts one read in flight per job: 4 psync jobs are queue depth 4", () => {
    const points = fioReadMeasurements(psync, "vda-ext4-psync-numjobs.json");
    expect(points.map((p) => `${p.pattern} ${p.blockBytes} ${p.queueDepth}`)).toEqual([
      "sequential 131072 1",
      "random 8192 1",
      "random 8192 4",
    ]);
  });

  it("uses the 8 KiB QD1 job (bs from the global options) for the latency", () => {
    const profile = importFioJson(psync, {}, "vda-ext4-psync-numjobs.json");
    expect(profile.latencyReadBytes).toBe(8192);
    expect(profile.readLatencyQd1Us).toBeCloseTo(job(psync, "rand-read-8k-1job").lat_ns.mean / 1000, 9);
  });

  it("adds up clones reported separately (numjobs without group_reporting)", () => {
    const one = { iops: 1000, bw_bytes: 8192000, total_ios: 1000, lat_ns: { mean: 1_000_000 } };
    const points = fioReadMeasurements(
      {
        "global options": { ioengine: "psync", bs: "8k", rw: "randread" },
        jobs: [
          { jobname: "r", groupid: 0, "job options": { numjobs: "2" }, read: one },
          { jobname: "r", groupid: 0, "job options": { numjobs: "2" }, read: one },
        ],
      },
      "clones.json",
    );
    expect(points).toEqual([
      {
        pattern: "random",
        blockBytes: 8192,
        queueDepth: 2,
        iops: 2000,
        bytesPerSecond: 16384000,
        meanLatencyUs: 1000,
      },
    ]);
  });
});

describe("fio files that cannot be imported", () => {
  it("names the file when there is no jobs array", () => {
    expect(() => fioReadMeasurements({ hello: 1 }, "notes.json")).toThrow(
      'fio output notes.json: it has no "jobs" array (was it written with --output-format=json?).',
    );
  });

  it("names the file when it holds only writes", () => {
    const writes = {
      jobs: [{ jobname: "w", "job options": { rw: "randwrite" }, read: { iops: 0, bw_bytes: 0 } }],
    };
    expect(() => fioReadMeasurements(writes, "writes.json")).toThrow(DeviceProfileError);
    expect(() => fioReadMeasurements(writes, "writes.json")).toThrow(
      /^fio output writes.json: it holds no sequential or random read results/,
    );
  });

  it("needs a random read at queue depth 1 for the latency", () => {
    const seqOnly = { jobs: [libaio.jobs[0]] };
    expect(() => importFioJson(seqOnly, {}, "seq.json")).toThrow(/no random read at queue depth 1/);
  });
});
