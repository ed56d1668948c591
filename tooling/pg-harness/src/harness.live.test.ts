/**
 * The harness itself, live: a cluster starts as a non-root user on a unix
 * socket only, a traced serial scan of a cold table reads every block once in
 * order, and stop() leaves nothing behind.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { liveGate, withCluster } from "./index.js";

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
  }, 600_000);
});
