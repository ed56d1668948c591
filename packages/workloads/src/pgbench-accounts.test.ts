import { bitmapStats } from "@scanlab/bitmap-prefetch";
import { describe, expect, it } from "vitest";
import { WorkloadError } from "./errors.js";
import { PGBENCH_ACCOUNTS_ROWS_PER_PAGE, pgbenchAccountsBitmap } from "./pgbench-accounts.js";

describe("the 2022 eic benchmark's pgbench query right after pgbench -i (apps/docs/src/reference/experiments.md#t7-b-pgbench-accounts-range)", () => {
  it("61 rows per page: 8168 usable bytes / (24 + 97 bytes MAXALIGNed to 128, plus a 4-byte line pointer)", () => {
    const tuple = Math.ceil((24 + 97) / 8) * 8 + 4;
    expect(tuple).toBe(132);
    expect(PGBENCH_ACCOUNTS_ROWS_PER_PAGE).toBe(Math.floor((8192 - 24) / tuple));
  });

  it("scale 3000: 300 M rows in 4 918 033 pages (~37.5 GiB; apps/docs/src/reference/experiments.md#t7-b-pgbench-accounts-range says about 38 GB)", () => {
    const q = pgbenchAccountsBitmap();
    expect(q.rows).toBe(300_000_000);
    expect(q.tableBlocks).toBe(Math.ceil(300_000_000 / 61));
    expect((q.tableBlocks * 8192) / 2 ** 30).toBeCloseTo(37.5, 1);
  });

  it("aid 1000..50 000 000 is one contiguous sixth of the table: pages 16 .. 819 672", () => {
    const q = pgbenchAccountsBitmap();
    const s = bitmapStats(q.bitmap);
    expect(s.runs).toBe(1);
    expect(s.sequentiality).toBe(1);
    expect(q.bitmap.run(0).startBlock).toBe(Math.floor(999 / 61));
    expect(s.pages).toBe(Math.floor(49_999_999 / 61) - 16 + 1);
    expect(s.fraction).toBeCloseTo(1 / 6, 3);
  });

  it("exact pages iterate the matching aids (38 on the first page, 8 on the last); lossy pages all 61 rows", () => {
    const exact = pgbenchAccountsBitmap().bitmap;
    expect(exact.pageInfo(16)).toEqual({ lossy: false, tuples: 16 * 61 + 61 - 1000 + 1 });
    expect(exact.pageInfo(16)?.tuples).toBe(38);
    expect(exact.pageInfo(500_000)?.tuples).toBe(61);
    expect(exact.pageInfo(819_672)?.tuples).toBe(50_000_000 - 819_672 * 61);
    const lossy = pgbenchAccountsBitmap({ lossy: true }).bitmap;
    expect(lossy.pageInfo(16)).toEqual({ lossy: true, tuples: 61 });
    expect(lossy.pageInfo(819_672)).toEqual({ lossy: true, tuples: 61 });
  });

  it("other scales and ranges; bad ones are user errors", () => {
    const q = pgbenchAccountsBitmap({ scale: 1, aidFrom: 1, aidTo: 100_000 });
    // The well-known size of pgbench_accounts at scale 1: 1640 pages (13 MB) = ceil(100 000 / 61).
    expect(q.tableBlocks).toBe(1640);
    expect(q.bitmap.pageCount).toBe(1640);
    expect(q.bitmap.pageInfo(1639)?.tuples).toBe(100_000 - 1639 * 61);
    expect(() => pgbenchAccountsBitmap({ scale: 0 })).toThrow(WorkloadError);
    expect(() => pgbenchAccountsBitmap({ scale: 1, aidTo: 100_001 })).toThrow(/aid range/);
  });
});
