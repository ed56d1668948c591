/**
 * A small, self-contained scan simulator: the frame of apps/docs/src/reference/readahead-predictions.md#simulation-assumptions, used
 * to reproduce its prediction tables (apps/docs/src/reference/readahead-predictions.md#linux-predictions Linux, apps/docs/src/reference/readahead-predictions.md#freebsd-ufs-predictions FreeBSD) and, with a
 * machine's own parameters, to put the Linux model beside the real kernel
 * (`measureKernelReadahead` in the `./node` entry).
 *
 * N processes scan one file of `blocks` PostgreSQL blocks (8 kB, 2 pages).
 * Each opens the file itself (PostgreSQL's VFD layer) unless `sharedOpen`.
 * They take work from a shared counter in time order: one block per claim
 * ("stride", pre-v14 parallel seq scan) or `chunkBlocks` per claim (v14+
 * chunks; one process alone is the plain sequential scan). Reading a block is
 * one `read()` of its pages through the model; once the data is valid the
 * process spends `cpuUsPerBlock` (±`cpuJitter`, drawn from a per-process
 * seeded PRNG) and claims again. The device of apps/docs/src/reference/readahead-predictions.md#simulation-assumptions: `baseUs` + `usPerKiB` per
 * I/O, unlimited queue, aggregate throughput capped at `maxBytesPerUs`.
 *
 * The harness is a discrete-event loop with one event per process step, and
 * uses the models' fast path (`quietRun` / `skipQuiet`) over runs of cached
 * blocks inside a chunk, as the real simulator will; `fastPath: false` turns
 * it off (the tests check both give the same answer).
 */
import { mibPerS, mulberry32, type SeededRandom } from "@scanlab/core";
import { checkNumber } from "./errors.js";
import type { OpenFile, ReadaheadModel, SubmitIo } from "./model.js";
import { PAGE_BYTES } from "./model.js";
import { PageCache } from "./page-cache.js";

/** How the processes share the file. */
export type ScanPattern =
  | {
      /** One reader, block after block. */
      kind: "sequential";
    }
  | {
      /** One block per claim from the shared counter (before PostgreSQL 14). */
      kind: "stride";
      /** Scanning processes (leader + workers). */
      processes: number;
    }
  | {
      /** `chunkBlocks` per claim (PostgreSQL 14+). */
      kind: "chunk";
      /** Scanning processes. */
      processes: number;
      /** Blocks per claim. */
      chunkBlocks: number;
    }
  | {
      /** One reader, `reads` random blocks. */
      kind: "random";
      /** Reads. */
      reads: number;
      /** Seed of the block choice (default 7). */
      seed?: number;
    };

/** The device of apps/docs/src/reference/readahead-predictions.md#simulation-assumptions (or a measured one). */
export interface HarnessDevice {
  /** Fixed cost per I/O (µs). Default 100. */
  baseUs?: number;
  /** Transfer cost (µs per KiB). Default 1. */
  usPerKiB?: number;
  /** Aggregate throughput cap (bytes per µs; 1500 = 1.5 GB/s). Default 1500. */
  maxBytesPerUs?: number;
}

/** Options of {@link simulateScan}. */
export interface ScanHarnessOptions {
  /** Builds the model over the harness's fresh page cache. */
  model: (cache: PageCache) => ReadaheadModel;
  /** File size in PostgreSQL blocks. Default 200 000 (apps/docs/src/reference/readahead-predictions.md#simulation-assumptions). */
  blocks?: number;
  /** Pages per block. Default 2 (8 kB blocks, 4 kB pages). */
  blockPages?: number;
  /** Blocks per read() (PG17 read streams combine up to 16). Default 1. */
  blocksPerRead?: number;
  /** CPU per block (µs). Default 15 (apps/docs/src/reference/readahead-predictions.md#simulation-assumptions). */
  cpuUsPerBlock?: number;
  /** Relative jitter of the CPU time (uniform ±). Default 0.3 (apps/docs/src/reference/readahead-predictions.md#simulation-assumptions). */
  cpuJitter?: number;
  /** Seed of the jitter PRNG. Default 1. */
  seed?: number;
  /** Device. Default: apps/docs/src/reference/readahead-predictions.md#simulation-assumptions. */
  device?: HarnessDevice;
  /** All processes share one open file (one `struct file`). Default false. */
  sharedOpen?: boolean;
  /**
   * Scheduler wake-up latency (µs): a process that slept on I/O runs again
   * on average this long after the I/O completes (uniformly between 0 and
   * twice this), while processes that did not sleep go on; or, given a list
   * of measured wake-up latencies, one of them drawn at random. Default 0
   * (apps/docs/src/reference/readahead-predictions.md#simulation-assumptions). On a loaded machine it is what turns "striding" into
   * runs of consecutive blocks per process.
   */
  wakeupUs?: number | readonly number[];
  /**
   * CPUs the processes share. Default unlimited (each process has its own,
   * apps/docs/src/reference/readahead-predictions.md#simulation-assumptions). With fewer CPUs than busy processes, a CPU burst is
   * stretched by (processes computing at once) / cpus, a processor-sharing
   * approximation: 4 readers on a 2-core machine each read at half speed while
   * all compute, which changes which reader reaches which marker first.
   */
  cpus?: number;
  /** Use quietRun/skipQuiet over runs of cached blocks. Default true. */
  fastPath?: boolean;
  /** Page cache capacity in pages. Default unlimited (cold cache, file smaller than RAM). */
  capacityPages?: number;
  /** Called for every device read, in submission order. */
  onIo?: (io: HarnessIo) => void;
}

