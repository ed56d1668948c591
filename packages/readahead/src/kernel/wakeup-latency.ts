/**
 * How late a sleeping thread runs after it is woken, on this machine
 * (Node-only).
 *
 * A reader that sleeps on a page under I/O is woken when the I/O completes,
 * but runs only when the scheduler gives it a CPU. Meanwhile a reader that
 * did not sleep goes on reading cached blocks, so on a busy machine two
 * "striding" readers take runs of consecutive blocks instead of
 * alternating, and the kernel sees sequential readers (INITIAL windows)
 * where an idle machine would show interleaved ones (CONTEXT and MARKER).
 * On a loaded 2-core VM (Linux 6.18), the median was 10 µs but one
 * wake-up in ten took over 2 ms while other jobs ran.
 *
 * Measured as a futex ping-pong (`Atomics.wait` / `Atomics.notify`) between
 * the main thread and a worker thread: the time from `notify` to the
 * worker's first instruction.
 */
import { Worker } from "node:worker_threads";

const PONG = `
const { workerData } = require("node:worker_threads");
const i32 = new Int32Array(workerData.sab);
const f64 = new Float64Array(workerData.sab, 16, 1);
for (let k = 1; k <= workerData.n; k++) {
  Atomics.wait(i32, 0, k - 1);
  f64[0] = performance.timeOrigin + performance.now();
  Atomics.store(i32, 1, k);
  Atomics.notify(i32, 1);
}
`;

/** Wake-up latencies in µs, sorted, from `samples` ping-pongs spaced by `gapMs`. */
export async function measureWakeupLatency(samples = 300, gapMs = 0.5): Promise<number[]> {
  const sab = new SharedArrayBuffer(32);
  const i32 = new Int32Array(sab);
  const f64 = new Float64Array(sab, 16, 1);
  const w = new Worker(PONG, { eval: true, workerData: { sab, n: samples } });
  await new Promise((r) => setTimeout(r, 50));
  const out: number[] = [];
  for (let k = 1; k <= samples; k++) {
    const t0 = performance.timeOrigin + performance.now();
    Atomics.store(i32, 0, k);
    Atomics.notify(i32, 0);
    Atomics.wait(i32, 1, k - 1, 5000);
    out.push(Math.max(0, (f64[0]! - t0) * 1000));
    const until = performance.now() + gapMs;
    while (performance.now() < until) {
      // spin: a sleeping main thread would add its own wake-up to the next sample
    }
  }
  await w.terminate();
  return out.sort((a, b) => a - b);
}

/** `n` evenly spaced quantiles of sorted samples (compact enough for a fixture). */
export function quantiles(sorted: readonly number[], n = 48): number[] {
  if (sorted.length === 0) return [];
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const q = (i + 0.5) / n;
    out.push(Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 10) / 10);
  }
  return out;
}
