/**
 * Read-stream mode and the prefetch reader on the device that holds the temporary directory, cold
 * (evicted with dd iflag=nocache, residency measured with fincore).
 *
 * Asserted is what must hold wherever eviction, the device counters and
 * posix_fadvise work: every block read once, the scan measured cold, the
 * device read (nearly) the whole file, advice given exactly as the mode
 * says and accepted by the kernel. What the kernel makes of it
 * (the device's average request, the time against the same run without
 * advice) is *reported*: it depends on read_ahead_kb, the device and the
 * kernel, and `npm run bench` holds the bars.
 *
 * Skips, saying why, where /proc/diskstats or eviction is unavailable,
 * unless SCANLAB_REQUIRE_LIVE=1.
 */
import { statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { probeDevice } from "@scanlab/host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDist, makeTempDir, writeBlockFile } from "../test/files.js";
import type { ScanOptions, ScanResult } from "./index.js";

const { scanFile } = await loadDist();
const REQUIRE_LIVE = process.env.SCANLAB_REQUIRE_LIVE === "1";
const tmp = makeTempDir("scanlab-file-scan-modes-live-");
afterAll(() => tmp.remove());

const B = 8192;
/** 64 MiB: enough requests to average, small enough for a loaded 2-core machine. */
const FILE_BYTES = 64 * 1024 * 1024;
const file = join(tmp.dir, "modes.dat");

beforeAll(() => writeBlockFile(file, FILE_BYTES, B, 21));

function unavailable(): string | null {
  return probeDevice(statSync(tmpdir(), { bigint: true }).dev).unavailableReason;
}

function skip(reason: string): void {
  if (REQUIRE_LIVE) throw new Error(`live read-mode test cannot run: ${reason}`);
  console.log(`skipped: ${reason}`);
}

/** A cold scan, or the reason it could not be made cold and measured. */
async function cold(options: ScanOptions): Promise<ScanResult | string> {
  const r = await scanFile(file, { ...options, evict: true, work: "checksum" });
  expect(r.cover.exact).toBe(true);
  if (r.cache.state !== "cold") return `eviction did not make the file cold (cache state ${r.cache.state})`;
  if (!r.device.available) return r.device.reason;
  expect(r.device.readBytes).toBeGreaterThanOrEqual(0.9 * FILE_BYTES);
  return r;
}

const kB = (r: ScanResult): string =>
  r.device.available && r.device.avgRequestBytes !== null
    ? (r.device.avgRequestBytes / 1024).toFixed(0)
    : "-";

describe("read modes, cold, on the device that holds the temporary directory", () => {
  it("read stream, 2 workers, io_combine_limit 16: every block once; the device's average request reported", async () => {
    const why = unavailable();
    if (why !== null) return skip(why);
    const plain = await cold({ workers: 2 });
    const stream = await cold({ workers: 2, ioCombineLimit: 16 });
    if (typeof plain === "string") return skip(plain);
    if (typeof stream === "string") return skip(stream);
    expect(stream.reads.meanBlocks).toBeGreaterThan(8);
    expect(plain.reads.meanBlocks).toBe(1);
    console.log(
      `cold, 2 workers: 8 kB reads ${plain.mibPerS.toFixed(0)} MiB/s, device avg ${kB(plain)} kB; ` +
        `read stream 16: ${stream.mibPerS.toFixed(0)} MiB/s, ${stream.reads.meanBlocks.toFixed(1)} blocks per preadv, ` +
        `device avg ${kB(stream)} kB`,
    );
  });

  it("read stream with advice: the jumps between a worker's chunks are advised, and the advice calls succeed", async () => {
    const why = unavailable();
    if (why !== null) return skip(why);
    const r = await cold({ workers: 2, ioCombineLimit: 16, effectiveIoConcurrency: 16, advice: true });
    if (typeof r === "string") return skip(r);
    if (!r.advice.available) return skip(r.advice.reason ?? "advice not available");
    expect(r.advice.failed).toBe(0);
    // Every read that does not continue the worker's previous one is advised: the first read of each of
    // its runs but the first. How far the two workers' chunks interleave is up to the machine.
    for (const w of r.perWorker) expect(w.reads.adviceCalls).toBe(Math.max(0, w.runs.count - 1));
    expect(r.advice.calls).toBe(r.perWorker.reduce((a, w) => a + Math.max(0, w.runs.count - 1), 0));
    console.log(
      `cold, 2 workers, read stream 16 with advice: ${r.advice.calls} advice calls, ${r.mibPerS.toFixed(0)} MiB/s, device avg ${kB(r)} kB`,
    );
  });

  it("prefetch reader: forward with distance 1 beside no advice, and random with distance 32 beside none", async () => {
    const why = unavailable();
    if (why !== null) return skip(why);
    for (const [pattern, d] of [
      ["forward", 1],
      ["random", 32],
    ] as const) {
      const none = await cold({ pattern, adviseDistance: 0, patternSeed: 3 });
      const advised = await cold({ pattern, adviseDistance: d, patternSeed: 3 });
      if (typeof none === "string") return skip(none);
      if (typeof advised === "string") return skip(advised);
      if (!advised.advice.available) return skip(advised.advice.reason ?? "advice not available");
      expect(none.advice.calls).toBe(0);
      expect(advised.advice.calls).toBe(FILE_BYTES / B);
      expect(advised.advice.failed).toBe(0);
      console.log(
        `cold ${pattern}: no advice ${none.mibPerS.toFixed(1)} MiB/s (device avg ${kB(none)} kB), ` +
          `distance ${d} ${advised.mibPerS.toFixed(1)} MiB/s (device avg ${kB(advised)} kB): ` +
          `ratio ${(advised.mibPerS / none.mibPerS).toFixed(2)}`,
      );
    }
  });
});
