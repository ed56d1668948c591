/**
 * A process whose scan runs on a read stream (PostgreSQL 17+ sequential
 * scans, 18+ bitmap heap scans; apps/docs/src/reference/read-streams.md). The stream (a
 * {@link ReadStreamPort}, seam/read-stream-adapter.ts) decides look-ahead distance, I/O combining and
 * advice; this participant is its environment: shared-buffer lookups, the
 * reads themselves through the OS model, and the CPU spent per buffer.
 *
 * - Block source: for a sequential scan the allocator (one block at a time,
 *   as heap_scan_stream_read_next_* asks), reporting each handed-out block to
 *   syncscan when the stream asks for it (so reports run ahead of processing
 *   by the look-ahead distance, apps/docs/src/reference/synchronized-scans.md#read-streams-report-ahead); for a bitmap heap scan the
 *   bitmap's pages in order.
 * - io_method sync (PG17, or 18+ when chosen): advice is a posix_fadvise
 *   when the read is started; the read itself is a synchronous preadv done
 *   when the consumer reaches it. worker: the read is queued at
 *   StartReadBuffers for the I/O worker pool ({@link IoWorkers}: PostgreSQL
 *   18's io_workers = 3 by default), which performs one read per worker at a
 *   time, on the worker's own open file; the backend only waits for it. An
 *   idle worker is woken first, and a backend that sleeps for a worker's
 *   read is woken after it (cpu.wakeUpUs each). The workers are processes
 *   on the same cores as the backends (cpu-share.ts): while one copies, it
 *   takes a core's share from every backend.
 *   io_uring: the kernel performs the read, with no such bound.
 * - CPU: the preadv's copy (syscall + bytes / copy rate) in the process that
 *   reads; per buffer consumed a pin and the page's work; per advice call
 *   one fadvise syscall; the allocator's shared-memory cost per claim.
 */
import { BLOCK_BYTES } from "../../units.js";
import type { Entity } from "../loop/scheduler.js";
import type { BufferRing } from "../seam/buffer-manager.js";
import type { ReadStreamPort, StreamEnv, StreamIo, StreamStep } from "../seam/ports.js";
import { type BitmapIndexScan, indexScanFirst } from "./bitmap-index-scan.js";
import { bitmapPageWorkUs, fillUs, pageWorkUs, preadUs } from "./cpu-costs.js";
import { CpuJitter } from "./cpu-jitter.js";
import type { CpuShare } from "./cpu-share.js";
import { adviseBlocks, type OpenFiles, osBlocks, type ScanRunCtx } from "./scan-run.js";

/**
 * The I/O worker pool of io_method = worker (PostgreSQL 18, method_worker.c),
 * shared by every backend of the instance. A backend queues a read and an
 * idle worker takes it (pgaio_worker_submit, pgaio_worker_choose_idle); the
 * worker performs it with a synchronous preadv into the shared buffers, so it
 * does one read at a time: with every worker busy a new read waits for the
 * first to be free, and the pool bounds the reads in flight however far
 * ahead the stream looks. Each worker has its own open files, per table
 * (OpenFiles are keyed by segment number within one table).
 */
export class IoWorkers {
  private readonly files: Map<number, OpenFiles>[];
  /** When each worker is done with the read it was last given. */
  private readonly freeAtUs: Float64Array;
  /** Each worker's number among the CPU share's helpers. */
  private readonly helper: number[];
  constructor(
    workers: number,
    /** The cores the workers share with the backends. */
    private readonly share: CpuShare,
  ) {
    this.files = Array.from({ length: workers }, () => new Map());
    this.freeAtUs = new Float64Array(workers);
    this.helper = Array.from({ length: workers }, () => share.addHelper());
  }
  /**
   * The worker that takes a read queued at `nowUs`: the lowest-numbered idle
   * one (pgaio_worker_choose_idle takes the lowest bit of the idle mask), else
   * the one that is free first.
   */
  pick(nowUs: number): number {
    let best = 0;
    for (let w = 0; w < this.freeAtUs.length; w++) {
      if (this.freeAtUs[w]! <= nowUs) return w;
      if (this.freeAtUs[w]! < this.freeAtUs[best]!) best = w;
    }
    return best;
  }
  /** When `worker` can start its next read. */
  freeAt(worker: number): number {
    return this.freeAtUs[worker]!;
  }
  /** How much longer a worker's CPU work takes when it starts at `atUs`, itself counted. */
  cpuFactor(atUs: number): number {
    return this.share.cpuFactor(atUs, 1);
  }
  /** `worker` is on a CPU from `cpuFromUs` and busy with a read until `untilUs`. */
  busy(worker: number, cpuFromUs: number, untilUs: number): void {
    this.freeAtUs[worker] = untilUs;
    this.share.busy(this.helper[worker]!, cpuFromUs, untilUs);
  }
  /** `worker`'s open files of `table`. */
  opens(worker: number, table: number): OpenFiles {
    const w = this.files[worker]!;
    let opens = w.get(table);
    if (opens === undefined) {
      opens = new Map();
      w.set(table, opens);
    }
    return opens;
  }
}