/** One device read seen by the harness. */
export interface HarnessIo {
  /** Submission time (µs). */
  atUs: number;
  /** Completion time (µs). */
  doneUs: number;
  /** First page. */
  page: number;
  /** Pages. */
  pages: number;
  /** Issued by a miss (the reader waits). */
  sync: boolean;
  /** Process that issued it. */
  process: number;
}

/** What a simulated scan did. */
export interface ScanResult {
  /** Device reads. */
  ios: number;
  /** Pages read from the device. */
  pagesRead: number;
  /** Average device read (KiB). */
  avgIoKiB: number;
  /** Share of device reads issued synchronously (misses). */
  syncFraction: number;
  /** Most device reads in flight at once. */
  maxInFlight: number;
  /** Time until the last process finished (µs). */
  elapsedUs: number;
  /** File bytes / elapsed time in MiB/s (2^20 bytes per second; relative only, see apps/docs/src/reference/readahead-predictions.md#simulation-assumptions). */
  mibPerS: number;
  /** read() calls made (including the ones the fast path skipped). */
  reads: number;
}

/** Min-heap of (time, id) pairs, ties broken by id. */
class EventQueue {
  private readonly t: number[] = [];
  private readonly id: number[] = [];
  get size(): number {
    return this.t.length;
  }
  private less(i: number, j: number): boolean {
    const a = this.t[i]!;
    const b = this.t[j]!;
    return a < b || (a === b && this.id[i]! < this.id[j]!);
  }
  private swap(i: number, j: number): void {
    [this.t[i], this.t[j]] = [this.t[j]!, this.t[i]!];
    [this.id[i], this.id[j]] = [this.id[j]!, this.id[i]!];
  }
  push(time: number, id: number): void {
    this.t.push(time);
    this.id.push(id);
    let i = this.t.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(i, p)) break;
      this.swap(i, p);
      i = p;
    }
  }
  pop(): [number, number] {
    const top: [number, number] = [this.t[0]!, this.id[0]!];
    const lt = this.t.pop()!;
    const lid = this.id.pop()!;
    if (this.t.length > 0) {
      this.t[0] = lt;
      this.id[0] = lid;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < this.t.length && this.less(l, m)) m = l;
        if (r < this.t.length && this.less(r, m)) m = r;
        if (m === i) break;
        this.swap(i, m);
        i = m;
      }
    }
    return top;
  }
}

/**
 * Runs one scan and reports what the device saw.
 *
 * @example
 * ```ts
 * import { linuxReadahead, simulateScan } from "@scanlab/readahead";
 * const r = simulateScan({ kind: "chunk", processes: 4, chunkBlocks: 16 }, {
 *   model: (cache) => linuxReadahead(cache, { version: "<=6.9" }),
 * });
 * console.log(r.avgIoKiB.toFixed(0)); // ≈ 29 (apps/docs/src/reference/readahead-predictions.md#linux-predictions: 16-block chunks pay the ramp every time)
 * ```
 */
