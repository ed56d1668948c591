/**
 * The harness itself: strace lines parse into events, reads map to blocks
 * across 1 GB segments (offline); and, live, a cluster starts as a non-root
 * user on a unix socket only, a traced serial scan of a cold table reads every
 * block once in order, and stop() leaves nothing behind.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { liveGate, parseStraceLine, relationReads, withCluster } from "./index.js";

describe("strace output and block mapping (offline)", () => {
  it("parses a pread64 line with a decoded path", () => {
    const e = parseStraceLine(
      4242,
      '1796023622.676724 pread64(5</tmp/x/data/base/5/16384.1>, ""..., 8192, 16384) = 8192',
    );
    expect(e).toEqual({
      pid: 4242,
      timeS: 1796023622.676724,
      syscall: "pread64",
      fd: 5,
      path: "/tmp/x/data/base/5/16384.1",
      rest: ['""...', "8192", "16384"],
      result: 8192,
    });
    expect(parseStraceLine(1, "+++ exited with 0 +++")).toBeNull();
  });

  it("maps segment .1 offset 16384 to block 131072 + 2, merges consecutive reads and ignores other files", () => {
    const file = { dataDir: "/d", relPath: "base/5/16384", blockBytes: 8192, segmentBlocks: 131072 };
    const ev = (pid: number, t: number, path: string, offset: number) => ({
      pid,
      timeS: t,
      syscall: "pread64",
      fd: 3,
      path,
      rest: ['""...', "8192", String(offset)],
      result: 8192,
    });
    const reads = relationReads(
      [
        ev(7, 1, "/d/base/5/16384", 131071 * 8192),
        ev(7, 2, "/d/base/5/16384.1", 0),
        ev(7, 3, "/d/base/5/16384.1", 8192),
        ev(7, 4, "/d/base/5/16384.1", 16384 * 2),
        ev(9, 0.5, "/d/base/5/1259", 0),
        ev(8, 5, "/d/base/5/16384", 0),
      ],
      file,
    );
    expect(reads).toEqual([
      {
        pid: 7,
        runs: [
          [131071, 3],
          [131076, 1],
        ],
        reads: 4,
        firstReadS: 1,
      },
      { pid: 8, runs: [[0, 1]], reads: 1, firstReadS: 5 },
    ]);
  });
});

const gate = liveGate({ strace: true });
if (!gate.available && !gate.required) console.warn(`pg-harness live test skipped: ${gate.reason}`);

describe.skipIf(!gate.available && !gate.required)("live cluster", () => {
  it("starts unprivileged on a socket only, traces a cold serial scan, and cleans up", async () => {
    if (!gate.available) throw new Error(`SCANLAB_REQUIRE_LIVE=1 but ${gate.reason}`);
    let dir = "";
    let pid = 0;
    await withCluster({ settings: { shared_buffers: "16MB" } }, async (pg) => {
      dir = pg.dir;
      pid = pg.postmasterPid();
      expect(await pg.psql("show listen_addresses")).toBe("");
      const uid = /Uid:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1];
      expect(Number(uid)).not.toBe(0);
      await pg.psql(
        "create table t (id int, pad text) with (fillfactor = 10);" +
          "insert into t select g, repeat('x', 500) from generate_series(1, 3000) g;" +
          "vacuum (freeze) t; checkpoint;",
      );
      expect(await pg.psql("select pg_relation_size('t') / 8192")).toBe("3000");
      await pg.restart();
      const { result, processes } = await (await import("./index.js")).traceRelationReads(pg, "t", () =>
        pg.psql("set max_parallel_workers_per_gather = 0; select count(*) from t;"),
      );
      expect(result).toBe("3000");
      expect(processes).toHaveLength(1);
      expect(processes[0]!.runs).toEqual([[0, 3000]]);
      pid = pg.postmasterPid();
    });
    expect(existsSync(dir), dir).toBe(false);
    expect(existsSync(`/proc/${pid}`), `postmaster ${pid}`).toBe(false);
  }, 120_000);
});