/** Shared-memory cost charged by the block source, collected by the participant. */
export interface CostSink {
  debtUs: number;
}

export class ReadStreamParticipant implements Entity {
  readonly id: number;
  private readonly env: StreamEnv;
  private readonly index: number;
  private waiting = false;
  private done = false;
  private readonly consumeUs: number;
  private readonly jitter: CpuJitter;
  /** Buffers pinned as hits while another backend's read of them was in flight: when each becomes valid. */
  private readonly hitValidAt = new Map<number, number>();
  /** The time the stream is being called at (its env callbacks run then). */
  private streamNowUs = 0;
  /** When the data of the last read was in the page cache: its reader's CPU work starts then. */
  private readyUs = 0;
  /** A bitmap heap scan's Bitmap Index Scan, run before the first buffer (bitmap-index-scan.ts), if modelled. */
  indexScan: BitmapIndexScan | null = null;

  constructor(
    private readonly ctx: ScanRunCtx,
    private readonly stream: ReadStreamPort,
    private readonly opens: OpenFiles,
    private readonly ring: BufferRing | null,
    private readonly costs: CostSink,
    ioWorkers: IoWorkers | null,
    role: "leader" | "worker",
    /** A bitmap heap scan's stream: its pages' tuples cost bitmapPageWorkUs (the stream carries no match count, so every tuple of the page counts, as for the page work). */
    bitmap = false,
  ) {
    this.id = ctx.scheduler.add(this);
    this.index = ctx.stats.perParticipant.length;
    ctx.stats.perParticipant.push({ blocks: 0, claims: 0, role });
    const cpu = ctx.machine.cpu;
    const tuples = ctx.table.tuplesPerPage;
    this.consumeUs =
      cpu.sharedBufferHitUs + (bitmap ? bitmapPageWorkUs(cpu, tuples) : pageWorkUs(cpu, tuples));
    this.jitter = new CpuJitter(ctx.seed + this.id, cpu.jitter);
    const sb = ctx.machine.sharedBuffers;
    const table = ctx.table;
    const self = this;
    const viaRing = ring !== null;
    this.env = {
      // StartReadBuffers' lookup: a resident buffer is pinned now (a hit: usage
      // count raised, through the ring's rule if any); if another backend's read
      // of it is still in progress, the consumer waits for it (WaitIO).
      isBuffered: (block) => {
        if (!sb.isResident(table.index, block)) return false;
        const valid = sb.hit(table.index, block, viaRing);
        // Only a buffer still being read can make the consumer wait: it consumes at or after now.
        if (valid > self.streamNowUs) self.hitValidAt.set(block, valid);
        ctx.stats.sharedHits++;
        return true;
      },
      startRead(io: StreamIo, nowUs: number): number | null {
        if (io.advise)
          costs.debtUs += adviseBlocks(
            ctx,
            self.opens,
            io.firstBlock,
            io.blocks,
            nowUs,
            cpu.fadviseUs,
            cpu.readSyscallUs,
          );
        if (!io.async) return null;
        // The copy of an asynchronous read is not this backend's CPU. With io_uring it is the
        // kernel's: no CPU-sharing factor.
        if (ioWorkers === null) return self.read(io, self.opens, nowUs, 1);
        // An idle worker sleeps on its latch and must be woken; a busy one takes the read from the queue when done.
        // Its CPU work shares the cores with every backend and every other busy worker.
        const w = ioWorkers.pick(nowUs);
        const freeAt = ioWorkers.freeAt(w);
        const startUs = freeAt <= nowUs ? nowUs + cpu.wakeUpUs : freeAt;
        const files = ioWorkers.opens(w, ctx.table.index);
        const valid = self.read(io, files, nowUs, ioWorkers.cpuFactor(startUs), startUs - nowUs);
        ioWorkers.busy(w, self.readyUs, valid);
        return valid;
      },
      waitRead(io: StreamIo, nowUs: number): number {
        if (io.async) {
          const ready = io.readyAtUs ?? nowUs;
          // A backend that sleeps for an I/O worker's read is woken by the worker when it completes.
          return ioWorkers !== null && ready > nowUs ? ready + cpu.wakeUpUs : ready;
        }
        return self.read(io, self.opens, nowUs, ctx.cpuFactor(nowUs));
      },
    };
  }

