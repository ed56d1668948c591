/**
 * Block mapping of the calls each version reads with: preadv of several
 * blocks (17+), and PostgreSQL 11's lseek + read(2), where fd.c skips the
 * lseek when the file is already at the position.
 */
import { describe, expect, it } from "vitest";
import { parseStraceLine, relationBlockEvents, relationReads } from "./index.js";

const file = { dataDir: "/d", relPath: "base/5/16384", blockBytes: 8192, segmentBlocks: 131072 };

describe("relationReads", () => {
  it("maps a preadv of two blocks (17+) to both blocks", () => {
    const e = parseStraceLine(
      7,
      '1796023622.676724 preadv(5</d/base/5/16384>, [{iov_base=""..., iov_len=8192}, {iov_base=""..., iov_len=8192}], 2, 16384) = 16384',
    );
    expect(e).not.toBeNull();
    expect(relationReads([e!], file)).toEqual([
      { pid: 7, runs: [[2, 2]], reads: 1, firstReadS: 1796023622.676724 },
    ]);
  });

  it("follows the file position through lseek and read (PostgreSQL 11), per process and file", () => {
    const lines = [
      "1.0 lseek(5</d/base/5/16384>, 81920, SEEK_SET) = 81920",
      '1.1 read(5</d/base/5/16384>, ""..., 8192) = 8192',
      '1.2 read(5</d/base/5/16384>, ""..., 8192) = 8192',
      '1.3 read(6</d/base/5/99999>, ""..., 8192) = 8192',
      "1.4 lseek(5</d/base/5/16384.1>, 8192, SEEK_SET) = 8192",
      '1.5 read(5</d/base/5/16384.1>, ""..., 8192) = 8192',
      '1.6 read(5</d/base/5/16384>, ""..., 8192) = 0',
    ];
    const events = lines.map((l) => parseStraceLine(3, l)!);
    expect(events.every((e) => e !== null)).toBe(true);
    expect(relationReads(events, file)).toEqual([
      {
        pid: 3,
        runs: [
          [10, 2],
          [131073, 1],
        ],
        reads: 3,
        firstReadS: 1.1,
      },
    ]);
  });

  it("keeps reads and advice (fadvise64) in time order as block events", () => {
    const lines = [
      '2.0 pread64(5</d/base/5/16384>, ""..., 8192, 8192) = 8192',
      "2.1 fadvise64(5</d/base/5/16384>, 40960, 8192, POSIX_FADV_WILLNEED) = 0",
      "2.2 fadvise64(5</d/base/5/16384.1>, 0, 16384, POSIX_FADV_WILLNEED) = 0",
    ];
    expect(
      relationBlockEvents(
        lines.map((l) => parseStraceLine(4, l)!),
        file,
      ),
    ).toEqual([
      { pid: 4, timeS: 2.0, kind: "read", startBlock: 1, blocks: 1 },
      { pid: 4, timeS: 2.1, kind: "advise", startBlock: 5, blocks: 1 },
      { pid: 4, timeS: 2.2, kind: "advise", startBlock: 131072, blocks: 2 },
    ]);
  });
});
