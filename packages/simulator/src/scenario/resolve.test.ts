/**
 * How a scenario as written resolves into the numbers the engine runs on:
 * units, defaults, the machine's NBuffers and readahead, the per-version
 * PostgreSQL parameters, and the errors a user gets for a bad file. Each
 * number is worked out by hand next to the check.
 */
import { createDeviceModel, getBuiltinProfile, raid0Of } from "@scanlab/device-profiles";
import { describe, expect, it } from "vitest";
import { type MachineIn, type QueryIn, testScenario } from "../../test/scenario-builder.js";
import { type SimulateOptions, simulateWith } from "../engine/loop/simulate.js";
import { defaultEic } from "../engine/pg/participants.js";
import { defaultAllocator, realModels } from "../engine/seam/adapters.js";
import { ScenarioError } from "../errors.js";
import { PG_VERSIONS } from "./pg-model.js";
import { resolveScenario } from "./resolve.js";
import { OS_NAMES, type ScenarioInput } from "./schema.js";

const scenario = (over: Parameters<typeof testScenario>[0] = {}) =>
  testScenario({ name: "resolve", ...over });

function run(s: ScenarioInput, options: SimulateOptions = {}) {
  return simulateWith(resolveScenario(s), realModels, options);
}

/** The resolved scenario's error, or a failure if it resolved. */
function errorOf(input: unknown, source?: string): ScenarioError {
  try {
    resolveScenario(input, source);
  } catch (e) {
    expect(e).toBeInstanceOf(ScenarioError);
    return e as ScenarioError;
  }
  return expect.unreachable("the scenario resolved");
}

describe("sizes and units", () => {
  it("sizes are binary multiples: 1GB is 2^30 bytes, 131,072 blocks of 8 kB", () => {
    const r = resolveScenario(scenario({ table: { blocks: undefined, size: "1GB" } }));
    expect(r.tables[0]!.nblocks).toBe(131_072);
  });

  it("a size in bytes rounds up to whole blocks: 8193 bytes is 2 blocks, 8192 is 1", () => {
    expect(resolveScenario(scenario({ table: { blocks: undefined, size: 8193 } })).tables[0]!.nblocks).toBe(
      2,
    );
    expect(resolveScenario(scenario({ table: { blocks: undefined, size: 8192 } })).tables[0]!.nblocks).toBe(
      1,
    );
  });

  it("decimal quantities and unit spellings: 1.5MB = 192 blocks, 0.5GiB = 65,536, '64 kb' = 8", () => {
    const nblocks = (size: string) =>
      resolveScenario(scenario({ table: { blocks: undefined, size } })).tables[0]!.nblocks;
    expect(nblocks("1.5MB")).toBe(192); // 1.5 x 2^20 / 8192
    expect(nblocks("0.5GiB")).toBe(65_536); // 2^29 / 2^13
    expect(nblocks(" 64 kb ")).toBe(8); // case and spaces do not matter
  });

  it("blocks are taken as given", () => {
    expect(resolveScenario(scenario({ table: { blocks: 12_345 } })).tables[0]!.nblocks).toBe(12_345);
  });

  it("ram and shared_buffers in bytes; NBuffers = shared_buffers / 8 kB, rounded down", () => {
    const r = resolveScenario(scenario({ machine: { ram: "16GB", sharedBuffers: "1GB" } }));
    expect(r.ramBytes).toBe(16 * 2 ** 30);
    expect(r.sharedBuffersBytes).toBe(2 ** 30);
    expect(r.nbuffers).toBe(131_072);
    // 1,000,000 bytes = 122.07 buffers: a partial buffer does not count.
    expect(resolveScenario(scenario({ machine: { sharedBuffers: 1_000_000 } })).nbuffers).toBe(122);
    // The smallest allowed pool: 128 kB = 16 buffers.
    expect(resolveScenario(scenario({ machine: { sharedBuffers: "128kB" } })).nbuffers).toBe(16);
  });

  it("durations become microseconds; a bare number is seconds", () => {
    const r = resolveScenario({
      ...scenario({ query: { start: "250ms", clientStagger: 2, duration: "1.5min" } }),
      until: "3h",
      sampleEvery: "100us",
    });
    const q = r.queries[0]!;
    expect(q.startUs).toBe(250_000);
    expect(q.clientStaggerUs).toBe(2_000_000);
    expect(q.durationUs).toBe(90_000_000);
    expect(r.untilUs).toBe(3 * 3600 * 1e6);
    expect(r.sampleEveryUs).toBe(100);
  });

  it("'m' is a minute for a duration and a mebibyte for a size", () => {
    const r = resolveScenario({
      ...scenario({ table: { blocks: undefined, size: "1m" } }),
      until: "1m",
    });
    expect(r.tables[0]!.nblocks).toBe(128); // 2^20 / 8192
    expect(r.untilUs).toBe(60e6);
  });

  it("queries find their table by name", () => {
    const s = scenario();
    s.tables = [
      { name: "a", blocks: 10, tuplesPerPage: 1 },
      { name: "b", blocks: 20, tuplesPerPage: 1 },
    ];
    s.queries = [
      { name: "qb", table: "b" },
      { name: "qa", table: "a" },
    ];
    const r = resolveScenario(s);
    expect(r.queries.map((q) => r.tables[q.tableIndex]!.name)).toEqual(["b", "a"]);
  });
});