  /**
   * The preadv of a stream I/O on `files`: the OS read, then the copy's CPU
   * (times `cpuFactor`); the buffers are valid, and installed, from then on.
   * `queuedUs`: how long the read waited for an I/O worker before it began.
   */
  private read(io: StreamIo, files: OpenFiles, nowUs: number, cpuFactor: number, queuedUs = 0): number {
    const ctx = this.ctx;
    const cpu = ctx.machine.cpu;
    const submitted = ctx.machine.os.submittedPages;
    // A read queued behind a busy I/O worker starts late, and so does everything after it. The OS
    // and device see it when it was queued (their clocks only move forward).
    const ready = osBlocks(ctx, files, io.firstBlock, io.blocks, nowUs, false) + queuedUs;
    this.readyUs = ready;
    let valid = ready + preadUs(cpu, io.blocks * BLOCK_BYTES) * cpuFactor;
    // The page-cache fill is the reading process's CPU, as the copy is (an I/O worker's for io_method worker).
    if (cpu.fillUsPerPage > 0) valid += fillUs(cpu, ctx.machine.os.submittedPages - submitted) * cpuFactor;
    // A buffer's first use faults its memory in as the read fills it: the reader's CPU. Other
    // backends see the buffers valid before that fault time (at most one read's faults early).
    const firstUses = ctx.machine.sharedBuffers.installRun(
      ctx.table.index,
      io.firstBlock,
      io.blocks,
      this.ring,
      valid,
    );
    valid += firstUses * cpu.bufferFirstUseUs * cpuFactor;
    ctx.stats.osBlocks += io.blocks;
    return valid;
  }

  start(nowUs: number): void {
    this.ctx.scheduler.schedule(this.id, nowUs);
  }

  fire(nowUs: number): void {
    if (this.done) return;
    const ctx = this.ctx;
    let t = nowUs;
    if (this.indexScan !== null) {
      const from = indexScanFirst(this.indexScan, ctx, this.id, t, () => {
        this.indexScan = null;
      });
      if (from === null) return;
      t = from;
    }
    for (;;) {
      this.streamNowUs = t;
      const step: StreamStep | null = this.waiting
        ? this.stream.resume(t, this.env)
        : this.stream.nextBuffer(t, this.env);
      if (step === null) {
        this.done = true;
        ctx.participantDone(t + this.costs.debtUs);
        this.costs.debtUs = 0;
        return;
      }
      if (step.kind === "wait") {
        this.waiting = true;
        const until = step.untilUs;
        if (ctx.scheduler.canContinue(until)) {
          ctx.scheduler.advanceTo(until);
          t = until;
          continue;
        }
        ctx.scheduler.schedule(this.id, until);
        return;
      }
      this.waiting = false;
      if (this.hitValidAt.size > 0) {
        const valid = this.hitValidAt.get(step.block);
        if (valid !== undefined) {
          this.hitValidAt.delete(step.block);
          if (valid > t) t = valid;
        }
      }
      t += this.costs.debtUs + this.consumeUs * ctx.cpuFactor(t) * this.jitter.factor(1);
      this.costs.debtUs = 0;
      ctx.stats.blocks++;
      ctx.stats.perParticipant[this.index]!.blocks++;
      if (ctx.scheduler.canContinue(t)) {
        ctx.scheduler.advanceTo(t);
        continue;
      }
      ctx.scheduler.schedule(this.id, t);
      return;
    }
  }
}