export function simulateScan(pattern: ScanPattern, options: ScanHarnessOptions): ScanResult {
  const blocks = checkNumber("harness blocks", options.blocks ?? 200_000, { min: 1, integer: true });
  const bp = checkNumber("harness blockPages", options.blockPages ?? 2, { min: 1, integer: true });
  const bpr = checkNumber("harness blocksPerRead", options.blocksPerRead ?? 1, { min: 1, integer: true });
  const cpuUs = checkNumber("harness cpuUsPerBlock", options.cpuUsPerBlock ?? 15, { min: 0 });
  const jitter = checkNumber("harness cpuJitter", options.cpuJitter ?? 0.3, { min: 0 });
  const seed = options.seed ?? 1;
  const baseUs = checkNumber("device baseUs", options.device?.baseUs ?? 100, { min: 0 });
  const usPerKiB = checkNumber("device usPerKiB", options.device?.usPerKiB ?? 1, { min: 0 });
  const maxBytesPerUs = checkNumber("device maxBytesPerUs", options.device?.maxBytesPerUs ?? 1500, {
    min: 0,
    allowInfinity: true,
  });
  const fastPath = options.fastPath ?? true;
  const cpus = checkNumber("harness cpus", options.cpus ?? Number.POSITIVE_INFINITY, {
    min: 1,
    allowInfinity: true,
  });
  const wakeup = options.wakeupUs ?? 0;
  const wakeupSamples =
    typeof wakeup === "number" ? null : wakeup.map((w) => checkNumber("harness wakeupUs sample", w));
  const wakeupUs = typeof wakeup === "number" ? checkNumber("harness wakeupUs", wakeup, { min: 0 }) : 0;
  /**
   * When a process that asked at `t` runs again if its data is ready at
   * `ready`: if it slept, after a wake-up delay drawn uniformly in
   * [0, 2 x wakeupUs) from its own PRNG (so sleepers woken by the same I/O
   * do not all run at once).
   */
  let wakeProc = 0;
  const resumeAt = (t: number, ready: number): number => {
    if (ready <= t) return t;
    if (wakeupSamples !== null && wakeupSamples.length > 0) {
      return ready + wakeupSamples[Math.floor(rngs[wakeProc]!.nextFloat() * wakeupSamples.length)]!;
    }
    if (wakeupUs === 0) return ready;
    return ready + 2 * wakeupUs * rngs[wakeProc]!.nextFloat();
  };
  const cache = new PageCache(
    options.capacityPages === undefined ? {} : { capacityPages: options.capacityPages },
  );
  const model = options.model(cache);
  const sizePages = blocks * bp;
  const file = 1;

  let nproc: number;
  let claim: number; // blocks per claim
  switch (pattern.kind) {
    case "sequential":
      nproc = 1;
      claim = blocks;
      break;
    case "stride":
      nproc = checkNumber("stride processes", pattern.processes, { min: 1, integer: true });
      claim = 1;
      break;
    case "chunk":
      nproc = checkNumber("chunk processes", pattern.processes, { min: 1, integer: true });
      claim = checkNumber("chunkBlocks", pattern.chunkBlocks, { min: 1, integer: true });
      break;
    case "random":
      nproc = 1;
      claim = 1;
      break;
  }
  const randomReads =
    pattern.kind === "random" ? checkNumber("random reads", pattern.reads, { min: 1, integer: true }) : 0;
  const randomPick = pattern.kind === "random" ? mulberry32(pattern.seed ?? 7) : null;
  let randomDone = 0;

  const shared = options.sharedOpen === true ? model.open(file, { sizePages }) : null;
  const opens: OpenFile[] = [];
  const rngs: SeededRandom[] = [];
  const cur: number[] = []; // next block of the current claim
  const claimEnd: number[] = [];
  const pending: (ReturnType<ReadaheadModel["read"]>["pending"] | null)[] = [];
  const lastReadBlocks: number[] = [];
  for (let i = 0; i < nproc; i++) {
    opens.push(shared ?? model.open(file, { sizePages }));
    // One stream per process: the seed and the process number mixed with the 32-bit golden-ratio
    // (Fibonacci hashing) and MurmurHash3 fmix constants, so neighbouring seeds give unrelated streams.
    rngs.push(mulberry32((seed * 0x9e3779b1 + i * 0x85ebca6b) >>> 0));
    cur.push(0);
    claimEnd.push(0);
    pending.push(null);
    lastReadBlocks.push(0);
  }
  let counter = 0;

  // Device.
  let bwFreeUs = 0;
  let ios = 0;
  let pagesRead = 0;
  let syncIos = 0;
  const inflight = new EventQueue();
  let maxInFlight = 0;
  let nowUs = 0;
  let proc = 0;
  const submit: SubmitIo = (io) => {
    const bytes = io.pages * PAGE_BYTES;
    const xfer = Number.isFinite(maxBytesPerUs) && maxBytesPerUs > 0 ? bytes / maxBytesPerUs : 0;
    bwFreeUs = Math.max(bwFreeUs, nowUs) + xfer;
    const done = Math.max(nowUs + baseUs + usPerKiB * (bytes / 1024), bwFreeUs);
    ios++;
    pagesRead += io.pages;
    if (io.sync) syncIos++;
    while (inflight.size > 0) {
      const [t] = inflight.pop();
      if (t > nowUs) {
        inflight.push(t, 0);
        break;
      }
    }
    inflight.push(done, 0);
    if (inflight.size > maxInFlight) maxInFlight = inflight.size;
    options.onIo?.({
      atUs: nowUs,
      doneUs: done,
      page: io.page,
      pages: io.pages,
      sync: io.sync,
      process: proc,
    });
    return done;
  };
  // Ends of the CPU bursts in progress (for the processor-sharing stretch).
  const bursts: number[] = [];
  /** CPU time of `nblocks` blocks for process i, starting at `startUs`, stretched if CPUs are shared. */
  const cpu = (i: number, nblocks: number, startUs: number): number => {
    let t = 0;
    const rng = rngs[i]!;
    for (let k = 0; k < nblocks; k++) t += cpuUs * (1 + jitter * (2 * rng.nextFloat() - 1));
    if (!Number.isFinite(cpus) || t === 0) return t;
    for (let k = bursts.length - 1; k >= 0; k--) if (bursts[k]! <= startUs) bursts.splice(k, 1);
    const stretched = t * Math.max(1, (bursts.length + 1) / cpus);
    bursts.push(startUs + stretched);
    return stretched;
  };

  const events = new EventQueue();
  for (let i = 0; i < nproc; i++) events.push(0, i);
  let finishedUs = 0;
  let reads = 0;
  while (events.size > 0) {
    const [t, i] = events.pop();
    nowUs = t;
    proc = i;
    wakeProc = i;
    const of = opens[i]!;
    const pend = pending[i];
    if (pend) {
      const out = model.resume(pend, t, submit);
      pending[i] = out.pending;
      if (out.pending) events.push(resumeAt(t, out.readyAtUs), i);
      else {
        const r = resumeAt(t, out.readyAtUs);
        events.push(r + cpu(i, lastReadBlocks[i]!, r), i);
      }
      continue;
    }
    // Claim work if the current claim is used up.
    if (cur[i]! >= claimEnd[i]!) {
      if (pattern.kind === "random") {
        if (randomDone >= randomReads) {
          finishedUs = Math.max(finishedUs, t);
          continue;
        }
        randomDone++;
        const b = Math.floor(randomPick!.nextFloat() * blocks);
        cur[i] = b;
        claimEnd[i] = b + 1;
      } else {
        if (counter >= blocks) {
          finishedUs = Math.max(finishedUs, t);
          continue;
        }
        cur[i] = counter;
        claimEnd[i] = Math.min(blocks, counter + claim);
        counter = claimEnd[i]!;
      }
    }
    const b = cur[i]!;
    const end = claimEnd[i]!;
    if (fastPath && end - b > bpr) {
      const q = model.quietRun(of, b * bp, (end - b) * bp, bpr * bp, t);
      const qBlocks = Math.floor(q.pages / bp);
      if (qBlocks >= 2 * bpr) {
        model.skipQuiet(of, b * bp, qBlocks * bp, bpr * bp, t);
        reads += Math.ceil(qBlocks / bpr);
        cur[i] = b + qBlocks;
        const r = resumeAt(t, q.readyAtUs);
        events.push(r + cpu(i, qBlocks, r), i);
        continue;
      }
    }
    const n = Math.min(bpr, end - b);
    const out = model.read(of, b * bp, n * bp, t, submit);
    reads++;
    cur[i] = b + n;
    lastReadBlocks[i] = n;
    pending[i] = out.pending;
    if (out.pending) events.push(resumeAt(t, out.readyAtUs), i);
    else {
      const r = resumeAt(t, out.readyAtUs);
      events.push(r + cpu(i, n, r), i);
    }
  }
  const elapsedUs = finishedUs;
  return {
    ios,
    pagesRead,
    avgIoKiB: ios === 0 ? 0 : (pagesRead * PAGE_BYTES) / 1024 / ios,
    syncFraction: ios === 0 ? 0 : syncIos / ios,
    maxInFlight,
    elapsedUs,
    mibPerS:
      elapsedUs > 0
        ? mibPerS((pattern.kind === "random" ? randomReads : blocks) * bp * PAGE_BYTES, elapsedUs / 1e6)
        : 0,
    reads,
  };
}