describe("defaults", () => {
  it("fills every default the documentation promises", () => {
    const r = resolveScenario({
      name: "bare",
      machine: { cores: 2, ram: "2GB", os: "none", device: "hdd-7200rpm" },
      tables: [{ name: "t", blocks: 100, tuplesPerPage: 10 }],
      queries: [{ name: "q", table: "t" }],
    });
    const s = r.scenario;
    expect(s.seed).toBe(1);
    expect(s.machine.sharedBuffers).toBe("128MB");
    expect(r.nbuffers).toBe(16_384);
    expect(s.machine.maxConnections).toBe(100);
    expect(s.machine.osOptions).toEqual({});
    expect(s.machine.cpu).toEqual({});
    expect(r.tables[0]).toEqual({
      name: "t",
      nblocks: 100,
      tuplesPerPage: 10,
      segmentBlocks: 131_072, // RELSEG_SIZE: 1 GB of 8 kB blocks
      temp: false,
      cached: "none",
      indexRelation: null, // no indexBlocks: the bitmap index scan's reads are not modelled
    });
    const q = s.queries[0]!;
    expect(q).toMatchObject({
      kind: "seqscan",
      start: 0,
      clients: 1,
      runs: 1,
      clientStagger: 0,
      pg: "14",
      workers: 0,
      parallelLeaderParticipation: true,
      synchronizeSeqscans: true,
    });
    // Left for the engine to choose by version.
    expect(q.allocator).toBeUndefined();
    expect(q.effectiveIoConcurrency).toBeUndefined();
    expect(q.ioCombineLimit).toBeUndefined();
    expect(q.ioMethod).toBeUndefined();
    expect(r.queries[0]).toMatchObject({ startUs: 0, durationUs: null, clientStaggerUs: 0 });
    expect(r.untilUs).toBeNull();
    expect(r.sampleEveryUs).toBeNull();
  });

  it("the default seed is the seed the run reports", () => {
    expect(run(scenario({ table: { blocks: 100 } })).seed).toBe(1);
    expect(run({ ...scenario({ table: { blocks: 100 } }), seed: 42 }).seed).toBe(42);
  });
});

