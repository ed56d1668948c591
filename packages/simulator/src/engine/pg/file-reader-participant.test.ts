/**
 * The plain-file reader (`kind: "file"`) against worked examples of the
 * Linux rules (apps/docs/src/reference/linux-readahead-window.md#one-reader-from-block-0,
 * #fadvise-and-modes, #a-reader-that-advises-at-a-distance): a forward reader
 * without advice gets the readahead ramp and then read_ahead_kb windows; the
 * same reader advising 1 or 8 blocks ahead finds every block already in the
 * cache, so the sync path never runs, no marker is set, and every block is its
 * own 8 kB device read; every advice call is counted and costs CPU time.
 */
import { describe, expect, it } from "vitest";
import { runSpied } from "../../../test/os-spy.js";
import { ScenarioError } from "../../errors.js";
import { resolveScenario } from "../../scenario/resolve.js";
import type { ScenarioInput } from "../../scenario/schema.js";
import { simulateWith } from "../loop/simulate.js";
import { realModels } from "../seam/adapters.js";
import { fileAdviceCallUs, resolveDeviceProfile } from "../seam/device.js";
import { DEFAULT_CPU_COSTS } from "./cpu-costs.js";
import { filePatternOrder } from "./file-reader-participant.js";

/** 16 MiB: 2048 blocks of 8 kB. */
const NBLOCKS = 2048;
const READ_AHEAD_KB = 128;

type FileIn = NonNullable<ScenarioInput["queries"][number]["file"]>;

function fileScenario(
  file: FileIn,
  machine: Partial<ScenarioInput["machine"]> = {},
  os: ScenarioInput["machine"]["os"] = "linux-5.4",
): ScenarioInput {
  return {
    name: `file ${file.pattern} d=${file.adviseDistance ?? 0}`,
    machine: {
      cores: 2,
      ram: "4GB",
      os,
      // 1 MiB requests at most: a 128 kB window is one request.
      osOptions: { readAheadKb: READ_AHEAD_KB, maxSectorsKb: 1024 },
      device: "samsung-990-pro-1tb",
      cpu: { jitter: 0 },
      ...machine,
    },
    tables: [{ name: "f", blocks: NBLOCKS, segmentBlocks: NBLOCKS, tuplesPerPage: 1 }],
    queries: [{ name: "read", table: "f", kind: "file", file }],
  };
}

const run = (s: ScenarioInput) => runSpied(s);

/** KiB of the windows of one forward reader from block 0 (linux-readahead-window.md#sizing-functions): init(2) then next() until ra_pages. */
function rampKb(raPages: number): number[] {
  const out: number[] = [];
  let size = 4; // init(req = 2 pages, max) = 4 pages while 2 <= max / 32
  while (size < raPages) {
    out.push(size * 4);
    size = size < raPages / 16 ? 4 * size : size <= raPages / 2 ? 2 * size : raPages;
  }
  return out;
}

describe("plain-file reader, forward, no advice", () => {
  it("reads through the readahead ramp, then read_ahead_kb windows, with no advice calls", () => {
    const { r, log } = run(fileScenario({ pattern: "forward" }));
    const ramp = rampKb(READ_AHEAD_KB / 4); // 16, 32, 64 KiB
    const rampTotal = ramp.reduce((a, b) => a + b, 0);
    const fileKb = (NBLOCKS * 8192) / 1024;
    const expectedReads = ramp.length + Math.ceil((fileKb - rampTotal) / READ_AHEAD_KB);
    expect(r.device.bytes).toBe(NBLOCKS * 8192);
    expect(r.device.reads).toBe(expectedReads);
    expect(log.adviceCalls).toBe(0);
    expect(r.queries[0]!.runs[0]!.adviceCalls).toBe(0);
    // The reader asked the OS for every block once, in order.
    expect(log.readBlocks).toEqual([...Array(NBLOCKS).keys()]);
    // Only the first window is waited for; the rest is asynchronous readahead.
    expect(r.device.syncShare).toBeCloseTo(1 / expectedReads, 10);
  });
});

