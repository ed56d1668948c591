/**
 * `sweep --queue` and `worker` end to end, against a real redis-server
 * (started on a free loopback port in a temporary directory by
 * @scanlab/queue/testing, stopped afterwards) and real worker processes:
 *
 * - 24 cells run by 3 worker processes print the very `--json` of the same
 *   sweep run on local threads, byte for byte; started again with the same
 *   id, the sweep reuses every cell;
 * - with one worker killed by SIGKILL in the middle of a cell, the sweep
 *   still completes with the same bytes and counts the retried cell;
 * - over `rediss://` (a TLS redis-server whose certificate authority is
 *   given in NODE_EXTRA_CA_CERTS) with an ACL user and password, the sweep
 *   gives the local `--json`, and the password is never printed;
 * - a worker stopped by SIGTERM says so in its own line and exits 0;
 * - bad input (a malformed URL, nothing listening, a wrong password, a cell
 *   whose scenario was made invalid on the queue) is one sentence and a
 *   non-zero exit, and leaves the queue consistent.
 *
 * Without redis-server the file is skipped, except under
 * SCANLAB_REQUIRE_LIVE=1 (CI), where that is a failure.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { KEY_PREFIX, QUEUE_NAME } from "@scanlab/queue";
import { cellsQueue, freePort, redisAvailable, startRedis, type TestRedis } from "@scanlab/queue/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, PKG, runBin } from "./run-bin.js";

const available = redisAvailable();
if (!available && process.env.SCANLAB_REQUIRE_LIVE === "1")
  throw new Error("SCANLAB_REQUIRE_LIVE=1 but redis-server is not installed (apt-get install redis-server)");

/** Small, cheap cells: a 64 MB table, a fraction of a second of simulation each alone. */
const base = ["--table-size", "64MB", "--device", "intel-ssd-320-120gb", "--cores", "4", "--ram", "2GB"];
/** 6 x 4 = 24 cells. */
const grid = ["--vary", "workers=0,1,2,3,4,5", "--vary", "read-ahead-kb=128,256,512,1024"];

/** `scanlab sweep` of the 24 cells on the queue at `url`, as sweep `id`, with --json. */
const gridOnQueue = (url: string, id: string) =>
  runBin(["sweep", ...base, ...grid, "--json", "--queue", url, "--sweep-id", id]);

/** A `scanlab worker` process and what it wrote on stderr. */
interface WorkerProcess {
  child: ChildProcess;
  stderr: () => string;
  /** BullMQ's id of the worker (from its first log line). */
  id: string;
  exited: Promise<number | null>;
}

/** Starts `scanlab worker --queue url --jobs 1` (with `env` added to the environment) and waits for it to serve. */
async function startWorker(url: string, env: Record<string, string> = {}): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [BIN, "worker", "--queue", url, "--jobs", "1"], {
    cwd: PKG,
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => {
    err += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const id = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const m = / as worker (\S+) with /.exec(err);
      if (m) {
        clearInterval(timer);
        resolve(m[1]!);
      } else if (child.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`scanlab worker exited ${child.exitCode}: ${err}`));
      }
    }, 50);
  });
  return { child, stderr: () => err, id, exited };
}

