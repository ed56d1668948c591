/**
 * The queue against a real redis-server (started on a free loopback port in
 * a temporary directory, stopped afterwards): cells run by in-process
 * workers give the very metrics of a local simulation, a sweep started again
 * reuses them, a restart of Redis and connections cut by Redis are ridden
 * out without loss, a worker and a sweep stop while their queue is away,
 * every key left in Redis expires within seven days, an invalid scenario
 * fails once and is not retried, and the ways of not reaching the queue are
 * told apart, without the password.
 *
 * Without redis-server the file is skipped, except under
 * SCANLAB_REQUIRE_LIVE=1 (CI), where that is a failure.
 */
// The built package, as a user imports it: its workers start dist/cell-thread.js on their threads.
import {
  CELL_TTL_S,
  cellHash,
  cellJobId,
  INVALID_CELL,
  KEY_PREFIX,
  QUEUE_NAME,
  QueueError,
  RESULT_TTL_S,
  runSweepOnQueue,
  runWorker,
  STALL_CHECK_MS,
} from "@scanlab/queue";
import { cellsQueue, freePort, redisAvailable, startRedis, type TestRedis } from "@scanlab/queue/testing";
import { rowMetrics, type ScenarioInput, simulate } from "@scanlab/simulator";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const available = redisAvailable();
if (!available && process.env.SCANLAB_REQUIRE_LIVE === "1")
  throw new Error("SCANLAB_REQUIRE_LIVE=1 but redis-server is not installed (apt-get install redis-server)");

/** A small, cheap cell (a 32 MB table): well under a second of simulation alone. */
function cell(workers: number, seed: number): ScenarioInput {
  return {
    name: `w${workers}`,
    seed,
    machine: { cores: 4, ram: "2GB", os: "linux-5.4", device: "intel-ssd-320-120gb" },
    tables: [{ name: "t", size: "32MB", tuplesPerPage: 226 }],
    queries: [{ name: "q", table: "t", pg: "14", workers }],
  };
}

/** How long the sweep that rides out a restart may take in all before it is stopped unfinished: 8 minutes. */
const SWEEP_BOUND_MS = 480_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Has Redis at `url` close every client connection but this one; resolves with how many it closed. */
/**
 * Drops the clients once they are back after a restart: tries every 250 ms, for at most 10 s, until
 * CLIENT KILL closes at least one connection, and answers how many it closed.
 */