describe("machine: readahead default from the device", () => {
  const RAID = "raid0-6x-intel-s3600-100gb";

  it("the built-in RAID0: io_opt = 512 KiB chunk x 6 members = 3 MiB, so read_ahead_kb = max(2 x 3072, 128) = 6144", () => {
    const profile = getBuiltinProfile(RAID);
    expect(profile.kind).toBe("raid0");
    if (profile.kind !== "raid0") return;
    const handKb = Math.max((2 * profile.chunkBytes * profile.memberCount) / 1024, 128);
    expect(handKb).toBe(6144);
    expect(createDeviceModel(profile).readAheadKbDefault).toBe(handKb);
  });

  it("a small-stripe RAID0 keeps the 128 kB floor: 2 x 16 KiB chunks give 2 x 32 = 64 < 128", () => {
    const small = raid0Of(getBuiltinProfile("intel-dc-s3610-100gb"), 2, { chunkBytes: 16 * 1024 });
    expect(createDeviceModel(small).readAheadKbDefault).toBe(128);
  });

  // The Linux OS model is built with read_ahead_kb = the scenario's, else the device's;
  // the adaptive bitmap policy is told that window in 8 kB blocks.
  const readaheadBlocks = (machine: Partial<MachineIn>) =>
    realModels.buildOs(resolveScenario(scenario({ machine }))).adaptive().readaheadBlocks;

  it("Linux on the RAID0 reads ahead 6144 kB = 768 blocks; on a single SSD 128 kB = 16 blocks", () => {
    expect(readaheadBlocks({ device: RAID })).toBe(768);
    expect(readaheadBlocks({ device: "intel-ssd-320-120gb" })).toBe(16);
    expect(readaheadBlocks({ device: RAID, os: "linux-6.10" })).toBe(768);
  });

  it("an inline RAID0 profile gets its own default (the 128 kB floor here)", () => {
    const small = raid0Of(getBuiltinProfile("intel-dc-s3610-100gb"), 2, { chunkBytes: 16 * 1024 });
    expect(readaheadBlocks({ device: small as unknown as Record<string, unknown> })).toBe(16);
  });

  it("osOptions.readAheadKb overrides the device's default", () => {
    expect(readaheadBlocks({ device: RAID, osOptions: { readAheadKb: 512 } })).toBe(64);
  });

  it("the window shows in the device reads: the RAID0 default reads whole 512 kB chunks, read_ahead_kb 128 does not", () => {
    const big = run(scenario({ machine: { device: RAID } }));
    const capped = run(scenario({ machine: { device: RAID, osOptions: { readAheadKb: 128 } } }));
    // max_sectors_kb defaults to the device's largest I/O, one 512 KiB chunk.
    expect(big.device.avgReadKb).toBeGreaterThan(480);
    expect(big.device.avgReadKb).toBeLessThanOrEqual(512);
    expect(capped.device.avgReadKb).toBeGreaterThan(120);
    expect(capped.device.avgReadKb).toBeLessThanOrEqual(128);
    expect(big.queries[0]!.meanDurationS).toBeLessThan(capped.queries[0]!.meanDurationS);
  });
});

