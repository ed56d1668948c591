/**
 * Live tests of the Node entry on this machine: calibration of the device that
 * holds a real temporary file, with fio and with Node's own worker threads.
 * Figures on a shared machine are noisy, so the checks are loose: positive,
 * finite, in the expected order, labelled with how they were measured. Where a
 * prerequisite is missing (fio, page-cache eviction) the test is skipped with
 * the reason printed, unless SCANLAB_REQUIRE_LIVE=1 (CI), where it fails.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeviceProfileError } from "./errors.js";
import { calibrate, evictAndVerify, fioVersion } from "./node.js";

const requireLive = process.env.SCANLAB_REQUIRE_LIVE === "1";
const MiB = 1024 * 1024;
let dir = "";
let file = "";

function skipOrFail(ctx: { skip: (note?: string) => void }, reason: string): void {
  if (requireLive) throw new Error(`SCANLAB_REQUIRE_LIVE=1 but ${reason}`);
  console.log(`skipped: ${reason}`);
  ctx.skip(reason);
}

function makeTable(parent: string): void {
  dir = mkdtempSync(join(parent, "scanlab-calibrate-"));
  file = join(dir, "table.data");
  const chunk = Buffer.alloc(MiB, 0x5a);
  const parts: Buffer[] = [];
  for (let i = 0; i < 64; i++) parts.push(chunk);
  writeFileSync(file, Buffer.concat(parts)); // 64 MiB
}

beforeAll(() => {
  makeTable(tmpdir());
  // A tmpfs temp dir cannot be evicted: try next to the package, which is on a real file system.
  if (evictAndVerify(file).evicted === false) {
    rmSync(dir, { recursive: true, force: true });
    makeTable(join(import.meta.dirname, ".."));
  }
});

afterAll(() => {
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
});

describe("calibrate() on a real temporary file", () => {
  it("measures with Node worker threads on a file evicted from the page cache", async (ctx) => {
    const eviction = evictAndVerify(file);
    if (eviction.evicted !== true)
      return skipOrFail(ctx, `page-cache eviction is impossible here: ${eviction.reason}`);
    const profile = await calibrate(file, { method: "node", phaseMs: 150 });
    expect(profile.basis).toBe("measurement");
    expect(profile.measuredWith).toMatch(
      /^node v\d+.* worker_threads fs\.readSync .*dd iflag=nocache, checked with fincore/,
    );
    const m = profile.measurements!;
    expect(m.map((x) => `${x.pattern} ${x.blockBytes} QD${x.queueDepth}`)).toEqual([
      "sequential 131072 QD1",
      "random 8192 QD1",
      "random 8192 QD4",
      "random 8192 QD16",
      "random 8192 QD64",
    ]);
    for (const x of m) {
      expect(Number.isFinite(x.iops) && x.iops > 0).toBe(true);
      expect(Number.isFinite(x.meanLatencyUs) && x.meanLatencyUs > 0).toBe(true);
    }
    // Deeper queues do not make a device slower by half (loose: the machine is shared).
    expect(m[4]!.iops).toBeGreaterThan(m[1]!.iops * 0.5);
    expect(profile.latencyReadBytes).toBe(8192);
    expect(profile.readLatencyQd1Us).toBeCloseTo(m[1]!.meanLatencyUs, 9);
  });

  it("measures with fio when it is installed: 8 KiB random reads by depth, sequential sizes, CPU costs", async (ctx) => {
    const version = fioVersion();
    if (version === undefined) return skipOrFail(ctx, "fio is not installed (Debian package fio)");
    const profile = await calibrate(file, { method: "fio", phaseMs: 100, rounds: 1 });
    expect(profile.measuredWith).toMatch(
      new RegExp(
        `^${version.replace(/\./g, "\\.")} ioengine=(io_uring|libaio) direct=[01] --readonly on .*median of 1 round`,
      ),
    );
    const m = profile.measurements!;
    expect(m.map((x) => `${x.pattern} ${x.blockBytes} QD${x.queueDepth}`)).toEqual([
      "random 8192 QD1",
      "random 8192 QD4",
      "random 8192 QD16",
      "random 8192 QD64",
      ...[8192, 32768, 131072, 524288, 1048576, 4194304].flatMap((b) => [
        `sequential ${b} QD1`,
        `sequential ${b} QD16`,
      ]),
    ]);
    for (const x of m) expect(x.iops > 0 && x.bytesPerSecond > 0 && x.meanLatencyUs > 0).toBe(true);
    expect(profile.latencyReadBytes).toBe(8192);
    expect(profile.queueModel?.stripeBytes).toBe(8192);
    const cpu = profile.cpu!;
    expect(cpu.points!.map((p) => p.blockBytes)).toEqual([8192, 32768, 131072]);
    expect(cpu.copyBytesPerUs).toBeGreaterThan(0);
    expect(cpu.readSyscallUs).toBeGreaterThanOrEqual(0);
    expect(cpu.measuredWith).toMatch(/ioengine=psync rw=read invalidate=0/);
    expect(cpu.measuredWith).toMatch(/resident \(fincore\)|no fincore/);
    // The page-cache fill: measured where the file could be evicted, else the reason is given.
    if (cpu.fillUsPerPage === undefined) expect(cpu.measuredWith).toMatch(/no page-cache fill cost: /);
    else {
      expect(cpu.fillUsPerPage).toBeGreaterThanOrEqual(0);
      expect(cpu.measuredWith).toMatch(/fillUsPerPage: .*evicted \(POSIX_FADV_DONTNEED\) then cached/);
    }
  }, 120_000);

  it("uses fio by default when it is installed", async (ctx) => {
    if (fioVersion() === undefined) return skipOrFail(ctx, "fio is not installed (Debian package fio)");
    const profile = await calibrate(file, {
      phaseMs: 100,
      queueDepths: [1],
      rounds: 1,
      sequentialSizes: [131072],
      cpu: false,
    });
    expect(profile.measuredWith).toMatch(/^fio-/);
  });

  it("refuses a file too small to measure, naming it", async () => {
    const small = join(dir, "small.data");
    writeFileSync(small, Buffer.alloc(4096));
    await expect(calibrate(small)).rejects.toThrow(
      `Cannot calibrate with ${small}: it has 4096 bytes, and calibration needs at least 1 MiB.`,
    );
    await expect(calibrate(join(dir, "missing"))).rejects.toThrow(/it cannot be read \(ENOENT\)/);
  });

  it("refuses to measure with Node where the page cache cannot be emptied (tmpfs)", async (ctx) => {
    if (!existsSync("/dev/shm")) return skipOrFail(ctx, "there is no /dev/shm tmpfs to try");
    const shmDir = mkdtempSync("/dev/shm/scanlab-");
    try {
      const shmFile = join(shmDir, "cached.data");
      writeFileSync(shmFile, Buffer.alloc(2 * MiB, 1));
      const eviction = evictAndVerify(shmFile);
      if (eviction.evicted === "unverified")
        return skipOrFail(ctx, `eviction cannot be checked: ${eviction.reason}`);
      expect(eviction.evicted).toBe(false);
      const error = await calibrate(shmFile, { method: "node", phaseMs: 50 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DeviceProfileError);
      expect((error as DeviceProfileError).code).toBe("CALIBRATION_EVICTION_IMPOSSIBLE");
    } finally {
      rmSync(shmDir, { recursive: true, force: true });
    }
  });
});
