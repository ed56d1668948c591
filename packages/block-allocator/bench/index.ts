/**
 * Hand-outs per second for every policy, side by side in one run
 * (`npm run bench`): run level (nextRun, what the simulator uses) and per
 * block (nextBlock, what PostgreSQL's callers see), in one thread on the
 * in-process backing and on the shared backing, and with 2 worker threads on
 * one shared allocator. Goal: >= 100 M blocks/s run level, one thread.
 *
 * Numbers are blocks handed out per second of wall time, in millions. The
 * machine is shared: read the ratios, not the absolute values.
 */

import {
  type AllocatorPolicy,
  createParallelScan,
  createSharedParallelScan,
  type ParallelScan,
} from "../src/index.js";
import { runWorkers } from "../test/run-workers.js";

const POLICIES: [string, AllocatorPolicy][] = [
  ["pg96 (lock/block)", { kind: "pg96" }],
  ["pg11 (atomic/block)", { kind: "pg11" }],
  ["batch 10 (lock/10)", { kind: "batch", blocksPerClaim: 10 }],
  ["munro2020 (<=64)", { kind: "munro2020" }],
  ["pg14 (chunks)", { kind: "pg14" }],
];
/** Relation size per scan: 10 M blocks = 76 GiB, the apps/docs/src/reference/parallel-block-allocation.md#worked-examples example. */
const NBLOCKS = 10_000_000;
/** Each single-thread measurement repeats whole scans for at least this long. */
const MIN_MS = 300;

function singleThread(make: () => ParallelScan, mode: "run" | "block"): number {
  let blocks = 0;
  const t0 = performance.now();
  let elapsed = 0;
  do {
    const p = make().join();
    if (mode === "run") {
      for (let r = p.nextRun(); r !== null; r = p.nextRun()) blocks += r.blocks;
    } else {
      for (let b = p.nextBlock(); b !== 0xffffffff; b = p.nextBlock()) blocks++;
    }
    elapsed = performance.now() - t0;
  } while (elapsed < MIN_MS);
  return blocks / elapsed / 1000; // M blocks/s
}

async function twoThreads(policy: AllocatorPolicy, mode: "run" | "block"): Promise<number> {
  // warm-up scan, then the measured one
  await runWorkers(policy, NBLOCKS, 2, { mode, count: false });
  const { wallMs, reports } = await runWorkers(policy, NBLOCKS, 2, { mode, count: false });
  const blocks = reports.reduce((s, r) => s + r.blocks, 0);
  if (blocks !== NBLOCKS) throw new Error(`2 threads handed out ${blocks} blocks, not ${NBLOCKS}`);
  return blocks / wallMs / 1000;
}

const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2)).padStart(9);

console.log(`block-allocator: M blocks handed out per second (${NBLOCKS.toLocaleString("en")}-block scans)`);
console.log(
  `${"policy".padEnd(22)}${"local run".padStart(9)}${"local blk".padStart(10)}${"shm run".padStart(9)}${"shm blk".padStart(9)}${"2T run".padStart(9)}${"2T blk".padStart(9)}`,
);
let pg14Run = 0;
let pg96Block = 0;
for (const [name, policy] of POLICIES) {
  const localRun = singleThread(() => createParallelScan(policy, { nblocks: NBLOCKS }), "run");
  const localBlock = singleThread(() => createParallelScan(policy, { nblocks: NBLOCKS }), "block");
  const shmRun = singleThread(() => createSharedParallelScan(policy, { nblocks: NBLOCKS }), "run");
  const shmBlock = singleThread(() => createSharedParallelScan(policy, { nblocks: NBLOCKS }), "block");
  const twoRun = await twoThreads(policy, "run");
  const twoBlock = await twoThreads(policy, "block");
  if (policy.kind === "pg14") pg14Run = localRun;
  if (policy.kind === "pg96") pg96Block = localBlock;
  console.log(
    `${name.padEnd(22)}${fmt(localRun)} ${fmt(localBlock)}${fmt(shmRun)}${fmt(shmBlock)}${fmt(twoRun)}${fmt(twoBlock)}`,
  );
}
console.log(
  `goal: pg14 run level, one thread >= 100 M blocks/s: ${pg14Run.toFixed(0)} M/s ${pg14Run >= 100 ? "(met)" : "(NOT met)"}; ` +
    `pg14 run level is ${(pg14Run / pg96Block).toFixed(0)}x pg96 per block`,
);