describe("PostgreSQL version parameters", () => {
  it("the versions the simulator knows", () => {
    expect([...PG_VERSIONS]).toEqual(["9.6", "10", "11", "12", "13", "14", "15", "16", "17", "18", "19"]);
  });

  it("default allocator: pg96 for 9.6 and 10, pg11 for 11-13, pg14 from 14 on", () => {
    expect(PG_VERSIONS.map((v) => defaultAllocator(v).kind)).toEqual([
      "pg96",
      "pg96",
      "pg11",
      "pg11",
      "pg11",
      "pg14",
      "pg14",
      "pg14",
      "pg14",
      "pg14",
      "pg14",
    ]);
  });

  it("default effective_io_concurrency: 1 up to 17, 16 from 18", () => {
    expect(PG_VERSIONS.map((v) => defaultEic(v))).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 16, 16]);
  });

  // A parallel scan of 20,000 cached blocks by three processes. The shared line
  // reports one op per allocation and how long it was held: a spinlock holds
  // it 0.25 us, an atomic fetch-add 0.1 us (DEFAULT_CPU_COSTS).
  const parallel = (pg: QueryIn["pg"], allocator?: QueryIn["allocator"]) =>
    run(
      scenario({
        table: { cached: "os" },
        query: { pg, workers: 2, ...(allocator ? { allocator } : {}) },
      }),
    );

  it("9.6: one block per spinlock acquisition (20,000 ops of 0.25 us)", () => {
    const r = parallel("9.6");
    expect(r.allocator.ops).toBe(20_000);
    expect(r.allocator.busyS).toBeCloseTo(20_000 * 0.25e-6, 12);
    expect(r.queries[0]!.runs[0]!.claims).toBe(20_000);
  });

  for (const pg of ["11", "13"] as const) {
    it(`${pg}: one block per atomic fetch-add (20,000 ops of 0.1 us)`, () => {
      const r = parallel(pg);
      expect(r.allocator.ops).toBe(20_000);
      expect(r.allocator.busyS).toBeCloseTo(20_000 * 0.1e-6, 12);
    });
  }

  for (const pg of ["14", "17", "18"] as const) {
    it(`${pg}: chunks (20,000 / 2048 -> 16-block chunks, ramping down at the end), one atomic each`, () => {
      const r = parallel(pg);
      const ops = r.allocator.ops;
      // At least the chunks of 16, at most that plus the ramp-down's smaller chunks.
      expect(ops).toBeGreaterThanOrEqual(20_000 / 16);
      expect(ops).toBeLessThan(20_000 / 8);
      expect(r.allocator.busyS).toBeCloseTo(ops * 0.1e-6, 12);
      expect(r.queries[0]!.runs[0]!.claims).toBe(ops);
    });
  }

  it("an allocator in the scenario overrides the version's", () => {
    expect(parallel("14", { kind: "pg11" }).allocator.ops).toBe(20_000);
    expect(parallel("9.6", { kind: "batch", blocksPerClaim: 10 }).allocator.ops).toBe(2_000);
  });

  // BAS_BULKREAD ring, observed from the run after a full scan (sync off, so it
  // starts at block 0 again): only the blocks the ring still holds, the last
  // `ring` blocks of the table, are found in shared buffers.
  // NBuffers 16,384; up to 17 the ring is 32 buffers (256 kB); PG18 wants
  // 32 + io_combine_limit 16 x eic 16 = 288 but is capped by the pin limit
  // 16384 / (100 connections + 74 auxiliary) = 94 (apps/docs/src/reference/buffer-ring.md#ring-size-with-pg18-defaults).
  const twoRuns = (pg: QueryIn["pg"]) =>
    run(scenario({ table: { cached: "os" }, query: { pg, runs: 2, synchronizeSeqscans: false } }));

  it("ring 32 up to PG14: the second scan hits exactly 32 blocks", () => {
    for (const pg of ["9.6", "14"] as const) {
      const r = twoRuns(pg);
      expect(r.queries[0]!.runs[1]!.sharedHits).toBe(32);
      expect(r.sharedBuffers.misses).toBe(40_000 - 32);
    }
  });

  it("ring 32 in PG17, 94 in PG18: blocks read into shared buffers over two scans", () => {
    // Counted as misses (blocks read in): read-stream scans do not report their hits (see
    // engine/pg/read-stream-participant.test.ts), but a block found resident is not read again.
    expect(twoRuns("17").sharedBuffers.misses).toBe(40_000 - 32);
    expect(twoRuns("18").sharedBuffers.misses).toBe(40_000 - 94);
  });

  it("PG18's ring grows with shared_buffers until 288 = 32 + 16 x 16: 1 GB gives a pin limit of 753", () => {
    // NBuffers 131,072 / 174 = 753 > 288, so the ring is 288; capped at NBuffers / 8 = 16,384 (not binding).
    const r = run(
      scenario({
        machine: { sharedBuffers: "1GB" },
        table: { blocks: 40_000, cached: "os" },
        query: { pg: "18", runs: 2, synchronizeSeqscans: false },
      }),
    );
    expect(r.sharedBuffers.misses).toBe(80_000 - 288);
  });
});

