/**
 * Throughput of the read stream, printed side by side in one run (the machine
 * is shared and noisy, so compare ratios within a run, not absolute numbers
 * across runs): buffers per second for PG17/18/19 on all-cached (fast path),
 * sequential uncached and random uncached block sources, with a trivial env.
 *
 * Run: npx turbo run bench --filter=@scanlab/read-stream (builds dist first),
 * or npm run build && npm run bench inside packages/read-stream.
 */
import { RateTable, time } from "@scanlab/test-config/bench";
import type { ReadStreamEnv, ReadStreamVersion } from "../src/index.js";

// Measure the built bundle (what consumers import; turbo builds it before `bench`). Running the TypeScript
// sources through tsx measured the hot loops 2-6x slower than the same code bundled by tsup.
const distEntry: string = "../dist/index.js";
const lib = (await import(distEntry)) as typeof import("../src/index.js");
const { ReadStream } = lib;

const table = new RateTable();
const row = table.row.bind(table);

function streamRun(version: ReadStreamVersion, kind: "cached" | "sequential" | "random"): number {
  const n = 200_000;
  let i = 0;
  const source =
    kind === "random" ? () => (i < n ? (i++ * 7919) % 1_000_003 : null) : () => (i < n ? i++ : null);
  const streamEnv: ReadStreamEnv = {
    isBuffered: () => kind === "cached",
    startRead: (io, now) => (io.async ? now + 50 : null),
    waitRead: (io, now) => (io.async ? (io.readyAtUs as number) : now + 50),
  };
  const stream = new ReadStream(source, {
    version,
    effectiveIoConcurrency: 16,
    ioMethod: version === 17 ? "sync" : "worker",
    flags: { sequential: kind === "sequential" },
  });
  let now = 0;
  let count = 0;
  for (;;) {
    let s = stream.nextBuffer(now, streamEnv);
    if (s === null) break;
    if (s.kind === "wait") {
      now = s.untilUs;
      s = stream.resume(now, streamEnv);
    }
    now += 1;
    count++;
  }
  return count;
}
for (const kind of ["cached", "sequential", "random"] as const) {
  const base = time(() => streamRun(17, kind)).opsPerSec;
  row(`read stream PG17, ${kind}`, base, "baseline");
  for (const v of [18, 19] as const) {
    const r = time(() => streamRun(v, kind)).opsPerSec;
    row(`read stream PG${v}, ${kind}`, r, `${(r / base).toFixed(2)} x PG17`);
  }
}

console.log("@scanlab/read-stream bench (200,000 blocks per stream, eic 16)");
table.print();
