/**
 * `trace import` on real strace logs of PostgreSQL 15 scans (recorded with
 * test/make-trace-fixtures.ts: a 20,000-block table, strace attached to the
 * postmaster with -f -y -e trace=pread64 -o) and on blkparse text.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { FIXTURES, runBin } from "./run-bin.js";

const dir = mkdtempSync(join(tmpdir(), "scanlab-trace-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const unzip = (name: string) => {
  const p = join(dir, name);
  writeFileSync(p, gunzipSync(readFileSync(join(FIXTURES, `${name}.gz`))));
  return p;
};
const relation = readFileSync(join(FIXTURES, "pg15-relation.txt"), "utf8").trim();
const TABLE_BLOCKS = 20_000;

interface Proc {
  pid: number;
  reads: number;
  runs: number;
  meanRunBytes: number;
  requestSizes: Record<string, number>;
}

async function importJson(args: string[]): Promise<{ processes: Proc[] }> {
  const r = await runBin(["trace", "import", ...args, "--json"]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout).result;
}

describe("trace import", () => {
  it("a serial scan is one process reading the table in one sequential run of 8 kB reads", async () => {
    const json = await importJson([unzip("pg15-serial.strace"), "--path", relation]);
    expect(json.processes).toHaveLength(1);
    const p = json.processes[0]!;
    expect(p.reads).toBe(TABLE_BLOCKS);
    expect(p.runs).toBe(1);
    expect(p.requestSizes).toEqual({ 8192: TABLE_BLOCKS });
  });

  it("a parallel scan with 2 workers: three processes share the blocks in PG14+ chunks", async () => {
    const json = await importJson([unzip("pg15-parallel-2.strace"), "--path", relation]);
    expect(json.processes).toHaveLength(3);
    expect(json.processes.reduce((a, p) => a + p.reads, 0)).toBe(TABLE_BLOCKS);
    // apps/docs/src/reference/parallel-block-allocation.md#smaller-relations / apps/docs/src/reference/experiments.md#t12-constants-the-simulator-encodes: chunk = next_pow2(20000 / 2048) = 16 blocks, ramping
    // down to 1 at the end; a process's runs are one or more adjacent chunks.
    for (const p of json.processes) {
      expect(p.meanRunBytes / 8192).toBeGreaterThan(4);
      expect(p.runs).toBeGreaterThan(10);
    }
  });

  it("prints a table per process with the run shape", async () => {
    // Wide enough for the shape to stay one line.
    const r = await runBin(["trace", "import", unzip("pg15-parallel-2.strace"), "--path", relation], {
      env: { COLUMNS: "250" },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/runs of ~\d+ blocks/);
  });

  it("blkparse: per-process queued reads and the device's issued requests", async () => {
    const r = await runBin(["trace", "import", join(FIXTURES, "blkparse-hand.txt"), "--json"]);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout).result;
    expect(json.format).toBe("blkparse");
    // Two postgres processes queued 2 reads each; the journal's write is not a read.
    expect(json.processes.map((p: Proc) => [p.pid, p.reads])).toEqual([
      [4185, 2],
      [4186, 2],
    ]);
    // D events: 256 + 256 + 16 sectors of 512 bytes in 3 requests.
    expect(json.device).toEqual({ requests: 3, bytes: 528 * 512, meanRequestBytes: (528 * 512) / 3 });
  });
});
