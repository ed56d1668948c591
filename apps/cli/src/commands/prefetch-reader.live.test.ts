/**
 * The prefetch reader held against the kernel of the machine the test runs
 * on: a real cold read of a 96 MiB file (`scanFile` with a pattern: evicted
 * with `dd iflag=nocache count=0`, checked cold with `fincore`, device
 * requests from /proc/diskstats for the device that holds it), forward and
 * backward, without advice and advising 1 and 8 blocks ahead, each beside the
 * simulator's prediction of the same read from the scenario `scan --device`
 * builds (`predictionScenario`: the file's device's read_ahead_kb and
 * max_sectors_kb from sysfs, one segment as long as the file, the kernel's
 * rule set by release).
 *
 * What is asserted, and why it may be:
 * - Advice calls: the reader and the simulator make exactly one per block.
 * - Direction: forward, advising 1 ahead gives a smaller average device
 *   request than not advising, on the kernel and in the prediction (the
 *   forced read of WILLNEED sets no readahead marker, so no window opens).
 * - Forward and backward with advice, and backward without: the simulator
 *   predicts one 8 kB request per block. The kernel's block layer may still
 *   merge 8 kB requests that wait in its queue side by side (an I/O
 *   scheduler's back merge, which the model does not play), so the measured
 *   average may be larger; it is asserted from 8 kB up to
 *   {@link MERGE_ALLOWANCE} times that, and the request count down to the
 *   blocks over that allowance.
 * - Forward without advice: the measured average request within
 *   {@link WINDOW_TOLERANCE} of the predicted one (the windows grow to
 *   read_ahead_kb and are cut into requests at max_sectors_kb and the
 *   device's segment limit, which sysfs gives and the prediction reads).
 * Every figure is printed, measured beside predicted.
 *
 * Other readers of the same device inflate the counters: a measurement
 * counts as clean when the device moved at most 1.25x the file's bytes, and
 * up to four attempts are made. Skips, saying why, where /proc/diskstats,
 * eviction or posix_fadvise are unavailable, unless SCANLAB_REQUIRE_LIVE=1.
 */
import { closeSync, existsSync, fsyncSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ReadPattern, type ScanResult, scanFile } from "@scanlab/file-scan";
import { simulate } from "@scanlab/simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveDeviceArg } from "../device-arg.js";
import { predictedIo, predictionScenario } from "./scan.js";

const REQUIRE_LIVE = process.env.SCANLAB_REQUIRE_LIVE === "1";
const MiB = 1024 * 1024;
const FILE_BYTES = 96 * MiB;
const NBLOCKS = FILE_BYTES / 8192;
/** The block layer may merge queued 8 kB requests; up to this factor is accepted as merging, not readahead. */
const MERGE_ALLOWANCE = 2;
/** Forward without advice: measured average request within this share of the prediction. */
const WINDOW_TOLERANCE = 0.3;