/** Stops workers with SIGTERM and checks that each finished cleanly (exit 0). */
async function stopWorkers(workers: WorkerProcess[]): Promise<void> {
  for (const w of workers)
    if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill("SIGTERM");
  for (const w of workers) {
    const code = await w.exited;
    if (w.child.signalCode !== "SIGKILL") {
      expect(code, w.stderr()).toBe(0);
      // The worker's own line for the signal, not a command's "printing what was done".
      expect(w.stderr()).toMatch(
        /\nscanlab worker: SIGTERM; taking no new cell, finishing the running ones and storing their results \(the signal again to quit now\)\.\n/,
      );
      expect(w.stderr()).not.toMatch(/printing what was done/);
      expect(w.stderr()).toMatch(/stopped: \d+ cells? done/);
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.runIf(available)("sweep --queue and worker on a real Redis", () => {
  let redis: TestRedis;
  let local = "";
  beforeAll(async () => {
    redis = await startRedis();
    const r = await runBin(["sweep", ...base, ...grid, "--jobs", "2", "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    local = r.stdout;
    expect(JSON.parse(local).result.points).toHaveLength(24);
  }, 600_000 /* the local sweep of 24 cells on a loaded 2-core machine */);
  afterAll(async () => {
    await redis?.stop();
  });

  it("3 workers give the local --json byte for byte; the same id again reuses every cell", async () => {
    const workers = await Promise.all([0, 1, 2].map(() => startWorker(redis.url)));
    try {
      const r = await gridOnQueue(redis.url, "e2e-same");
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(local);
      expect(r.stderr).toMatch(
        /queue sweep e2e-same: 24 of 24 cells done \(0 reused\), 0 failed, 0 retried\.\n$/,
      );
      const again = await gridOnQueue(redis.url, "e2e-same");
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toBe(local);
      expect(again.stderr).toMatch(/24 of 24 cells done \(24 reused\)/);
    } finally {
      await stopWorkers(workers);
    }
    // Each of the three did some of the work.
    for (const w of workers) expect(w.stderr()).toMatch(/stopped: [1-9]\d* cells? done/);
  }, 900_000 /* 48 small simulations over worker processes on a loaded 2-core machine */);

  it("a worker killed by SIGKILL in the middle of a cell loses nothing: same bytes, the retry counted", async () => {
    const workers = await Promise.all([0, 1, 2].map(() => startWorker(redis.url)));
    const queue = cellsQueue(redis.url);
    try {
      const sweep = gridOnQueue(redis.url, "e2e-kill");
      // The victim: the worker holding the lock of the cell that started last (so it is mid-cell).
      const client = await queue.client;
      let victim: WorkerProcess | undefined;
      for (let i = 0; victim === undefined && i < 1200; i++) {
        const active = (await queue.getActive()).filter((j) => j.id?.startsWith("e2e-kill-"));
        active.sort((a, b) => (b.processedOn ?? 0) - (a.processedOn ?? 0));
        for (const job of active.slice(0, 1)) {
          const token = await client.get(`${KEY_PREFIX}:${QUEUE_NAME}:${job.id}:lock`);
          victim = workers.find((w) => token?.startsWith(`${w.id}:`));
        }
        if (victim === undefined) await sleep(50);
      }
      expect(victim, "a worker was seen running a cell").toBeDefined();
      victim!.child.kill("SIGKILL");
      const r = await sweep;
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(local);
      const m = /24 of 24 cells done \(0 reused\), 0 failed, (\d+) retried\./.exec(r.stderr);
      expect(m, r.stderr).not.toBeNull();
      expect(Number(m![1])).toBeGreaterThanOrEqual(1);
    } finally {
      await queue.close();
      await stopWorkers(workers);
    }
  }, 900_000 /* 24 small simulations, plus the lapse of the killed worker's lock (15 s) and two stall checks */);

  it("advise --queue prints the local advice's --json byte for byte", async () => {
    const advise = ["advise", "--device", "intel-ssd-320-120gb", "--os", "freebsd-13", "--table-size", "4GB"];
    const small = [...advise, "--sim-size", "128MB", "--cores", "2", "--ram", "8GB", "--json"];
    const localAdvice = await runBin(small);
    expect(localAdvice.code, localAdvice.stderr).toBe(0);
    const workers = await Promise.all([0, 1].map(() => startWorker(redis.url)));
    try {
      const r = await runBin([...small, "--queue", redis.url]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(localAdvice.stdout);
      // One line per stage, each a sweep of its own on the queue.
      expect(r.stderr).toMatch(
        /^(scanlab advise: queue sweep \w+: (\d+) of \2 cells done \(0 reused\), 0 failed, 0 retried\.\n)+$/,
      );
    } finally {
      await stopWorkers(workers);
    }
  }, 900_000 /* the advice's simulations twice, locally and over two worker processes, on a loaded machine */);

  it("rediss:// with an ACL user: the local --json over TLS, the CA from NODE_EXTRA_CA_CERTS, no password printed", async () => {
    const password = "tls-horse-battery";
    const secure = await startRedis({ tls: true, user: "scanlab-ci", password });
    const small = ["sweep", ...base, "--vary", "workers=0,1,2", "--json"];
    const env = { NODE_EXTRA_CA_CERTS: secure.caFile! };
    let workers: WorkerProcess[] = [];
    try {
      expect(secure.url).toMatch(/^rediss:\/\/scanlab-ci:[^@]+@localhost:\d+\/0$/);
      const localSmall = await runBin(small);
      expect(localSmall.code, localSmall.stderr).toBe(0);
      // Without the certificate authority: refused in one sentence that says what to do.
      const untrusted = await runBin([...small, "--queue", secure.url]);
      expect(untrusted.code).toBe(2);
      expect(untrusted.stderr).toMatch(
        /^scanlab sweep: The queue at rediss:\/\/scanlab-ci:\*\*\*@localhost:\d+\/0 presented a TLS certificate that cannot be verified \([^\n]+\): trust [^\n]+NODE_EXTRA_CA_CERTS[^\n]+\n$/,
      );
      workers = await Promise.all([0, 1].map(() => startWorker(secure.url, env)));
      const r = await runBin([...small, "--queue", secure.url, "--sweep-id", "tls"], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(localSmall.stdout);
      expect(r.stderr).toMatch(/queue sweep tls: 3 of 3 cells done \(0 reused\), 0 failed, 0 retried\.\n$/);
      // The ACL user is the one in use: the default user is off on this server.
      const anonymous = await runBin([...small, "--queue", secure.url.replace(/\/\/[^@]+@/, "//")], { env });
      expect(anonymous.code).toBe(2);
      expect(anonymous.stderr).toMatch(/refused the user or password/);
      await stopWorkers(workers);
      for (const text of [
        untrusted.stderr,
        r.stdout,
        r.stderr,
        anonymous.stderr,
        ...workers.map((w) => w.stderr()),
      ])
        expect(text).not.toContain(password);
      for (const w of workers) expect(w.stderr()).toMatch(/serving rediss:\/\/scanlab-ci:\*\*\*@localhost:/);
    } finally {
      await stopWorkers(workers);
      await secure.stop();
    }
  }, 600_000 /* a TLS redis-server with its certificates, three small simulations twice and two worker processes on a loaded machine */);

  it("bad queue URLs: one sentence, a non-zero exit, no password", async () => {
    const small = ["sweep", ...base, "--vary", "workers=0,1"];
    const malformed = await runBin([...small, "--queue", "redis://u:hunter2@queue.example:notaport/0"]);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(
      /^scanlab sweep: --queue "redis:\/\/u:\*\*\*@queue\.example:notaport\/0" is not a queue URL: [^\n]+\.\n$/,
    );

    const port = await freePort();
    const unreachable = await runBin([...small, "--queue", `redis://:hunter2@127.0.0.1:${port}/0`]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(
      /^scanlab sweep: Cannot reach the queue at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+\/0 [^\n]+\n$/,
    );
    const worker = await runBin(["worker", "--queue", `redis://127.0.0.1:${port}/0`]);
    expect(worker.code).toBe(1);
    expect(worker.stderr).toMatch(/^scanlab worker: Cannot reach the queue at [^\n]+\n$/);

    const locked = await startRedis({ password: "right-horse" });
    try {
      const wrong = await runBin([...small, "--queue", locked.url.replace("right-horse", "wrong-battery")]);
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toMatch(
        /^scanlab sweep: The queue at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+\/0 refused the user or password [^\n]+\n$/,
      );
      for (const r of [malformed, unreachable, wrong]) {
        expect(r.stderr).not.toMatch(/hunter2|wrong-battery|right-horse/);
        expect(r.stdout).toBe("");
      }
    } finally {
      await locked.stop();
    }

    const conflict = await runBin([...small, "--sweep-id", "x"]);
    expect(conflict.code).toBe(2);
    expect(conflict.stderr).toMatch(/--sweep-id names a sweep on a job queue/);
  }, 300_000 /* a few CLI starts and a second redis-server */);

  it("a cell made invalid on the queue: one sentence, exit 1, failed once, the queue consistent", async () => {
    const queue = cellsQueue(redis.url);
    let workers: WorkerProcess[] = [];
    try {
      const sweep = runBin([
        "sweep",
        ...base,
        "--vary",
        "workers=0,1",
        "--json",
        "--queue",
        redis.url,
        "--sweep-id",
        "e2e-bad",
      ]);
      // No worker yet: wait for the two cells to be on the queue, then break one.
      let jobs = [] as Awaited<ReturnType<typeof queue.getWaiting>>;
      for (let i = 0; jobs.length < 2 && i < 1200; i++) {
        jobs = (await queue.getWaiting()).filter((j) => j.id?.startsWith("e2e-bad-"));
        if (jobs.length < 2) await sleep(50);
      }
      expect(jobs).toHaveLength(2);
      const target = jobs[0]!;
      const scenario = target.data.scenario as { queries: Record<string, unknown>[] };
      await target.updateData({
        ...target.data,
        scenario: { ...scenario, queries: [{ ...scenario.queries[0], workers: -1 }] },
      });
      workers = [await startWorker(redis.url)];
      const r = await sweep;
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(
        /^scanlab sweep: sweep point workers=[01] failed on a queue worker: invalid cell: its scenario is invalid: [^\n]*workers[^\n]*\n$/,
      );
      const failed = (await queue.getJob(target.id!))!;
      expect(await failed.getState()).toBe("failed");
      expect(failed.attemptsMade).toBe(1);
      // The other cell is finished by the worker, which stays up; nothing is left running or waiting.
      const other = jobs[1]!.id!;
      for (let i = 0; (await queue.getJobState(other)) !== "completed" && i < 1200; i++) await sleep(100);
      expect(await queue.getJobState(other)).toBe("completed");
      expect(await queue.getActiveCount()).toBe(0);
      expect(await queue.getWaitingCount()).toBe(0);
      expect(workers[0]!.stderr()).toMatch(/failed: invalid cell: its scenario is invalid/);
      expect(workers[0]!.child.exitCode).toBeNull();
    } finally {
      await queue.close();
      await stopWorkers(workers);
    }
  }, 300_000 /* two small simulations and a worker's start on a loaded machine */);
});
