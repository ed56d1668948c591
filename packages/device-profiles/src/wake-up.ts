/**
 * How long the machine takes to wake a sleeping process.
 *
 * Problem. Some reads are handed from one process to another. With
 * PostgreSQL 18's io_method = worker a backend queues a read and sets an idle
 * I/O worker's latch; the worker wakes, reads, and wakes the backend if it
 * sleeps waiting for that read (method_worker.c, aio.c). Each hand-off costs
 * what the kernel needs to wake a sleeping task on an idle CPU: the IPI, the
 * CPU's exit from its idle state, and on a virtual machine the host
 * scheduling the vCPU again (try_to_wake_up() in kernel/sched/core.c). That
 * differs by two orders of magnitude between a busy bare-metal server and an
 * idle cloud VM, and no datasheet gives it.
 *
 * Insight. Two threads that wake each other in turn through a futex
 * (Atomics.wait and Atomics.notify) pay exactly that wake-up twice per round
 * trip; a latch set by another process is woken by the same kernel path.
 *
 * Choices.
 * - Before each round trip both threads sleep {@link WAKE_UP_IDLE_MS}, so
 *   their CPUs go idle as an I/O worker's does between reads; without the
 *   pause the threads stay hot and measure a fraction of it.
 * - {@link WAKE_UP_ROUND_TRIPS} round trips, the median kept: one wake-up is
 *   half of it.
 *
 * Interface: `measureWakeUp()`.
 */
import { Worker } from "node:worker_threads";

/** Sleep before each round trip, ms: about one SSD read's time, the gap an I/O worker idles between reads at low queue depth (our choice). */
export const WAKE_UP_IDLE_MS = 1;

/** Round trips timed; the median is kept (our choice). */
export const WAKE_UP_ROUND_TRIPS = 300;

/** What {@link measureWakeUp} found. */
export interface WakeUp {
  /** Median time to wake a sleeping thread, microseconds (half a round trip). */
  readonly wakeUpUs: number;
  /** How it was measured. */
  readonly measuredWith: string;
}

// The echoing thread: waits on word 0, answers on word 1; 2 in word 0 ends it.
const ECHO = `
const { workerData } = require("node:worker_threads");
const a = new Int32Array(workerData);
for (;;) {
  Atomics.wait(a, 0, 0);
  if (Atomics.load(a, 0) === 2) break;
  Atomics.store(a, 0, 0);
  Atomics.store(a, 1, 1);
  Atomics.notify(a, 1);
}
`;

/**
 * Measures the wake-up of a sleeping thread by ping-pong between two threads.
 *
 * @example
 * ```ts
 * import { measureWakeUp } from "@scanlab/device-profiles/node";
 * const { wakeUpUs } = await measureWakeUp();
 * console.log(`${wakeUpUs.toFixed(1)} us to wake a sleeping process`);
 * ```
 */
export async function measureWakeUp(roundTrips = WAKE_UP_ROUND_TRIPS): Promise<WakeUp> {
  const shared = new SharedArrayBuffer(16);
  const a = new Int32Array(shared);
  const echo = new Worker(ECHO, { eval: true, workerData: shared });
  try {
    await new Promise<void>((resolve, reject) => {
      echo.once("online", resolve);
      echo.once("error", reject);
    });
    const rtts: number[] = [];
    for (let i = 0; i < roundTrips; i++) {
      Atomics.wait(a, 3, 0, WAKE_UP_IDLE_MS);
      const t0 = process.hrtime.bigint();
      Atomics.store(a, 0, 1);
      Atomics.notify(a, 0);
      Atomics.wait(a, 1, 0);
      Atomics.store(a, 1, 0);
      rtts.push(Number(process.hrtime.bigint() - t0) / 1000);
    }
    Atomics.store(a, 0, 2);
    Atomics.notify(a, 0);
    rtts.sort((x, y) => x - y);
    const median = rtts[Math.floor(rtts.length / 2)]!;
    return {
      wakeUpUs: median / 2,
      measuredWith: `half the median of ${roundTrips} futex round trips between two threads (Atomics.wait/notify), each after ${WAKE_UP_IDLE_MS} ms asleep`,
    };
  } finally {
    await echo.terminate();
  }
}