async function dropClientsOnceBack(url: string): Promise<number> {
  for (let i = 0; ; i++) {
    const killed = Number(await dropClients(url));
    if (killed > 0 || i >= 40) return killed;
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function dropClients(url: string): Promise<unknown> {
  const admin = new Redis(url, { maxRetriesPerRequest: 3 });
  try {
    return await admin.call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
  } finally {
    admin.disconnect();
  }
}

/** Runs in-process workers while `body` runs, then stops them. */
async function withWorkers<T>(url: string, n: number, body: () => Promise<T>): Promise<T> {
  const stop = new AbortController();
  const lines: string[] = [];
  let ready = 0;
  const workers = Array.from({ length: n }, () =>
    runWorker({ url, jobs: 1, signal: stop.signal, log: (l) => lines.push(l), onReady: () => ready++ }),
  );
  try {
    return await body();
  } finally {
    stop.abort();
    await Promise.all(workers);
    expect(ready).toBe(n);
  }
}

describe.runIf(available)("the queue on a real Redis", () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it("gives the metrics of a local simulation, bit for bit, and reuses them when started again", async () => {
    // Six cells, the last two the same as the first two: four distinct cells, each run once.
    const cells = [0, 1, 2, 3, 0, 1].map((w, i) => cell(w, 1 + (i % 4)));
    const first = await withWorkers(redis.url, 2, () =>
      runSweepOnQueue(cells, { url: redis.url, sweepId: "same" }),
    );
    expect(first.interrupted).toBe(false);
    expect(first.progress).toMatchObject({ total: 4, done: 4, reused: 0, failed: 0 });
    cells.forEach((c, i) => {
      const local = rowMetrics(simulate(c), c);
      const remote = first.metrics[i]!;
      expect(Object.keys(remote)).toEqual(Object.keys(local));
      for (const k of Object.keys(local) as (keyof typeof local)[])
        expect(Object.is(remote[k], local[k]), `cell ${i} ${k}`).toBe(true);
    });
    // Started again with the same id and no worker at all: every cell is already there.
    const again = await runSweepOnQueue(cells, { url: redis.url, sweepId: "same" });
    expect(again.progress).toMatchObject({ total: 4, done: 4, reused: 4 });
    expect(again.metrics).toEqual(first.metrics);
  }, 300_000 /* six small simulations on two threads of a loaded 2-core machine, and Redis round trips */);

  it("rides out a restart of Redis and dropped connections mid-sweep, and gives the same metrics", async () => {
    // A Redis of its own that keeps its data across the restart (an append-only file).
    const server = await startRedis({ persist: true });
    // 24 distinct cells: enough that the sweep is still running after the restart and after the cut.
    const cells = [0, 1, 2, 3, 4, 5].flatMap((w) => [1, 2, 3, 4].map((seed) => cell(w, seed)));
    let restarted: Promise<void> | null = null;
    let cut: Promise<unknown> | null = null;
    try {
      const run = await withWorkers(server.url, 2, () =>
        runSweepOnQueue(cells, {
          url: server.url,
          sweepId: "outage",
          // A bound on the whole sweep: past it the sweep returns unfinished and the test fails instead of hanging.
          signal: AbortSignal.timeout(SWEEP_BOUND_MS),
          onProgress: (p) => {
            if (p.done >= p.total) return;
            if (restarted === null && p.done >= 2) {
              // Redis stops (every connection closes) and starts again a second later; once the clients
              // are back, it drops them all at once, as a network blip would. (Chained to the restart, not
              // to a later progress report: the sweep may see the cells after the restart all at once.)
              restarted = server.restart(1_000).then(() => {
                cut = dropClientsOnceBack(server.url);
              });
            }
          },
        }),
      );
      expect(restarted, "Redis was restarted mid-sweep").not.toBeNull();
      await restarted;
      expect(cut, "the clients were cut mid-sweep").not.toBeNull();
      // CLIENT KILL answers how many connections it closed: those of the sweep and the workers.
      expect(Number(await cut)).toBeGreaterThan(0);
      expect(run.interrupted).toBe(false);
      expect(run.progress).toMatchObject({ total: 24, done: 24, failed: 0 });
      cells.forEach((c, i) => {
        expect(run.metrics[i]).toEqual(rowMetrics(simulate(c), c));
      });
    } finally {
      await server.stop();
    }
  }, 600_000 /* 24 small simulations on two threads of a loaded 2-core machine, a restart and reconnections */);

  it("stops a worker and a sweep while their queue is away, without waiting for it", async () => {
    const server = await startRedis();
    try {
      const stop = new AbortController();
      let ready = false;
      const worker = runWorker({
        url: server.url,
        jobs: 1,
        signal: stop.signal,
        onReady: () => (ready = true),
      });
      const sweepStop = new AbortController();
      let collecting = false;
      const sweep = runSweepOnQueue([cell(0, 3), cell(1, 3), cell(2, 3), cell(3, 3)], {
        url: server.url,
        sweepId: "away",
        signal: sweepStop.signal,
        onProgress: () => (collecting = true),
      });
      for (let i = 0; !(ready && collecting) && i < 600; i++) await sleep(100);
      expect(ready).toBe(true);
      expect(collecting).toBe(true);
      // Once Redis is gone, every connection is between two attempts to reconnect.
      await server.down();
      await sleep(500);
      stop.abort();
      sweepStop.abort();
      // Both settle while Redis is still down: nothing in their stop waits for it.
      const summary = await worker;
      expect(summary.failed).toBe(0);
      const run = await sweep;
      expect(run.progress.total).toBe(4);
      if (run.progress.done < 4) expect(run.interrupted).toBe(true);
      expect(server.process.exitCode !== null || server.process.signalCode !== null).toBe(true);
    } finally {
      await server.stop();
    }
  }, 300_000 /* a redis-server's start and stop, a worker's start and stop on a loaded machine */);

  it("leaves no key without an expiry, and none longer than the documented seven days", async () => {
    const server = await startRedis();
    try {
      const bad = { ...cell(2, 7), queries: [{ name: "q", table: "nope", pg: "14", workers: -1 }] };
      const cells = [cell(0, 5), cell(1, 5), cell(2, 5)];
      await withWorkers(server.url, 1, async () => {
        await runSweepOnQueue(cells, { url: server.url, sweepId: "ttl" });
        // Again: reused results; and a sweep whose cell fails for good.
        await runSweepOnQueue(cells, { url: server.url, sweepId: "ttl" });
        await expect(runSweepOnQueue([bad], { url: server.url, sweepId: "ttl-bad" })).rejects.toMatchObject({
          code: "QUEUE_CELL_FAILED",
        });
      });
      const admin = new Redis(server.url);
      try {
        const keys: string[] = [];
        let cursor = "0";
        do {
          const [next, batch] = await admin.scan(cursor, "COUNT", 1000);
          cursor = next;
          keys.push(...batch);
        } while (cursor !== "0");
        // The results and the failure are there (so the check below has something to check)...
        for (const c of [...cells, bad]) {
          const id = cellJobId(c === bad ? "ttl-bad" : "ttl", cellHash(c));
          expect(keys).toContain(`${KEY_PREFIX}:${QUEUE_NAME}:${id}`);
        }
        // ...and every key, the queue's own included, expires within seven days (PTTL -1: never; -2: gone since the scan).
        const ttls = await Promise.all(keys.map(async (k) => [k, await admin.pttl(k)] as const));
        const forever = ttls.filter(([, t]) => t === -1).map(([k]) => k);
        expect(forever).toEqual([]);
        for (const [k, t] of ttls) if (t !== -2) expect(t, k).toBeLessThanOrEqual(RESULT_TTL_S * 1000);
        // The guard of the stalled-cell check keeps its own short expiry: a long one would stop the checks.
        const guard = ttls.find(([k]) => k.endsWith(":stalled-check"));
        if (guard !== undefined && guard[1] !== -2) expect(guard[1]).toBeLessThanOrEqual(STALL_CHECK_MS);
        expect(RESULT_TTL_S).toBe(7 * 24 * 3600);
        expect(CELL_TTL_S).toBe(7 * 24 * 3600);
      } finally {
        admin.disconnect();
      }
    } finally {
      await server.stop();
    }
  }, 300_000 /* four small simulations and a worker's start and stop on a loaded machine */);

  it("fails an invalid scenario once, with its reason, and leaves the queue consistent", async () => {
    // A producer that does not validate (scanlab's CLI does) puts a bad cell on the queue.
    const bad = { ...cell(2, 1), queries: [{ name: "q", table: "nope", pg: "14", workers: -1 }] };
    const good = cell(1, 1);
    const error = await withWorkers(redis.url, 1, () =>
      runSweepOnQueue([good, bad], { url: redis.url, sweepId: "bad" }).then(
        () => null,
        (e: unknown) => e,
      ),
    );
    expect(error).toBeInstanceOf(QueueError);
    const e = error as QueueError;
    expect(e.code).toBe("QUEUE_CELL_FAILED");
    expect(e.cell).toBe(1);
    expect(e.reason).toMatch(new RegExp(`^${INVALID_CELL}: its scenario is invalid: `));
    expect(e.message.split("\n")).toHaveLength(1);
    const queue = cellsQueue(redis.url);
    try {
      const job = await queue.getJob(cellJobId("bad", cellHash(bad)));
      expect(await job!.getState()).toBe("failed");
      expect(job!.attemptsMade).toBe(1);
      expect(await queue.getActiveCount()).toBe(0);
      // Reported again, at once, by a restart: never retried.
      await expect(runSweepOnQueue([bad], { url: redis.url, sweepId: "bad" })).rejects.toMatchObject({
        code: "QUEUE_CELL_FAILED",
      });
      expect((await queue.getJob(cellJobId("bad", cellHash(bad))))!.attemptsMade).toBe(1);
    } finally {
      await queue.close();
    }
  }, 300_000 /* two small simulations and a worker's start and stop on a loaded machine */);

  it("tells a refused password from an unreachable server, and never prints the password", async () => {
    const locked = await startRedis({ password: "right-horse" });
    try {
      const wrong = locked.url.replace("right-horse", "wrong-battery");
      const e = await runSweepOnQueue([cell(0, 1)], { url: wrong }).catch((x: unknown) => x);
      expect(e).toMatchObject({ code: "QUEUE_AUTH", kind: "user" });
      expect((e as Error).message).not.toContain("wrong-battery");
      expect((e as Error).message).toContain("***");
      const none = locked.url.replace(":right-horse@", "");
      await expect(runWorker({ url: none })).rejects.toMatchObject({ code: "QUEUE_AUTH" });
    } finally {
      await locked.stop();
    }
    const port = await freePort();
    const e = await runSweepOnQueue([cell(0, 1)], { url: `redis://:pw-123@127.0.0.1:${port}/0` }).catch(
      (x: unknown) => x,
    );
    expect(e).toMatchObject({ code: "QUEUE_UNREACHABLE", runtime: true });
    expect((e as Error).message).toMatch(/^Cannot reach the queue at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+\/0 /);
    expect((e as Error).message).not.toContain("pw-123");
  }, 120_000 /* a second redis-server's start and stop */);
});
