/**
 * The scenario schema refuses what no PostgreSQL or machine has, unknown and
 * prototype keys at every depth, and wrong types, naming each path, all at
 * once; and every built-in experiment still validates.
 */
import { describe, expect, it } from "vitest";
import { ScenarioError } from "../errors.js";
import { resolveScenario } from "./resolve.js";

// Scenarios mutated into every wrong shape: typed loosely on purpose.
// biome-ignore lint/suspicious/noExplicitAny: a test builds invalid scenarios field by field
type Json = Record<string, any>;
const base = (): Json => ({
  name: "ok",
  machine: { cores: 4, ram: "8GB", os: "linux-5.4", device: "intel-ssd-320-120gb" },
  tables: [{ name: "t", size: "64MB", tuplesPerPage: 226 }],
  queries: [{ name: "q", table: "t" }],
});

function problemsOf(s: unknown): { field: string; message: string }[] {
  try {
    resolveScenario(s, "s.json");
  } catch (e) {
    if (!(e instanceof ScenarioError)) throw e;
    expect(e.message).not.toContain("\n");
    return [...e.problems];
  }
  throw new Error("the scenario was accepted");
}

/** [what, mutation, the field named, a fragment of its message] */
const refused: [string, (s: Json) => void, string, string][] = [
  ["a number as the name", (s) => (s.name = 5), "name", "must be a string, got 5"],
  ["a number as a table name", (s) => (s.tables[0].name = 5), "tables.0.name", "must be a string"],
  [
    "a table name longer than NAMEDATALEN - 1",
    (s) => (s.tables[0].name = "x".repeat(64)),
    "tables.0.name",
    "NAMEDATALEN",
  ],
  [
    "null as munro2020's maxChunkBlocks",
    (s) => (s.queries[0].allocator = { kind: "munro2020", maxChunkBlocks: null }),
    "queries.0.allocator.maxChunkBlocks",
    "got null",
  ],
  [
    "null as batch's blocksPerClaim",
    (s) => (s.queries[0].allocator = { kind: "batch", blocksPerClaim: null }),
    "queries.0.allocator.blocksPerClaim",
    "got null",
  ],
  [
    "a fraction of a microsecond as clientStagger",
    (s) => (s.queries[0].clientStagger = 1.5e-6),
    "queries.0.clientStagger",
    "whole number of microseconds",
  ],
  [
    "clientStagger 2^53 + 1 seconds",
    (s) => (s.queries[0].clientStagger = 2 ** 53 + 2),
    "queries.0.clientStagger",
    "at most 2^53 - 1 microseconds",
  ],
  [
    "tuplesPerPage 0.0001",
    (s) => (s.tables[0].tuplesPerPage = 0.0001),
    "tables.0.tuplesPerPage",
    "MaxHeapTuplesPerPage",
  ],
  ["tuplesPerPage 292", (s) => (s.tables[0].tuplesPerPage = 292), "tables.0.tuplesPerPage", "from 1 to 291"],
  ["tuplesPerPage 1e9", (s) => (s.tables[0].tuplesPerPage = 1e9), "tables.0.tuplesPerPage", "got 1000000000"],
  [
    "tuplesPerPage 226.5",
    (s) => (s.tables[0].tuplesPerPage = 226.5),
    "tables.0.tuplesPerPage",
    "whole number",
  ],
  ["1025 workers", (s) => (s.queries[0].workers = 1025), "queries.0.workers", "MAX_PARALLEL_WORKER_LIMIT"],
  ["1e6 cores", (s) => (s.machine.cores = 1e6), "machine.cores", "NR_CPUS"],
  [
    "readAheadKb 1e9 (more than RAM)",
    (s) => (s.machine.osOptions = { readAheadKb: 1e9 }),
    "machine.osOptions.readAheadKb",
    "more than machine.ram",
  ],
  [
    "readAheadKb 1e12",
    (s) => (s.machine.osOptions = { readAheadKb: 1e12 }),
    "machine.osOptions.readAheadKb",
    "file_ra_state",
  ],
  [
    "maxSectorsKb 1e12",
    (s) => (s.machine.osOptions = { maxSectorsKb: 1e12 }),
    "machine.osOptions.maxSectorsKb",
    "max_hw_sectors",
  ],
  [
    "maxSectorsKb 2 (below a page)",
    (s) => (s.machine.osOptions = { maxSectorsKb: 2 }),
    "machine.osOptions.maxSectorsKb",
    "from 4",
  ],
  [
    "cpu.perPageUs 1e300",
    (s) => (s.machine.cpu = { perPageUs: 1e300 }),
    "machine.cpu.perPageUs",
    "one second",
  ],
  [
    "cpu.copyBytesPerUs 1e-300",
    (s) => (s.machine.cpu = { copyBytesPerUs: 1e-300 }),
    "machine.cpu.copyBytesPerUs",
    "1 MB/s",
  ],
  ["maxConnections 1e9", (s) => (s.machine.maxConnections = 1e9), "machine.maxConnections", "MAX_BACKENDS"],
  [
    "a start time of 1e300 seconds",
    (s) => (s.queries[0].start = 1e300),
    "queries.0.start",
    "2^53 - 1 microseconds",
  ],
  ["sampleEvery 0", (s) => (s.sampleEvery = 0), "sampleEvery", "never advances"],
  ["until 0", (s) => (s.until = "0s"), "until", "runs nothing"],
  ["ram 2^53 + 1 bytes", (s) => (s.machine.ram = 2 ** 53 + 2), "machine.ram", "whole number of bytes"],
  [
    "ram of 9007199254740993 as text",
    (s) => (s.machine.ram = "9007199254740993"),
    "machine.ram",
    "too large",
  ],
  ["ram above 4 PiB", (s) => (s.machine.ram = "5000TB"), "machine.ram", "MAXPHYADDR"],
  ["a fractional size in bytes", (s) => (s.tables[0].size = 1.5), "tables.0.size", "whole number of bytes"],
  ["1e300 clients", (s) => (s.queries[0].clients = 1e300), "queries.0.clients", "MAX_BACKENDS"],
  [
    "a FreeBSD block size that is no power of two",
    (s) => {
      s.machine.os = "freebsd-13";
      s.machine.osOptions = { freebsd: { bsizeBytes: 12288 } };
    },
    "machine.osOptions.freebsd.bsizeBytes",
    "power of two",
  ],
  [
    "a bitmap seed of 1e300",
    (s) => {
      s.queries[0].kind = "bitmap";
      s.queries[0].bitmap = { dataset: "random", selectivity: 0.1, seed: 1e300 };
    },
    "queries.0.bitmap.seed",
    "32 bits",
  ],
  ["an inline device that is an array", (s) => (s.machine.device = []), "machine.device", "accepted forms"],
];