// A real file system, not tmpfs, when one is at hand (eviction and device counters then mean something).
const base = existsSync("/var/tmp") ? "/var/tmp" : tmpdir();
const dir = mkdtempSync(join(base, "scanlab-prefetch-"));
const file = join(dir, "reader.dat");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(() => {
  // Not sparse: every block is written (a sparse block is read without a device request).
  const chunk = Buffer.alloc(8 * MiB);
  for (let i = 0; i < chunk.length; i += 512) chunk[i] = (i / 512) & 0xff;
  const fd = openSync(file, "w");
  try {
    for (let off = 0; off < FILE_BYTES; off += chunk.length) writeSync(fd, chunk, 0, chunk.length, off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
});

function skip(reason: string): void {
  if (REQUIRE_LIVE) throw new Error(`live prefetch-reader test cannot run: ${reason}`);
  console.log(`skipped: ${reason}`);
}

/** A clean cold read (see the header), or why there is none. */
async function coldRead(pattern: ReadPattern, adviseDistance: number): Promise<ScanResult | string> {
  let last: ScanResult | null = null;
  for (let attempt = 0; attempt < 4; attempt++) {
    const r = await scanFile(file, { workers: 1, pattern, adviseDistance, evict: true });
    expect(r.cover.exact).toBe(true);
    if (r.cache.state !== "cold") return `eviction did not make the file cold (cache state ${r.cache.state})`;
    if (!r.device.available) return r.device.reason;
    if (adviseDistance > 0 && !r.advice.available) return "posix_fadvise is unavailable here";
    last = r;
    if (r.device.readBytes <= 1.25 * FILE_BYTES) return r;
  }
  return last!;
}

interface Row {
  pattern: ReadPattern;
  d: number;
  measured: { reads: number; avgRequestBytes: number; adviceCalls: number; seconds: number };
  predicted: ReturnType<typeof predictedIo> & { seconds: number };
}

const rows: Row[] = [];

describe("the prefetch reader: the running kernel beside the simulator", () => {
  it("cold reads, forward and backward, d = 0, 1, 8: measured and predicted device requests", async () => {
    // Request counts and sizes follow from the readahead rules and the queue limits, not from the
    // device's speed; the predicted times printed are this built-in profile's, not the local disk's.
    const profile = "samsung-990-pro-1tb";
    const device = resolveDeviceArg(profile);
    let scenario: ReturnType<typeof predictionScenario> | null = null;
    for (const pattern of ["forward", "backward"] as ReadPattern[]) {
      for (const d of [0, 1, 8]) {
        const r = await coldRead(pattern, d);
        if (typeof r === "string") {
          skip(r);
          return;
        }
        if (!r.device.available || r.device.avgRequestBytes === null) {
          skip("the device counters moved no request");
          return;
        }
        scenario = predictionScenario(file, r, { kind: "pg14" }, device, true, undefined);
        const sim = simulate(scenario);
        rows.push({
          pattern,
          d,
          measured: {
            reads: r.device.reads,
            avgRequestBytes: r.device.avgRequestBytes,
            adviceCalls: r.advice.calls,
            seconds: r.wallUs / 1e6,
          },
          predicted: { ...predictedIo(sim), seconds: sim.queries[0]!.meanDurationS },
        });
      }
    }
    const machine = scenario!.machine;
    console.log(
      `cold ${FILE_BYTES / MiB} MiB, ${NBLOCKS} blocks, read_ahead_kb ${machine.osOptions?.readAheadKb ?? "?"}, max_sectors_kb ${machine.osOptions?.maxSectorsKb ?? "?"}, rules ${machine.os}; predicted times on ${profile}:`,
    );
    console.log(
      "  read           measured reads  avg kB  time s   predicted reads  avg kB  time s   advice calls measured/predicted",
    );
    for (const { pattern, d, measured: m, predicted: p } of rows) {
      console.log(
        `  ${`${pattern} d=${d}`.padEnd(13)} ${String(m.reads).padStart(15)} ${(m.avgRequestBytes / 1024).toFixed(1).padStart(7)} ${m.seconds.toFixed(2).padStart(7)}   ${String(p.deviceReads).padStart(15)} ${p.avgRequestKb.toFixed(1).padStart(7)} ${p.seconds.toFixed(2).padStart(7)}   ${m.adviceCalls}/${p.adviceCalls}`,
      );
    }

    const find = (pattern: ReadPattern, d: number) => rows.find((r) => r.pattern === pattern && r.d === d)!;
    for (const { d, measured: m, predicted: p } of rows) {
      expect(p.adviceCalls).toBe(d > 0 ? NBLOCKS : 0);
      if (d > 0) expect(m.adviceCalls).toBe(p.adviceCalls);
    }
    // Direction: advice 1 ahead shrinks the average request, on the kernel and in the model.
    const f0 = find("forward", 0);
    const f1 = find("forward", 1);
    expect(f1.measured.avgRequestBytes).toBeLessThan(f0.measured.avgRequestBytes);
    expect(f1.predicted.avgRequestKb).toBeLessThan(f0.predicted.avgRequestKb);
    // One 8 kB request per block, up to the block layer's merges.
    for (const r of rows) {
      if (r.pattern === "forward" && r.d === 0) continue;
      expect(r.predicted.deviceReads).toBe(NBLOCKS);
      expect(r.predicted.avgRequestKb).toBe(8);
      expect(r.measured.avgRequestBytes).toBeGreaterThanOrEqual(8192 * 0.95);
      expect(r.measured.avgRequestBytes).toBeLessThanOrEqual(8192 * MERGE_ALLOWANCE);
      expect(r.measured.reads).toBeGreaterThanOrEqual(NBLOCKS / MERGE_ALLOWANCE);
    }
    // Forward without advice: readahead windows of the size the model predicts.
    const measuredKb = f0.measured.avgRequestBytes / 1024;
    expect(Math.abs(measuredKb - f0.predicted.avgRequestKb) / f0.predicted.avgRequestKb).toBeLessThanOrEqual(
      WINDOW_TOLERANCE,
    );
  });
});
