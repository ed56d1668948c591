/**
 * Conformance with a real PostgreSQL 15 (apps/docs/src/reference/postgresql-tests.md#checking-a-model-against-a-real-server, first bullet).
 *
 * A throwaway cluster (tooling/pg-harness) with shared_buffers = 16MB, so
 * NBuffers = 2048 and only tables over 512 blocks synchronize. Every scan the
 * test makes in PostgreSQL is replayed on a mirror: an InProcessSyncScanTracker
 * driven through this package's serial cycle with the same inputs (nblocks,
 * NBuffers, synchronize_seqscans, and the block each LIMIT or FETCH stopped on,
 * read from the ctids PostgreSQL returned). The mirror predicts where the next
 * scan starts; PostgreSQL's next scan (`SELECT ctid ... LIMIT 1`) says where
 * it really started. Nothing here hard-codes an expected block.
 *
 * The second session of the cursor test is a dblink connection (contrib,
 * shipped in Debian's postgresql-15) opened while the first session's cursor
 * is still open, so one psql run holds both.
 */
import { type Cluster, liveGate, startCluster } from "@scanlab/pg-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { relFileLocatorKey } from "./keys.js";
import {
  beginSerialScan,
  continueSerialScan,
  type SerialScan,
  serialScanBlock,
  serialScanDone,
} from "./serial-scan.js";
import { InProcessSyncScanTracker } from "./tracker.js";

const gate = liveGate({ pgMajor: 15, strace: false });
const skip = !gate.available && !gate.required;
if (skip) console.warn(`syncscan conformance with PostgreSQL 15 skipped: ${gate.reason}`);

/** Rows of ~1 kB: 7 per 8 kB page. 21 000 rows -> about 3000 blocks, well over 512. */
const BIG_ROWS = 21_000;
/** About 400 blocks: under the 512-block threshold. */
const SMALL_ROWS = 2_800;
/** The block number of a row, from its ctid "(block,offset)". */
const BLOCK_OF_CTID = "(ctid::text::point)[0]::int";

interface Table {
  name: string;
  key: number;
  nblocks: number;
}

/** Consecutive duplicates removed: the pages a scan visited, in order. */
function pages(rows: number[]): number[] {
  return rows.filter((b, i) => i === 0 || rows[i - 1] !== b);
}

function parseBlocks(out: string): number[] {
  return out
    .split("\n")
    .filter((l) => /^\d+$/.test(l))
    .map(Number);
}

