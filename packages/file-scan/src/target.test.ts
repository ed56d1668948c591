/**
 * Target resolution against real files in a temp dir: one file, PostgreSQL
 * relation segments walked as md.c's mdnblocks does (small segments here via
 * segmentBlocks, the same rule as 1 GB ones), and the bad inputs.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeTempDir } from "../test/files.js";
import { FileScanError } from "./errors.js";
import { RELSEG_BLOCKS, resolveTarget } from "./target.js";

const tmp = makeTempDir();
afterAll(() => tmp.remove());
const B = 8192;

function file(name: string, bytes: number): string {
  const p = join(tmp.dir, name);
  writeFileSync(p, Buffer.alloc(bytes, 1));
  return p;
}

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(FileScanError);
    expect((e as FileScanError).userError).toBe(true);
    expect((e as Error).message.trim().split(/(?<=[.;])\s+(?=[A-Z])/).length).toBe(1);
    return (e as FileScanError).code;
  }
  return undefined;
}

const opts = { blockBytes: B, relation: "auto" as const, segmentBlocks: RELSEG_BLOCKS };

describe("one file", () => {
  it("counts whole blocks, and a partial last block as one block of fewer bytes", () => {
    const t = resolveTarget(file("plain.dat", 10 * B + 100), opts);
    expect(t.kind).toBe("file");
    expect(t.nblocks).toBe(11);
    expect(t.lastBlockBytes).toBe(100);
    expect(t.bytes).toBe(10 * B + 100);
    expect(t.segments).toHaveLength(1);
  });

  it("a size that is a multiple of the block size has a full last block", () => {
    const t = resolveTarget(file("whole.dat", 4 * B), opts);
    expect([t.nblocks, t.lastBlockBytes]).toEqual([4, B]);
  });

  it("RELSEG_SIZE is 1 GB of 8 kB blocks (pg_config.h default)", () => {
    expect(RELSEG_BLOCKS * B).toBe(1024 ** 3);
  });
});

describe("PostgreSQL relation segments (md.c mdnblocks)", () => {
  const seg = 4; // blocks per segment in these tests

  it("numbers N, N.1, N.2 as one block space and stops at the first segment that is not full", () => {
    const dir = join(tmp.dir, "rel1");
    mkdirSync(dir);
    writeFileSync(join(dir, "16384"), Buffer.alloc(seg * B));
    writeFileSync(join(dir, "16384.1"), Buffer.alloc(seg * B));
    writeFileSync(join(dir, "16384.2"), Buffer.alloc(2 * B));
    writeFileSync(join(dir, "16384.3"), Buffer.alloc(seg * B)); // after a short segment: ignored, as PostgreSQL does
    const t = resolveTarget(join(dir, "16384"), { ...opts, segmentBlocks: seg });
    expect(t.kind).toBe("relation");
    expect(t.nblocks).toBe(10);
    expect(t.segments.map((s) => [s.firstBlock, s.blocks])).toEqual([
      [0, 4],
      [4, 4],
      [8, 2],
    ]);
  });

  it("a relation that is an exact multiple of the segment size ends at its last full segment", () => {
    const dir = join(tmp.dir, "rel2");
    mkdirSync(dir);
    writeFileSync(join(dir, "777"), Buffer.alloc(seg * B));
    writeFileSync(join(dir, "777.1"), Buffer.alloc(seg * B));
    const t = resolveTarget(join(dir, "777"), { ...opts, segmentBlocks: seg });
    expect(t.nblocks).toBe(8);
    expect(t.segments).toHaveLength(2);
  });

  it("auto-detection needs an all-digit name and a .1 segment; relation: true forces it", () => {
    const dir = join(tmp.dir, "rel3");
    mkdirSync(dir);
    writeFileSync(join(dir, "555"), Buffer.alloc(seg * B));
    expect(resolveTarget(join(dir, "555"), { ...opts, segmentBlocks: seg }).kind).toBe("file");
    expect(resolveTarget(join(dir, "555"), { ...opts, segmentBlocks: seg, relation: true }).kind).toBe(
      "relation",
    );
  });

  it("refuses a later segment and a segment larger than the segment size", () => {
    const dir = join(tmp.dir, "rel4");
    mkdirSync(dir);
    writeFileSync(join(dir, "999"), Buffer.alloc(seg * B));
    writeFileSync(join(dir, "999.1"), Buffer.alloc(B));
    expect(
      codeOf(() => resolveTarget(join(dir, "999.1"), { ...opts, relation: true, segmentBlocks: seg })),
    ).toBe("FILESCAN_BAD_SEGMENT");
    expect(codeOf(() => resolveTarget(join(dir, "999"), { ...opts, relation: true, segmentBlocks: 2 }))).toBe(
      "FILESCAN_BAD_SEGMENT",
    );
  });
});

describe("bad targets", () => {
  it("a missing file", () => {
    expect(codeOf(() => resolveTarget(join(tmp.dir, "nope"), opts))).toBe("FILESCAN_NOT_FOUND");
  });
  it("a directory", () => {
    expect(codeOf(() => resolveTarget(tmp.dir, opts))).toBe("FILESCAN_IS_DIRECTORY");
  });
  it("an empty file", () => {
    expect(codeOf(() => resolveTarget(file("empty.dat", 0), opts))).toBe("FILESCAN_EMPTY");
  });
  it("a FIFO", () => {
    const p = join(tmp.dir, "fifo");
    execFileSync("mkfifo", [p]);
    expect(codeOf(() => resolveTarget(p, opts))).toBe("FILESCAN_NOT_A_FILE");
  });
  it("more blocks than a block number can address", () => {
    // A sparse file of 2^32 blocks of 1 byte: 4 GiB of holes, no disk space used.
    const p = join(tmp.dir, "huge.dat");
    execFileSync("truncate", ["-s", String(2 ** 32), p]);
    expect(codeOf(() => resolveTarget(p, { ...opts, blockBytes: 1 }))).toBe("FILESCAN_TOO_LARGE");
  });
});
