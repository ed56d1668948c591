/**
 * Bad input through the built package: each case is a typed user error with
 * one sentence (`userError`, a stable `code`, `name`), or a defined result
 * (a partial last block; a file that shrinks while it is being scanned).
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadDist, makeTempDir, readChecksums, writeBlockFile } from "../test/files.js";
import { userError } from "../test/user-error.js";
import { blockChecksum, sumBlockChecksums } from "./block-work.js";

const { scanFile } = await loadDist();
const tmp = makeTempDir();
afterAll(() => tmp.remove());
const B = 8192;
const REQUIRE_LIVE = process.env.SCANLAB_REQUIRE_LIVE === "1";

describe("typed user errors", () => {
  const ok = join(tmp.dir, "ok.dat");
  writeBlockFile(ok, 16 * B);

  it("a missing file", async () => {
    const e = await userError(scanFile(join(tmp.dir, "missing.dat")));
    expect([e.name, e.code]).toEqual(["FileScanError", "FILESCAN_NOT_FOUND"]);
    expect(e.message).toContain("missing.dat");
  });

  it("a directory", async () => {
    expect((await userError(scanFile(tmp.dir))).code).toBe("FILESCAN_IS_DIRECTORY");
  });

  it("an empty file", async () => {
    const p = join(tmp.dir, "empty.dat");
    writeFileSync(p, "");
    expect((await userError(scanFile(p))).code).toBe("FILESCAN_EMPTY");
  });

  it("options out of range", async () => {
    expect((await userError(scanFile(ok, { workers: 0 }))).code).toBe("FILESCAN_BAD_OPTION");
    expect((await userError(scanFile(ok, { workers: 1.5 }))).code).toBe("FILESCAN_BAD_OPTION");
    expect((await userError(scanFile(ok, { blockBytes: 0 }))).code).toBe("FILESCAN_BAD_OPTION");
    expect((await userError(scanFile(ok, { work: "bogus" as never }))).code).toBe("FILESCAN_BAD_OPTION");
    expect((await userError(scanFile(ok, { relation: "yes" as never }))).code).toBe("FILESCAN_BAD_OPTION");
    expect((await userError(scanFile(ok, { cover: "runs", recordRuns: false }))).code).toBe(
      "FILESCAN_BAD_OPTION",
    );
  });

  it("a bad policy is the allocator's user error", async () => {
    const e = await userError(scanFile(ok, { policy: { kind: "pg99" } as never }));
    expect([e.name, e.code]).toEqual(["AllocatorError", "ALLOCATOR_BAD_POLICY"]);
  });

  it("a work module that is missing, has no default export, or throws", async () => {
    const missing = await userError(scanFile(ok, { work: { module: join(tmp.dir, "nope.mjs") } }));
    expect(missing.code).toBe("FILESCAN_BAD_WORK_MODULE");
    const noDefault = new URL("../test/no-default-work.mjs", import.meta.url).href;
    expect((await userError(scanFile(ok, { work: { module: noDefault } }))).code).toBe(
      "FILESCAN_BAD_WORK_MODULE",
    );
    const throwing = new URL("../test/throwing-work.mjs", import.meta.url).href;
    const e = await userError(scanFile(ok, { workers: 2, work: { module: throwing } }));
    expect(e.code).toBe("FILESCAN_WORK_FAILED");
    expect(e.message).toContain("block 5");
  });

  it("no read permission (EACCES), checked as a non-root user", async () => {
    const p = join(tmp.dir, "secret.dat");
    writeBlockFile(p, 4 * B);
    chmodSync(p, 0o000);
    chmodSync(tmp.dir, 0o755);
    const isRoot = process.getuid?.() === 0;
    if (!isRoot) {
      expect((await userError(scanFile(p))).code).toBe("FILESCAN_PERMISSION_DENIED");
      return;
    }
    // Root reads anything, so run the scan in a child process as nobody (setpriv, util-linux).
    if (!existsSync("/usr/bin/setpriv")) {
      const reason = "setpriv (util-linux) is missing, so the EACCES case cannot run as a non-root user";
      if (REQUIRE_LIVE) throw new Error(reason);
      console.log(`skipped: ${reason}`);
      return;
    }
    const dist = new URL("../dist/index.js", import.meta.url).href;
    const script = `import(${JSON.stringify(dist)}).then(({ scanFile }) => scanFile(${JSON.stringify(p)}))
      .then(() => console.log("NO ERROR"), (e) => console.log(JSON.stringify({ code: e.code, userError: e.userError, message: e.message })));`;
    const r = spawnSync(
      "setpriv",
      [
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        process.execPath,
        "--input-type=module",
        "-e",
        script,
      ],
      { encoding: "utf8", cwd: tmp.dir },
    );
    expect(r.stderr).toBe("");
    const out = JSON.parse(r.stdout.trim()) as { code: string; userError: boolean; message: string };
    expect(out).toMatchObject({ code: "FILESCAN_PERMISSION_DENIED", userError: true });
    expect(out.message).toContain("secret.dat");
  });
});

describe("defined results", () => {
  it("a size that is not a multiple of the block size: the partial last block is read and reported", async () => {
    const p = join(tmp.dir, "ragged.dat");
    const bytes = 1000 * B + 100;
    writeBlockFile(p, bytes, B, 5);
    const r = await scanFile(p, { workers: 3, work: "checksum" });
    expect(r.target).toMatchObject({ nblocks: 1001, lastBlockBytes: 100, bytes });
    expect(r.bytes).toBe(bytes);
    expect(r.shortReads).toBe(0);
    expect(r.cover.exact).toBe(true);
    expect(r.work).toEqual({
      kind: "checksum",
      checksum: sumBlockChecksums(readChecksums([p], B, blockChecksum)),
    });
  });

  it("a file that shrinks during the scan: short reads are counted, the result says so, nothing throws", async () => {
    const p = join(tmp.dir, "shrinking.dat");
    writeBlockFile(p, 4000 * B);
    let cut = false;
    const r = await scanFile(p, {
      workers: 1,
      policy: { kind: "pg11" }, // one block at a time, in order, so the cut lands ahead of the reader
      work: { module: new URL("../test/sleepy-work.mjs", import.meta.url).href },
      progressIntervalMs: 10,
      onProgress: (progress) => {
        if (!cut && progress.blocks >= 200) {
          truncateSync(p, 2000 * B);
          cut = true;
        }
      },
    });
    expect(cut).toBe(true);
    expect(r.bytesAfter).toBe(2000 * B);
    expect(r.blocks).toBe(4000); // every block of the size sampled at the start was attempted once
    expect(r.cover.exact).toBe(true);
    // Blocks 2000..3999 read after the cut come back empty (all 2000 of them unless the machine was so
    // busy that the worker passed block 2000 before the main thread's progress timer fired).
    expect(r.shortReads).toBeGreaterThan(0);
    expect(r.shortReads).toBeLessThanOrEqual(2000);
    expect(r.bytes).toBe((4000 - r.shortReads) * B);
    expect(r.warnings.join(" ")).toMatch(/shrank during the scan/);
  });

  it("a file with no block device underneath (tmpfs): device counters unavailable, with the reason", async () => {
    const shm = "/dev/shm";
    if (!existsSync(shm) || statSync(shm, { bigint: true }).dev >> 8n !== 0n) {
      const reason = "/dev/shm is not an anonymous-device filesystem here";
      if (REQUIRE_LIVE) throw new Error(reason);
      console.log(`skipped: ${reason}`);
      return;
    }
    const dir = mkdtempSync(join(shm, "scanlab-file-scan-"));
    try {
      const p = join(dir, "in-memory.dat");
      writeBlockFile(p, 64 * B);
      const r = await scanFile(p, { workers: 2 });
      expect(r.device.available).toBe(false);
      if (!r.device.available) expect(r.device.reason).toMatch(/not a block device/);
      expect(r.cover.exact).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("an onProgress callback that throws stops the scan and rejects with its error", async () => {
    const p = join(tmp.dir, "progress.dat");
    writeBlockFile(p, 2000 * B);
    const boom = new Error("progress bar broke");
    await expect(
      scanFile(p, {
        workers: 2,
        work: { module: new URL("../test/sleepy-work.mjs", import.meta.url).href },
        progressIntervalMs: 5,
        onProgress: () => {
          throw boom;
        },
      }),
    ).rejects.toBe(boom);
  });
});