describe("values no PostgreSQL or machine has, and wrong types", () => {
  it.each(refused)("%s", (_what, mutate, field, fragment) => {
    const s = base();
    mutate(s);
    const problems = problemsOf(s);
    const hit = problems.find((p) => p.field === field);
    expect(hit, JSON.stringify(problems)).toBeDefined();
    expect(hit!.message).toContain(fragment);
  });
});

describe("unknown and prototype keys, at every depth", () => {
  const places: [string, (s: Json) => Json][] = [
    ["", (s) => s],
    ["machine", (s) => s.machine],
    ["machine.osOptions", (s) => (s.machine.osOptions = {})],
    ["machine.cpu", (s) => (s.machine.cpu = {})],
    ["tables.0", (s) => s.tables[0]],
    ["queries.0", (s) => s.queries[0]],
    ["queries.0.allocator", (s) => (s.queries[0].allocator = { kind: "pg14" })],
    [
      "queries.0.bitmap",
      (s) => {
        s.queries[0].kind = "bitmap";
        s.queries[0].bitmap = { dataset: "random", selectivity: 0.1 };
        return s.queries[0].bitmap;
      },
    ],
  ];
  const keys = ["__proto__", "constructor", "prototype", "extraField"];
  for (const [where, at] of places) {
    it.each(keys)(`${where || "top level"}: %s`, (key) => {
      // Through JSON.parse, as a file is read: "__proto__" becomes an own key.
      const s = base();
      const target = at(s);
      const text = JSON.stringify(s);
      const marker = JSON.stringify(target);
      const withKey = `{${JSON.stringify(key)}:{"x":1}${marker === "{}" ? "}" : `,${marker.slice(1)}`}`;
      const parsed = JSON.parse(text.replace(marker, withKey));
      const problems = problemsOf(parsed);
      expect(problems.map((p) => p.field)).toContain(where === "" ? key : `${where}.${key}`);
    });
  }

  it("an inline device profile keeps its own keys for the profile schema (no silent drop)", async () => {
    const { parseDeviceProfile, getBuiltinProfile } = await import("@scanlab/device-profiles");
    const profile = JSON.parse(
      `{"__proto__":{"x":1},${JSON.stringify(getBuiltinProfile("hdd-7200rpm")).slice(1)}`,
    );
    const s = base();
    s.machine.device = profile;
    const resolved = resolveScenario(s);
    const device = resolved.scenario.machine.device as Record<string, unknown>;
    expect(Object.hasOwn(device, "__proto__")).toBe(true);
    expect(() => parseDeviceProfile(device, "inline")).toThrow(/"__proto__"/);
  });
});

describe("every problem at once", () => {
  it("lists each bad field with its path in one line", () => {
    const s = base();
    s.name = 5;
    s.machine.cores = 1e6;
    s.tables[0].tuplesPerPage = 292;
    s.queries[0].workers = 1025;
    s.queries[0].extraField = true;
    const problems = problemsOf(s);
    expect(problems.map((p) => p.field).sort()).toEqual(
      ["machine.cores", "name", "queries.0.extraField", "queries.0.workers", "tables.0.tuplesPerPage"].sort(),
    );
    try {
      resolveScenario(s, "s.json");
    } catch (e) {
      expect((e as Error).message).toMatch(/^s\.json: 5 problems: field "/);
    }
  });

  it("reports problems between fields together too", () => {
    const s = base();
    s.machine.sharedBuffers = "16GB";
    s.tables.push({ name: "t", size: "1MB", tuplesPerPage: 1 });
    s.queries[0].table = "nope";
    expect(problemsOf(s).map((p) => p.field)).toEqual([
      "machine.sharedBuffers",
      "tables.1.name",
      "queries.0.table",
    ]);
  });
});

describe("what is valid stays valid", () => {
  it("the bounds themselves are accepted", () => {
    const s = base();
    s.machine.cores = 8192;
    s.machine.maxConnections = 262143;
    s.tables[0].tuplesPerPage = 291;
    s.queries[0].workers = 1024;
    s.queries[0].clientStagger = "1.1s";
    s.queries[0].allocator = { kind: "pg14", maxChunkBlocks: null };
    s.machine.osOptions = { readAheadKb: 8 * 1024 * 1024, maxSectorsKb: 4 };
    expect(() => resolveScenario(s)).not.toThrow();
  });
});
