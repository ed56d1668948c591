/**
 * The timed window of a scan: from the start flag to the last worker's last
 * read, with the device's counters sampled at both edges.
 *
 * Problem. What a scan measures is the reading alone: not the workers'
 * set-up before it, nor the main thread's bookkeeping after. The window must
 * open for every worker at one moment, close when the last one is done,
 * and be sampled by the device counters as close to both edges as the main
 * thread can; while it is open, a caller may want progress and may abort.
 *
 * Design choices.
 * - One start flag in shared memory (worker-protocol.ts), raised once every
 *   worker has said "ready" and the counters have been sampled: the device's
 *   (`/proc/diskstats`, @scanlab/host block-device.ts) and this process's
 *   (`/proc/self/io` read_bytes, which cache-report.ts needs where residency
 *   is hidden). The window's length comes from the workers' own stamps of
 *   their first and last reads on the process-wide monotonic clock (nowUs),
 *   not from when the main thread hears of them; the counters are sampled
 *   again as soon as the main thread hears the last worker is done.
 * - The device under the target is found while the workers start up: it
 *   reads sysfs, and the main thread is only waiting for "ready" then.
 * - Abort is a second flag: an AbortSignal, a failing `onProgress` or a
 *   failing worker raises it (and the start flag, so workers still waiting
 *   see it), and every worker checks it before its next read. An abort
 *   resolves with what was read; a failure stops every thread and rejects.
 * - Progress is sampled from the per-worker progress words every
 *   `progressIntervalMs` and once at the end, never sent per block.
 *
 * Interface: {@link runTimedWindow}.
 */
import { type DeviceProbe, type DeviceReport, probeDevice, processReadBytes } from "@scanlab/host";
import type { ScanProgress, ScanRequest } from "./scan-options.js";
import type { ScanWorkers } from "./scan-workers.js";
import type { SharedMemory } from "./shared-memory.js";
import type { ScanTarget } from "./target.js";
import { CONTROL_ABORT, CONTROL_START, nowUs, type WorkerTotals } from "./worker-protocol.js";

/** What the window measured. */
export interface TimedWindow {
  /** Every worker's totals, in worker order. */
  readonly totals: readonly WorkerTotals[];
  /** The clock (nowUs) when the start flag went up. */
  readonly startUs: number;
  /** From just before the first worker started to the start flag, in microseconds. */
  readonly setupUs: number;
  /** What the device did in the window, or why that is unknown. */
  readonly device: DeviceReport;
  /** Bytes the device read for this process in the window, or null where unknown. */
  readonly deviceReadBytes: number | null;
}

/**
 * Waits for every worker to be ready, opens the window, and waits for every
 * worker to finish, reporting progress to `request.onProgress` and passing on
 * an abort of `request.signal`; the device sampled is the one under `target.dev`.
 *
 * @throws the first worker failure, or what `onProgress` threw; every worker has exited by then.
 */
export async function runTimedWindow(
  workers: ScanWorkers,
  shared: SharedMemory,
  target: Pick<ScanTarget, "nblocks" | "dev">,
  request: Pick<ScanRequest, "signal" | "onProgress" | "progressIntervalMs" | "kernel">,
): Promise<TimedWindow> {
  const { signal, onProgress } = request;
  const flags = controlFlags(shared.flags);
  const onAbort = (): void => flags.abort();
  signal?.addEventListener("abort", onAbort, { once: true });
  if (signal?.aborted) flags.abort();

  let progressError: unknown = null;
  const report = (): void => {
    if (onProgress === undefined || progressError !== null) return;
    try {
      onProgress(sampleProgress(shared.progress, target.nblocks, flags.elapsedUs));
    } catch (error) {
      progressError = error;
      flags.abort();
    }
  };

  let timer: ReturnType<typeof setInterval> | null = null;
  let probe: DeviceProbe;
  let devBefore: ReturnType<DeviceProbe["sample"]> = null;
  let readBytesBefore: number | null = null;
  let totals: WorkerTotals[];
  try {
    probe = probeDevice(target.dev, request.kernel);
    await workers.allReady();
    devBefore = probe.sample();
    readBytesBefore = processReadBytes();
    flags.start();
    if (onProgress !== undefined) timer = setInterval(report, request.progressIntervalMs);
    totals = await workers.allDone();
  } catch (error) {
    flags.abort();
    if (timer !== null) clearInterval(timer);
    signal?.removeEventListener("abort", onAbort);
    await workers.terminate();
    throw error;
  }
  const devAfter = probe.sample();
  const readBytesAfter = processReadBytes();
  if (timer !== null) clearInterval(timer);
  signal?.removeEventListener("abort", onAbort);
  await workers.allExited();
  report();
  if (progressError !== null) throw progressError;

  return {
    totals,
    startUs: flags.startUs,
    setupUs: flags.startUs - workers.setupStartUs,
    device: probe.report(devBefore, devAfter),
    deviceReadBytes:
      readBytesBefore === null || readBytesAfter === null ? null : readBytesAfter - readBytesBefore,
  };
}

/** The start and abort flags of the control block as the main thread raises them. */
interface ControlFlags {
  /** Raises the start flag (once) and notes the time: the window opens. */
  start(): void;
  /** Raises the abort flag, then the start flag, so that workers still waiting see it. */
  abort(): void;
  /** The clock (nowUs) when the start flag went up, 0 before. */
  readonly startUs: number;
  /** Microseconds since the start flag went up, 0 before. */
  elapsedUs(): number;
}

function controlFlags(flags: Int32Array): ControlFlags {
  let started = false;
  let startUs = 0;
  const start = (): void => {
    if (started) return;
    started = true;
    startUs = nowUs();
    Atomics.store(flags, CONTROL_START, 1);
    Atomics.notify(flags, CONTROL_START);
  };
  return {
    start,
    abort: () => {
      Atomics.store(flags, CONTROL_ABORT, 1);
      start();
    },
    get startUs() {
      return startUs;
    },
    elapsedUs: () => (started ? nowUs() - startUs : 0),
  };
}

/** The per-worker progress words as one sample; `elapsedUs` is read after the words. */
function sampleProgress(progress: Uint32Array, nblocks: number, elapsedUs: () => number): ScanProgress {
  const workerBlocks: number[] = new Array<number>(progress.length);
  let blocks = 0;
  for (let i = 0; i < progress.length; i++) {
    const v = Atomics.load(progress, i);
    workerBlocks[i] = v;
    blocks += v;
  }
  return { workerBlocks, blocks, nblocks, elapsedUs: elapsedUs() };
}