describe("NBuffers / 4: ring and syncscan eligibility", () => {
  // shared_buffers 128 MB: NBuffers 16,384, so tables over 4,096 blocks use the ring.
  const secondRunHits = (blocks: number, temp = false) =>
    run(
      scenario({
        table: { blocks, cached: "os", temp },
        query: { runs: 2, synchronizeSeqscans: false },
      }),
    ).queries[0]!.runs[1]!.sharedHits;

  it("4,096 blocks (= NBuffers / 4) use normal replacement: the second scan finds them all", () => {
    expect(secondRunHits(4096)).toBe(4096);
  });

  it("4,097 blocks go through the 32-buffer ring: the second scan finds only the ring", () => {
    expect(secondRunHits(4097)).toBe(32);
  });

  it("a temporary table never uses the ring, whatever its size", () => {
    expect(secondRunHits(4097, true)).toBe(4097);
  });

  // Syncscan: a second query started while the first runs joins it only when the
  // table is larger than NBuffers / 4 (and not temporary).
  const joinerStart = (blocks: number, temp = false) => {
    const s = scenario({ table: { blocks, temp } });
    s.queries = [
      { name: "first", table: "t" },
      { name: "joiner", table: "t", start: "40ms" },
    ];
    return run(s).queries[1]!.runs[0]!.startBlock;
  };

  it("4,097 blocks: the joiner starts where the first scan is", () => {
    expect(joinerStart(4097)).toBeGreaterThan(0);
  });

  it("4,096 blocks, or a temporary table: the joiner starts at block 0", () => {
    expect(joinerStart(4096)).toBe(0);
    expect(joinerStart(4097, true)).toBe(0);
  });
});

describe("operating systems", () => {
  it("the OS names", () => {
    expect([...OS_NAMES]).toEqual(["linux-5.4", "linux-6.10", "freebsd-12", "freebsd-13", "windows", "none"]);
  });

  // One cold serial scan of 20,000 blocks on the Intel 320, per OS.
  const cold = (os: MachineIn["os"]) => run(scenario({ machine: { os } }));

  it("none (direct I/O): every block is its own 8 kB device read", () => {
    const r = cold("none");
    expect(r.device.reads).toBe(20_000);
    expect(r.device.avgReadKb).toBe(8);
    expect(r.os.confidence).toBe("high");
  });

  it("Linux 5.4 and 6.10: 128 kB readahead windows; 6.10's model is the high-confidence one", () => {
    const old = cold("linux-5.4");
    const cur = cold("linux-6.10");
    for (const r of [old, cur]) {
      expect(r.device.avgReadKb).toBeGreaterThan(120);
      expect(r.device.avgReadKb).toBeLessThanOrEqual(128);
    }
    expect(old.os.confidence).toBe("medium");
    expect(cur.os.confidence).toBe("high");
  });

  it("FreeBSD: clusters up to MAXPHYS, 128 kB up to 12 and 1 MB from 13", () => {
    const f12 = cold("freebsd-12");
    const f13 = cold("freebsd-13");
    expect(f12.device.avgReadKb).toBeLessThanOrEqual(128);
    expect(f12.device.avgReadKb).toBeGreaterThan(120);
    expect(f13.device.avgReadKb).toBeGreaterThan(256);
    expect(f13.device.avgReadKb).toBeLessThanOrEqual(1024);
  });

  it("Windows: 64 kB read-ahead granularity, and the result says the model is low-confidence", () => {
    const r = cold("windows");
    expect(r.device.avgReadKb).toBeLessThanOrEqual(64);
    expect(r.device.avgReadKb).toBeGreaterThan(32);
    expect(r.os.confidence).toBe("low");
  });

  it("every OS reads the whole cold table at least once", () => {
    for (const os of OS_NAMES) expect(cold(os).device.bytes).toBeGreaterThanOrEqual(20_000 * 8192);
  });
});

