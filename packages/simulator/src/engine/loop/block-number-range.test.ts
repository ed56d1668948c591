/**
 * Tables across the whole range of PostgreSQL's block numbers (unsigned
 * 32-bit, MaxBlockNumber = 0xFFFFFFFE: src/include/storage/block.h).
 *
 * Past 2^31 + 2^18 blocks the warp's stretch crosses block 2^31, where a
 * signed 32-bit shift in the shared-buffer residency probe wrapped: the warp
 * never cut and a scan of 16 TiB or more ran block by block for hours. These
 * tests hold both sides of that boundary, other allocators and OS models on
 * it, the largest table, and the warp's answer against an exact run there.
 *
 * Each warped run here walks about a million blocks in a few seconds of CPU;
 * on a loaded 2-core machine that can be a minute of wall time, hence the
 * explicit timeouts.
 */
import { describe, expect, it } from "vitest";
import { simulate } from "../../index.js";
import type { ScenarioInput } from "../../scenario/schema.js";

const BOUNDARY = 2 ** 31 + 2 ** 18;
const MAX_BLOCKS = 0xfffffffe;

function scenario(
  blocks: number,
  query: Partial<ScenarioInput["queries"][number]> = {},
  os = "linux-5.4",
): ScenarioInput {
  return {
    name: `${blocks} blocks`,
    machine: {
      cores: 8,
      ram: "16GB",
      os: os as ScenarioInput["machine"]["os"],
      device: "samsung-990-pro-1tb",
    },
    tables: [{ name: "t", blocks, tuplesPerPage: 226 }],
    queries: [{ name: "q", table: "t", pg: "14", workers: 2, ...query }],
  };
}

describe("the warp cuts tables on both sides of 2^31 + 2^18 blocks and up to the last block", () => {
  const cases: [string, ScenarioInput][] = [
    ["2^31 + 2^18 - 1 blocks", scenario(BOUNDARY - 1)],
    ["2^31 + 2^18 blocks", scenario(BOUNDARY)],
    ["0xFFFFFFFE blocks (the largest table)", scenario(MAX_BLOCKS)],
    ["2^31 + 2^18 blocks, PG 11 striding", scenario(BOUNDARY, { pg: "11" })],
    ["2^31 + 2^18 blocks, FreeBSD 13, serial", scenario(BOUNDARY, { workers: 0 }, "freebsd-13")],
  ];
  // A few seconds of CPU each (see the header): a generous timeout for a loaded machine.
  it.each(cases)(
    "%s",
    (_name, s) => {
      const r = simulate(s);
      const blocks = s.tables[0]!.blocks!;
      expect(r.warp.cuts).toBeGreaterThanOrEqual(1);
      expect(r.warp.skippedBlocks).toBeGreaterThan(blocks * 0.99);
      const run = r.queries[0]!.runs[0]!;
      expect(run.finished).toBe(true);
      expect(run.blocks).toBe(blocks);
      expect(run.participants.reduce((a, p) => a + p.blocks, 0)).toBe(blocks);
    },
    300_000,
  );
});

describe("warped and exact runs agree at 2^31 + 2^18 blocks", () => {
  // Exact at a reduced width: one process (a serial scan) reading 8 MB windows, so the exact
  // run walks the whole 16 TiB table in about 2.1 million steps of 1024 blocks (the longest
  // stretch a step takes, 8 MB) instead of 134 million readahead windows of 16 blocks for two
  // workers and a leader. (Much larger windows would leave the warp's 256 MB measurement
  // windows only a couple of reads each, too few to measure a device rate from.) Its block numbers, segment files, shared-buffer probes and warp arithmetic are
  // those of the full table. About 70 s of CPU, minutes on a loaded 2-core machine: hence the
  // timeout.
  it("mean scan time within 0.5%, device bytes within 0.5%", () => {
    const s = scenario(BOUNDARY, { workers: 0 });
    s.machine.osOptions = { readAheadKb: 8192, maxSectorsKb: 8192 };
    const warped = simulate(s);
    const exact = simulate(s, { exact: true });
    expect(warped.warp.cuts).toBeGreaterThanOrEqual(1);
    expect(exact.warp.cuts).toBe(0);
    const w = warped.queries[0]!.meanDurationS;
    const e = exact.queries[0]!.meanDurationS;
    expect(Math.abs(w / e - 1)).toBeLessThan(0.005);
    expect(Math.abs(warped.device.bytes / exact.device.bytes - 1)).toBeLessThan(0.005);
    expect(warped.queries[0]!.runs[0]!.blocks).toBe(exact.queries[0]!.runs[0]!.blocks);
  }, 1_200_000);
});
