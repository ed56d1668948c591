/**
 * The strace line shapes of strace(1)'s manual: -f prefixes ("[pid N]" on a
 * terminal, "N " with -o), -t/-tt/-ttt timestamps, -y paths, -T durations,
 * unfinished/resumed pairs, failed calls, and preadv.
 */
import { describe, expect, it } from "vitest";
import { summariseReads } from "./read-runs.js";
import { looksLikeStrace, parseStraceLog } from "./strace-log.js";

describe("parseStraceLog", () => {
  it("reads every prefix and timestamp form", () => {
    const log = [
      'pread64(5, "\\0\\0"..., 8192, 0) = 8192',
      '[pid  4242] pread64(5, "\\0\\0"..., 8192, 8192) = 8192',
      '4243 10:00:00 pread64(6, "\\0"..., 8192, 0) = 8192',
      '4243 10:00:00.123456 pread64(6, "\\0"..., 8192, 8192) = 8192',
      '4244 1700000000.123456 pread64(7</data/base/5/16384>, "\\0"..., 8192, 16384) = 8192 <0.000021>',
    ].join("\n");
    const r = parseStraceLog(log);
    expect(r.reads).toEqual([
      { pid: 0, file: "fd 5", offset: 0, bytes: 8192 },
      { pid: 4242, file: "fd 5", offset: 8192, bytes: 8192 },
      { pid: 4243, file: "fd 6", offset: 0, bytes: 8192 },
      { pid: 4243, file: "fd 6", offset: 8192, bytes: 8192 },
      { pid: 4244, file: "/data/base/5/16384", offset: 16384, bytes: 8192 },
    ]);
    expect(r.unknownLines).toBe(0);
  });

  it("joins unfinished and resumed halves of one process, while another process's call comes between", () => {
    const log = [
      "101 pread64(5</d/16384>,  <unfinished ...>",
      '102 pread64(5</d/16384>, "\\0"..., 8192, 8192) = 8192',
      '101 <... pread64 resumed>"\\0"..., 8192, 0) = 8192',
    ].join("\n");
    expect(parseStraceLog(log).reads).toEqual([
      { pid: 102, file: "/d/16384", offset: 8192, bytes: 8192 },
      { pid: 101, file: "/d/16384", offset: 0, bytes: 8192 },
    ]);
  });

  it("leaves out failed and empty reads, ignores signals and exits, counts preadv by bytes returned", () => {
    const log = [
      "7 pread64(5, 0x7ffd, 8192, 0) = -1 EINTR (Interrupted system call)",
      '7 pread64(5, "", 8192, 999424) = 0',
      "7 --- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_USER} ---",
      '7 preadv(5, [{iov_base="\\0"..., iov_len=8192}, {iov_base="\\0"..., iov_len=8192}], 2, 16384) = 16384',
      "7 +++ exited with 0 +++",
    ].join("\n");
    const r = parseStraceLog(log);
    expect(r.failed).toBe(2);
    expect(r.reads).toEqual([{ pid: 7, file: "fd 5", offset: 16384, bytes: 16384 }]);
    expect(r.unknownLines).toBe(0);
  });

  it("reads -r without -f (seconds padded with spaces) and -Y (a command name after the pid)", () => {
    const log = [
      '     0.000000 pread64(5</d/16384>, ""..., 8192, 0) = 8192',
      '     0.000036 pread64(5</d/16384>, ""..., 8192, 8192) = 8192',
      '[pid  2728<postgres>] pread64(6</d/16384>, ""..., 8192, 16384) = 8192',
      '2729<postgres>      0.000015 pread64(6</d/16384>, ""..., 8192, 24576) = 8192',
    ].join("\n");
    expect(looksLikeStrace(log)).toBe(true);
    const r = parseStraceLog(log);
    expect(r.reads.map((x) => [x.pid, x.offset])).toEqual([
      [0, 0],
      [0, 8192],
      [2728, 16384],
      [2729, 24576],
    ]);
    expect(r.unknownLines).toBe(0);
  });

  it("tells strace logs from other text", () => {
    expect(looksLikeStrace('12 pread64(3, "x", 1, 0) = 1')).toBe(true);
    expect(looksLikeStrace("  8,0    0        1     0.000000000  4185  Q   R 2048 + 256 [postgres]")).toBe(
      false,
    );
  });
});

describe("summariseReads", () => {
  it("a striding pair (PG 11-13, apps/docs/src/reference/experiments.md#t1-freebsd-ufs-striding-and-64-block-chunks): every read is its own run", () => {
    const reads = Array.from({ length: 8 }, (_, i) => ({
      pid: i % 2 === 0 ? 1 : 2,
      file: "f",
      offset: i * 8192,
      bytes: 8192,
    }));
    const [a, b] = summariseReads(reads);
    expect(a!.runs).toBe(4);
    expect(b!.runs).toBe(4);
    expect(a!.meanRunBytes).toBe(8192);
  });

  it("consecutive reads make one run per file, and a jump starts a new one", () => {
    const reads = [
      { pid: 1, file: "f", offset: 0, bytes: 8192 },
      { pid: 1, file: "g", offset: 0, bytes: 8192 },
      { pid: 1, file: "f", offset: 8192, bytes: 8192 },
      { pid: 1, file: "f", offset: 65536, bytes: 8192 },
    ];
    const [p] = summariseReads(reads);
    expect(p!.runs).toBe(3);
    expect(p!.longestRunBytes).toBe(16384);
    expect(p!.files).toBe(2);
  });
});
