/**
 * Worked example: blkparse's default output for two PostgreSQL backends
 * reading one disk (a request queued, got, inserted, issued and completed;
 * one merged into its neighbour; readahead; a journal write; a message line
 * and the per-CPU summary), and what it gives.
 */
import { describe, expect, it } from "vitest";
import { looksLikeBlkparse, parseBlkparse } from "./blkparse.js";

const OUTPUT = `  8,0    0        1     0.000000000  4185  Q   R 2048 + 256 [postgres]
  8,0    0        2     0.000001200  4185  G   R 2048 + 256 [postgres]
  8,0    0        3     0.000002100  4185  I   R 2048 + 256 [postgres]
  8,0    0        4     0.000004000  4185  D   R 2048 + 256 [postgres]
  8,0    1        1     0.000010000  4186  Q   R 2304 + 256 [postgres]
  8,0    1        2     0.000011000  4186  M   R 2304 + 256 [postgres]
  8,0    0        5     0.000150000     0  C   R 2048 + 512 [0]
  8,0    0        6     0.000200000  4185  Q  RA 2560 + 256 [postgres]
  8,0    0        7     0.000201000  4185  D  RA 2560 + 256 [postgres]
  8,0    1        5     0.000300000   912  Q  WS 999424 + 8 [jbd2/vda1-8]
  8,0    1        6     0.000301000   912  D  WS 999424 + 8 [jbd2/vda1-8]
  8,0    0        0     0.000500000     0  m   N cfq4185 slice expired t=0
CPU0 (8,0):
 Reads Queued:           2,      256KiB	 Writes Queued:           0,        0KiB
`;

describe("parseBlkparse", () => {
  it("reads queued per process (Q) and requests issued to the device (D); writes and other actions are left out", () => {
    const r = parseBlkparse(OUTPUT);
    // Sectors of 512 bytes: 2048 + 256 is 256 sectors (128 kB) at byte 1 MiB.
    expect(r.queued).toEqual([
      { pid: 4185, file: "8,0", offset: 2048 * 512, bytes: 256 * 512 },
      { pid: 4186, file: "8,0", offset: 2304 * 512, bytes: 256 * 512 },
      { pid: 4185, file: "8,0", offset: 2560 * 512, bytes: 256 * 512 },
    ]);
    // 4186's request was merged (M) into 4185's before issue: the device saw two reads.
    expect(r.issued).toEqual([
      { pid: 4185, file: "8,0", offset: 2048 * 512, bytes: 256 * 512 },
      { pid: 4185, file: "8,0", offset: 2560 * 512, bytes: 256 * 512 },
    ]);
    expect([...r.names]).toEqual([
      [4185, "postgres"],
      [4186, "postgres"],
    ]);
    // Every event line counts (the message line `m N` has no sector range); the summary does not.
    expect(r.events).toBe(11);
  });

  it("tells blkparse output from other text", () => {
    expect(looksLikeBlkparse(OUTPUT)).toBe(true);
    expect(looksLikeBlkparse('12 pread64(3, "x", 1, 0) = 1')).toBe(false);
  });
});