describe("bad scenarios name the field", () => {
  /** A valid scenario as plain, editable data. */
  type Editable = {
    machine: Record<string, unknown>;
    tables: Record<string, unknown>[];
    queries: Record<string, unknown>[];
  } & Record<string, unknown>;
  const ok = () => scenario() as unknown as Editable;

  it("a missing field, with the file it came from", () => {
    const s = ok();
    delete s.machine.ram;
    const e = errorOf(s, "lab.json");
    expect(e.field).toBe("machine.ram");
    expect(e.code).toBe("SCENARIO_INVALID");
    expect(e.userError).toBe(true);
    expect(e.message).toMatch(/^lab\.json: field "machine\.ram": /);
  });

  it("the pgbench bitmap on a table that is not pgbench_accounts at scale 3000 (checked before anything runs)", () => {
    // 300 M rows (scale 3000 x 100 000) at 61 rows per page: ceil(300e6 / 61) = 4 918 033 blocks.
    const s = ok();
    s.queries[0] = { name: "q", table: "t", kind: "bitmap", pg: "13", bitmap: { pgbench: "bitmap-2022" } };
    const e = errorOf(s, "lab.json");
    expect(e.field).toBe("queries.0.bitmap");
    expect(e.message).toBe(
      'lab.json: field "queries.0.bitmap": the pgbench bitmap needs pgbench_accounts at scale 3000 (4918033 blocks), not table "t" of 20000 blocks.',
    );
    s.tables[0]!.blocks = 4_918_033;
    expect(() => resolveScenario(s as unknown as ScenarioInput)).not.toThrow();
  });

  it('the pgbench bitmap by its deprecated name "seed004" resolves like "bitmap-2022"; other names are refused', () => {
    const renamed = ok();
    renamed.tables[0]!.blocks = 4_918_033;
    renamed.queries[0] = {
      name: "q",
      table: "t",
      kind: "bitmap",
      pg: "13",
      bitmap: { pgbench: "bitmap-2022" },
    };
    const old = ok();
    old.tables[0]!.blocks = 4_918_033;
    old.queries[0] = { name: "q", table: "t", kind: "bitmap", pg: "13", bitmap: { pgbench: "seed004" } };
    const a = resolveScenario(renamed as unknown as ScenarioInput);
    const b = resolveScenario(old as unknown as ScenarioInput);
    // Everything resolves alike; only the name as written differs (the engine looks for a pgbench bitmap, not its name).
    expect(JSON.stringify(b).replaceAll('"seed004"', '"bitmap-2022"')).toBe(JSON.stringify(a));
    expect(JSON.stringify(b)).toContain('"seed004"');
    const wrong = ok();
    wrong.tables[0]!.blocks = 4_918_033;
    wrong.queries[0] = { name: "q", table: "t", kind: "bitmap", pg: "13", bitmap: { pgbench: "seed005" } };
    expect(errorOf(wrong, "lab.json").field).toMatch(/^queries\.0\.bitmap/);
  });

  it("two queries with one name (results are keyed by it)", () => {
    const q = ok();
    q.queries.push({ name: "q", table: "t" });
    const e = errorOf(q, "lab.json");
    expect(e.field).toBe("queries.1.name");
    expect(e.message).toBe('lab.json: field "queries.1.name": query "q" is defined twice.');
  });

  it("a query duration of 0 (pgbench -T 0 runs nothing)", () => {
    const s = ok();
    s.queries[0]!.duration = "0s";
    const e = errorOf(s);
    expect(e.field).toBe("queries.0.duration");
    expect(e.message).toContain("a duration of 0 runs nothing");
    s.queries[0]!.duration = "1ms";
    expect(() => resolveScenario(s as unknown as ScenarioInput)).not.toThrow();
  });

  it("a seed outside 0 to 2^31 - 1 (the generators take 32 bits; the CLI's --seed range)", () => {
    for (const seed of [-5, 2 ** 31, 1.5]) {
      const s = ok();
      s.seed = seed;
      expect(errorOf(s).field).toBe("seed");
    }
    const s = ok();
    s.seed = 2 ** 31 - 1;
    expect(() => resolveScenario(s as unknown as ScenarioInput)).not.toThrow();
  });

  it("not an object at all: the top level", () => {
    expect(errorOf(null).field).toBe("(top level)");
  });

  it("an unknown OS lists the known ones", () => {
    const s = ok();
    s.machine.os = "linux";
    const e = errorOf(s);
    expect(e.field).toBe("machine.os");
    expect(e.message).toContain("linux-6.10");
  });

  it("an unknown key is rejected where it appears", () => {
    const s = ok();
    s.machine.disk = "sda";
    const e = errorOf(s);
    expect(e.field).toBe("machine.disk");
    expect(e.message).toContain('"machine.disk"');
  });

  it("a table needs exactly one of size and blocks", () => {
    const both = ok();
    both.tables[0]!.size = "1GB";
    expect(errorOf(both).field).toBe("tables.0");
    const neither = ok();
    delete neither.tables[0]!.blocks;
    expect(errorOf(neither).message).toContain("exactly one of size and blocks");
  });

  it("a table defined twice", () => {
    const s = ok();
    s.tables.push({ name: "t", blocks: 1, tuplesPerPage: 1 });
    expect(errorOf(s).field).toBe("tables.1.name");
  });

  it("an unknown PostgreSQL version, out-of-range settings", () => {
    const cases: [(s: Editable) => void, string][] = [
      [(s) => (s.queries[0]!.pg = "20"), "queries.0.pg"],
      [(s) => (s.queries[0]!.effectiveIoConcurrency = 1001), "queries.0.effectiveIoConcurrency"],
      [(s) => (s.queries[0]!.ioCombineLimit = 0), "queries.0.ioCombineLimit"],
      [(s) => (s.queries[0]!.workers = 1.5), "queries.0.workers"],
      [(s) => (s.machine.cpu = { jitter: 0.95 }), "machine.cpu.jitter"],
      [(s) => (s.tables[0]!.blocks = 2 ** 32), "tables.0.blocks"],
      [(s) => (s.tables = []), "tables"],
    ];
    for (const [edit, field] of cases) {
      const s = ok();
      edit(s);
      expect(errorOf(s).field).toBe(field);
    }
  });

  it("a bitmap query without a bitmap", () => {
    const s = ok();
    s.queries[0]!.kind = "bitmap";
    expect(errorOf(s).field).toBe("queries.0.bitmap");
  });

  it("a bad size or duration says what one looks like", () => {
    const size = ok();
    delete size.tables[0]!.blocks;
    size.tables[0]!.size = "12 parsecs";
    const e1 = errorOf(size, "lab.json");
    expect(e1).toMatchObject({ field: "tables.0.size", code: "SCENARIO_BAD_SIZE" });
    expect(e1.message).toContain("not a size");
    expect(e1.message).toMatch(/^lab\.json: field "tables\.0\.size": "12 parsecs" is not a size/);
    const start = ok();
    start.queries[0]!.start = "soon";
    const e2 = errorOf(start);
    expect(e2).toMatchObject({ field: "queries.0.start", code: "SCENARIO_BAD_DURATION" });
    expect(e2.message).toContain("not a duration");
  });

  it("a table over 2^32 - 2 blocks", () => {
    const s = ok();
    delete s.tables[0]!.blocks;
    s.tables[0]!.size = "33TB";
    expect(errorOf(s).field).toBe("tables.0.size");
  });

  it("shared_buffers below 128 kB, or not below RAM", () => {
    const tiny = ok();
    tiny.machine.sharedBuffers = "64kB";
    expect(errorOf(tiny).message).toContain("must be from 131072 to 8796093014016 bytes (shared_buffers");
    const huge = ok();
    huge.machine.sharedBuffers = "4GB";
    const e = errorOf(huge);
    expect(e.field).toBe("machine.sharedBuffers");
    expect(e.message).toContain("smaller than machine.ram");
  });

  it("an unknown table lists the tables", () => {
    const s = ok();
    s.queries[0]!.table = "u";
    const e = errorOf(s);
    expect(e.field).toBe("queries.0.table");
    expect(e.message).toContain("(tables: t)");
  });
});