describe.skipIf(skip)("conformance with PostgreSQL 15", () => {
  let pg: Cluster;
  let nbuffers: number;
  let big: Table;
  let small: Table;
  /** The mirror: this package's idea of PostgreSQL's syncscan list. */
  const mirror = new InProcessSyncScanTracker();

  beforeAll(async () => {
    if (!gate.available)
      throw new Error(`PostgreSQL 15 is required (SCANLAB_REQUIRE_LIVE=1): ${gate.reason}`);
    pg = await startCluster({
      pgMajor: 15,
      // Serial scans only: the cycle under test is heapgettup's (apps/docs/src/reference/synchronized-scans.md#serial-scans).
      settings: { shared_buffers: "16MB", max_parallel_workers_per_gather: 0 },
    });
    await pg.psql(`
      CREATE EXTENSION dblink;
      CREATE TABLE big (id int, pad text) WITH (autovacuum_enabled = off);
      INSERT INTO big SELECT g, repeat('x', 1000) FROM generate_series(1, ${BIG_ROWS}) g;
      CREATE TABLE small (id int, pad text) WITH (autovacuum_enabled = off);
      INSERT INTO small SELECT g, repeat('x', 1000) FROM generate_series(1, ${SMALL_ROWS}) g;
      CHECKPOINT;
    `);
    nbuffers = Number(await pg.psql("SELECT setting FROM pg_settings WHERE name = 'shared_buffers'"));
    const table = async (name: string): Promise<Table> => {
      const [spc, db, rel, nblocks] = (
        await pg.psql(
          `SELECT CASE WHEN c.reltablespace = 0 THEN d.dattablespace ELSE c.reltablespace END, d.oid,
                  pg_relation_filenode(c.oid), pg_relation_size(c.oid) / current_setting('block_size')::int
             FROM pg_class c, pg_database d
            WHERE c.relname = '${name}' AND d.datname = current_database()`,
        )
      )
        .split("|")
        .map(Number);
      return {
        name,
        key: relFileLocatorKey({ spcOid: spc!, dbOid: db!, relNumber: rel! }),
        nblocks: nblocks!,
      };
    };
    big = await table("big");
    small = await table("small");
  }, 900_000);

  afterAll(async () => {
    await pg?.stop();
  });

  /**
   * Replays on the mirror a scan that PostgreSQL ran, given the blocks of the
   * rows it returned: initscan, then the blocks it finished (it stands on the
   * last one, the LIMIT / FETCH having stopped while reading it) - or the whole
   * table when `complete`. Checks PostgreSQL visited exactly the pages the
   * package says, and returns the mirrored scan.
   */
  function replay(
    t: Table,
    rows: number[],
    options: { synchronizeSeqscans?: boolean; complete?: boolean } = {},
  ): SerialScan {
    const scan = beginSerialScan(mirror, {
      key: t.key,
      nblocks: t.nblocks,
      nbuffers,
      synchronizeSeqscans: options.synchronizeSeqscans ?? true,
    });
    if (options.complete) {
      const step = continueSerialScan(mirror, t.key, scan, t.nblocks);
      expect(serialScanDone(step.scan)).toBe(true);
      return step.scan;
    }
    const visited = pages(rows);
    expect(visited[0], `${t.name}: first block of the scan`).toBe(scan.startBlock);
    const step = continueSerialScan(mirror, t.key, scan, visited.length - 1);
    const predicted: number[] = [];
    for (const r of step.visited) for (let i = 0; i < r.blocks; i++) predicted.push(r.firstBlock + i);
    predicted.push(serialScanBlock(step.scan)!);
    expect(visited).toEqual(predicted);
    return step.scan;
  }

  async function limitScan(t: Table, rows: number, setup = ""): Promise<number[]> {
    return parseBlocks(await pg.psql(`${setup} SELECT ${BLOCK_OF_CTID} FROM ${t.name} LIMIT ${rows};`));
  }

  /** A new scan's first block, in PostgreSQL and (predicted) on the mirror. */
  async function nextStart(t: Table, setup = "", synchronizeSeqscans = true) {
    const [actual] = await limitScan(t, 1, setup);
    const mirrored = replay(t, [actual!], { synchronizeSeqscans });
    return { actual: actual!, predicted: mirrored.startBlock };
  }

  it("the tables are the sizes the test needs: big over NBuffers / 4, small under it", () => {
    expect(nbuffers).toBe(2048); // 16 MB / 8 kB
    expect(big.nblocks).toBeGreaterThan(nbuffers / 4 + 1000);
    expect(small.nblocks).toBeLessThanOrEqual(Math.floor(nbuffers / 4));
    expect(small.nblocks).toBeGreaterThan(300);
  });

  it("a scan stopped early by LIMIT leaves the last multiple of 16 it reached; the next scan starts there", async () => {
    const rowsPerPage = Math.floor(BIG_ROWS / big.nblocks);
    // Stop part-way through a page past block 1000, so the answer is not the block itself.
    const rows = await limitScan(big, rowsPerPage * 1003 + 2);
    expect(rows[0]).toBe(0); // nobody scanned big before: location 0 inserted
    const stopped = replay(big, rows);
    const stopBlock = serialScanBlock(stopped)!;
    const { actual, predicted } = await nextStart(big);
    expect(actual).toBe(predicted);
    expect(actual % 16).toBe(0);
    expect(actual).toBeLessThanOrEqual(stopBlock);
    expect(stopBlock - actual).toBeLessThan(16);
    console.log(
      `PG15: LIMIT stopped on block ${stopBlock}; next scan started at ${actual} (package: ${predicted})`,
    );
  });

  it("a scan that runs past the end wraps to block 0, and the next scan starts after the wrap", async () => {
    const { actual: start } = await nextStart(big);
    const rowsPerPage = Math.floor(BIG_ROWS / big.nblocks);
    const rows = await limitScan(big, rowsPerPage * (big.nblocks - start + 40) + 3);
    const visited = pages(rows);
    const wrapAt = visited.indexOf(big.nblocks - 1);
    expect(wrapAt).toBeGreaterThanOrEqual(0);
    expect(visited[wrapAt + 1]).toBe(0);
    replay(big, rows);
    const next = await nextStart(big);
    expect(next.actual).toBe(next.predicted);
    expect(next.actual).toBeLessThan(start);
  });

  it("a complete scan's last report is its own start block: the next scan starts at the same place", async () => {
    const before = await nextStart(big);
    expect(await pg.psql("SELECT count(*) FROM big")).toBe(String(BIG_ROWS));
    replay(big, [], { complete: true });
    const after = await nextStart(big);
    expect(after.actual).toBe(after.predicted);
    expect(after.actual).toBe(before.actual);
  });

  it("with synchronize_seqscans off a scan starts at block 0 and reports nothing", async () => {
    const { actual: location } = await nextStart(big);
    const rowsPerPage = Math.floor(BIG_ROWS / big.nblocks);
    const setOff = "SET synchronize_seqscans = off;";
    const rows = await limitScan(big, rowsPerPage * 700 + 1, setOff);
    expect(rows[0]).toBe(0);
    replay(big, rows, { synchronizeSeqscans: false });
    const off = await nextStart(big, setOff, false);
    expect(off).toEqual({ actual: 0, predicted: 0 });
    // The stored location was left alone by the unsynchronized scans.
    const on = await nextStart(big);
    expect(on.actual).toBe(on.predicted);
    expect(on.actual).toBe(location);
  });

  it("a table of NBuffers / 4 blocks or fewer never synchronizes", async () => {
    const rowsPerPage = Math.floor(SMALL_ROWS / small.nblocks);
    const rows = await limitScan(small, rowsPerPage * 300 + 1);
    expect(pages(rows).length).toBeGreaterThan(290);
    replay(small, rows);
    const next = await nextStart(small);
    expect(next).toEqual({ actual: 0, predicted: 0 });
  });

  it("a scan started while another is running (open cursor) starts within 16 blocks behind it", async () => {
    const rowsPerPage = Math.floor(BIG_ROWS / big.nblocks);
    const fetchRows = rowsPerPage * 1500 + 5;
    const out = await pg.psql(`
      BEGIN;
      DECLARE c NO SCROLL CURSOR FOR SELECT ${BLOCK_OF_CTID} FROM big;
      FETCH ${fetchRows} FROM c;
      SELECT 'second:' || b FROM dblink(
        'host=${pg.socketDir} port=${pg.port} dbname=postgres user=postgres',
        'SELECT ${BLOCK_OF_CTID} FROM big LIMIT 1') AS r(b int);
      COMMIT;
    `);
    const first = parseBlocks(out);
    expect(first).toHaveLength(fetchRows);
    const second = Number(/second:(\d+)/.exec(out)?.[1]);
    const running = replay(big, first);
    const position = serialScanBlock(running)!;
    const predicted = replay(big, [second]).startBlock;
    expect(second).toBe(predicted);
    const behind = (position - second + big.nblocks) % big.nblocks;
    expect(behind).toBeLessThan(16);
    console.log(
      `PG15: cursor on block ${position}; a second session's scan started at ${second} (package: ${predicted})`,
    );
  });
});
