/**
 * Records the real traces `trace import` is tested on (run by hand with
 * `npx tsx test/make-trace-fixtures.ts`; the outputs are committed under
 * test/fixtures/): a throwaway PostgreSQL cluster (@scanlab/pg-harness),
 * strace attached to the postmaster exactly as the README tells users to
 * (`strace -f -y -e trace=pread64 -o FILE -p PID`: one file, pid prefixes,
 * unfinished/resumed pairs), and two cold scans of a 20,000-block table:
 * serial, then with 2 parallel workers (PG15: chunked allocation). Stored
 * gzipped (about 200 kB each instead of 4 MB).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { liveGate, withCluster } from "@scanlab/pg-harness";

const here = dirname(fileURLToPath(import.meta.url));
const gate = liveGate({ pgMajor: 15, strace: true });
if (!gate.available) throw new Error(`cannot record fixtures: ${gate.reason}`);

async function traced(pid: number, out: string, run: () => Promise<unknown>): Promise<void> {
  const strace = spawn("strace", ["-f", "-y", "-e", "trace=pread64", "-o", out, "-p", String(pid)], {
    stdio: "ignore",
  });
  await new Promise((r) => setTimeout(r, 1500));
  await run();
  strace.kill("SIGINT");
  await new Promise((r) => strace.on("exit", r));
}

const work = mkdtempSync(join(tmpdir(), "scanlab-trace-"));
await withCluster(
  { pgMajor: 15, settings: { shared_buffers: "16MB", synchronize_seqscans: false } },
  async (pg) => {
    // 226 int rows per page (apps/docs/src/reference/experiments.md#t1-freebsd-ufs-striding-and-64-block-chunks): 4,520,000 rows = 20,000 blocks.
    await pg.psql(
      "create table t as select g::int as i from generate_series(1, 4520000) g; vacuum analyze t; checkpoint;",
    );
    const rel = await pg.psql("select pg_relation_filepath('t')");
    const settings =
      "set parallel_setup_cost = 0; set parallel_tuple_cost = 0; set min_parallel_table_scan_size = 0; set max_parallel_workers_per_gather = ";
    for (const [name, workers] of [
      ["serial", 0],
      ["parallel-2", 2],
    ] as const) {
      await pg.restart();
      const out = join(work, `${name}.strace`);
      await traced(pg.postmasterPid(), out, () => pg.psql(`${settings}${workers}; select count(*) from t;`));
      const text = readFileSync(out, "utf8");
      writeFileSync(join(here, "fixtures", `pg15-${name}.strace.gz`), gzipSync(text, { level: 9 }));
      console.log(`${name}: ${text.split("\n").length} lines, relation ${rel}`);
    }
    writeFileSync(
      join(here, "fixtures", "pg15-relation.txt"),
      `${await pg.psql("select pg_relation_filepath('t')")}\n`,
    );
  },
);
rmSync(work, { recursive: true, force: true });