describe("plain-file reader, forward, advising ahead", () => {
  for (const d of [1, 8]) {
    it(`d=${d}: one 8 kB device read per block, none synchronous (no readahead), one advice call per block`, () => {
      const { r, log } = run(fileScenario({ pattern: "forward", adviseDistance: d }));
      expect(r.device.reads).toBe(NBLOCKS);
      expect(r.device.avgReadKb).toBe(8);
      // Every read found its block advised (present or in flight): the sync path never ran.
      expect(r.device.syncShare).toBe(0);
      // The first d blocks before the first read, then block i + d before read i.
      expect(log.adviceCalls).toBe(NBLOCKS);
      expect(log.advisedBlocks).toEqual([...Array(NBLOCKS).keys()]);
      expect(r.queries[0]!.runs[0]!.adviceCalls).toBe(NBLOCKS);
    });
  }

  it("advising 1 ahead takes longer than not advising (the readahead lost, the calls paid)", () => {
    const plain = run(fileScenario({ pattern: "forward" })).r;
    const advised = run(fileScenario({ pattern: "forward", adviseDistance: 1 })).r;
    expect(advised.queries[0]!.meanDurationS).toBeGreaterThan(plain.queries[0]!.meanDurationS);
  });

  it("the same holds on the >= 6.10 rules", () => {
    const plain = run(fileScenario({ pattern: "forward" }, {}, "linux-6.10")).r;
    const advised = run(fileScenario({ pattern: "forward", adviseDistance: 1 }, {}, "linux-6.10")).r;
    expect(plain.device.avgReadKb).toBeGreaterThan(8 * 4);
    expect(advised.device.reads).toBe(NBLOCKS);
    expect(advised.device.syncShare).toBe(0);
  });

  it("each advice call costs the scenario's fadviseUs", () => {
    const cheap = run(
      fileScenario({ pattern: "forward", adviseDistance: 8 }, { cpu: { jitter: 0, fadviseUs: 0 } }),
    ).r;
    const dear = run(
      fileScenario({ pattern: "forward", adviseDistance: 8 }, { cpu: { jitter: 0, fadviseUs: 50 } }),
    ).r;
    // 2048 calls at 50 us are 0.1 s of CPU on a reader that is otherwise device-bound or nearly.
    expect(dear.queries[0]!.meanDurationS - cheap.queries[0]!.meanDurationS).toBeGreaterThan(
      (NBLOCKS * 50) / 1e6 / 2,
    );
  });
});

describe("plain-file reader, backward and random", () => {
  it("backward without advice: every block a miss with no history, read alone", () => {
    const { r, log } = run(fileScenario({ pattern: "backward" }));
    expect(log.readBlocks).toEqual([...Array(NBLOCKS).keys()].reverse());
    expect(r.device.reads).toBe(NBLOCKS);
    expect(r.device.avgReadKb).toBe(8);
    expect(r.device.syncShare).toBe(1);
  });

  it("random: the seeded permutation, each block read once, the same for the same seed", () => {
    const a = run(fileScenario({ pattern: "random", seed: 7 }));
    const b = run(fileScenario({ pattern: "random", seed: 7 }));
    expect([...a.log.readBlocks].sort((x, y) => x - y)).toEqual([...Array(NBLOCKS).keys()]);
    expect(a.log.readBlocks).toEqual(b.log.readBlocks);
    expect(a.log.readBlocks).toEqual([...filePatternOrder("random", NBLOCKS, 7)]);
    expect([...filePatternOrder("random", NBLOCKS, 8)]).not.toEqual(a.log.readBlocks);
  });
});

describe("the advice call's CPU cost", () => {
  it("the scenario's fadviseUs, else a calibrated profile's read-syscall cost, else the default", () => {
    expect(fileAdviceCallUs("samsung-990-pro-1tb", undefined, DEFAULT_CPU_COSTS.fadviseUs)).toBe(
      DEFAULT_CPU_COSTS.fadviseUs,
    );
    const calibrated = {
      ...(resolveDeviceProfile("samsung-990-pro-1tb") as unknown as Record<string, unknown>),
      cpu: { readSyscallUs: 0.42, copyBytesPerUs: 9000, measuredWith: "a test profile" },
    };
    expect(fileAdviceCallUs(calibrated, undefined, DEFAULT_CPU_COSTS.fadviseUs)).toBe(0.42);
    expect(fileAdviceCallUs(calibrated, { fadviseUs: 3 }, DEFAULT_CPU_COSTS.fadviseUs)).toBe(3);
  });
});

describe("file queries in the scenario", () => {
  const base = fileScenario({ pattern: "forward", adviseDistance: 1 });
  const problems = (s: ScenarioInput) => {
    try {
      resolveScenario(s);
      return [];
    } catch (e) {
      expect(e).toBeInstanceOf(ScenarioError);
      return (e as ScenarioError).problems.map((p) => p.field);
    }
  };

  it("needs a reader, one process, and a distance inside the file", () => {
    const q = base.queries[0]!;
    expect(problems({ ...base, queries: [{ ...q, file: undefined }] })).toEqual(["queries.0.file"]);
    expect(problems({ ...base, queries: [{ ...q, workers: 2 }] })).toEqual(["queries.0.workers"]);
    expect(
      problems({ ...base, queries: [{ ...q, file: { pattern: "forward", adviseDistance: NBLOCKS } }] }),
    ).toEqual(["queries.0.file.adviseDistance"]);
    expect(problems({ ...base, queries: [{ ...q, kind: "seqscan" }] })).toEqual(["queries.0.file"]);
  });

  it("runs with the real models as any query does", () => {
    const r = simulateWith(resolveScenario(base), realModels);
    expect(r.queries[0]!.runs[0]!.finished).toBe(true);
    expect(r.queries[0]!.runs[0]!.blocks).toBe(NBLOCKS);
  });
});
