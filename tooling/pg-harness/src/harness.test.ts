/**
 * The harness itself, offline: strace lines parse into events, and reads map
 * to blocks across 1 GB segments. The live cluster is in harness.live.test.ts.
 */
import { describe, expect, it } from "vitest";
import { parseStraceLine, relationReads } from "./index.js";

describe("strace output and block mapping (offline)", () => {
  it("parses a pread64 line with a decoded path", () => {
    const e = parseStraceLine(
      4242,
      '1796023622.676724 pread64(5</tmp/x/data/base/5/16384.1>, ""..., 8192, 16384) = 8192',
    );
    expect(e).toEqual({
      pid: 4242,
      timeS: 1796023622.676724,
      syscall: "pread64",
      fd: 5,
      path: "/tmp/x/data/base/5/16384.1",
      rest: ['""...', "8192", "16384"],
      result: 8192,
    });
    expect(parseStraceLine(1, "+++ exited with 0 +++")).toBeNull();
  });

  it("maps segment .1 offset 16384 to block 131072 + 2, merges consecutive reads and ignores other files", () => {
    const file = { dataDir: "/d", relPath: "base/5/16384", blockBytes: 8192, segmentBlocks: 131072 };
    const ev = (pid: number, t: number, path: string, offset: number) => ({
      pid,
      timeS: t,
      syscall: "pread64",
      fd: 3,
      path,
      rest: ['""...', "8192", String(offset)],
      result: 8192,
    });
    const reads = relationReads(
      [
        ev(7, 1, "/d/base/5/16384", 131071 * 8192),
        ev(7, 2, "/d/base/5/16384.1", 0),
        ev(7, 3, "/d/base/5/16384.1", 8192),
        ev(7, 4, "/d/base/5/16384.1", 16384 * 2),
        ev(9, 0.5, "/d/base/5/1259", 0),
        ev(8, 5, "/d/base/5/16384", 0),
      ],
      file,
    );
    expect(reads).toEqual([
      {
        pid: 7,
        runs: [
          [131071, 3],
          [131076, 1],
        ],
        reads: 4,
        firstReadS: 1,
      },
      { pid: 8, runs: [[0, 1]], reads: 1, firstReadS: 5 },
    ]);
  });
});
