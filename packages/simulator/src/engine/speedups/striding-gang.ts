/**
 * The processes of one parallel scan whose allocator hands out fixed-size
 * claims (PG 9.6's spinlock, PG11-13's atomic counter, the 2017 batching
 * patch), run as one entity so that long striding stretches do not cost one
 * heap event per 8 kB block.
 *
 * With one block per claim, N processes take turns on the shared counter and
 * each reads every N-th block (apps/docs/src/reference/parallel-block-allocation.md#spinlock-allocator, apps/docs/src/reference/parallel-block-allocation.md#atomic-counter): T4 hands out 107 M
 * blocks to 72 processes, T3's master 105 M blocks per query to 11. Each
 * claim is exact when something can happen: the gang always lets the process
 * with the earliest clock act next, through the very same step as a lone
 * SeqScanParticipant (claim, shared-memory line, shared buffers, the OS).
 *
 * Bulk emulation. When every process is between claims and the next blocks
 * to be handed out lie in a stretch that no reader can make the OS decide
 * anything about (the pages are present in the page cache with no readahead
 * marker and one readiness time, none is in shared buffers, no segment end,
 * wrap or end of scan inside), the gang emulates the claims in a tight loop:
 * earliest process first, FIFO on the shared line (wait for it, hold it for
 * the lock or atomic time), wait for the data's readiness, spend the block's
 * CPU. That is the same arithmetic the exact path performs, minus the lookups
 * that are known to find nothing. When the claims become periodic (every
 * process claimed once per round and two consecutive rounds moved every clock
 * by the same amount), whole rounds are skipped at once, up to the end of the
 * stretch. The allocator is then moved forward in one step (fastForward), and
 * each process's own state catches up lazily, before its next exact step: the
 * OS sees its last two reads (enough for Linux's prev_pos and FreeBSD's
 * sequential heuristic, which two non-sequential reads take to zero), its
 * ring keeps its last block, and the stretch is refreshed in the page-cache
 * LRU. Syncscan gets the stretch's last multiple of its report interval.
 *
 * Approximations, stated: within a stretch the gang may run ahead of other
 * queries' events in simulated time (nothing it does there is visible to them
 * except the LRU refresh and the syncscan report, which it makes at the
 * stretch's start); the ring holds each process's last block rather than its
 * last 32; the CPU-sharing factor is taken once per stretch.
 */

import type { Entity } from "../loop/scheduler.js";
import { fileIdOf, PAGES_PER_BLOCK } from "../pg/machine.js";
import { openSegment, type ScanRunCtx } from "../pg/scan-run.js";
import type { SeqScanParticipant } from "../pg/seqscan-participant.js";
import type { BufferRing } from "../seam/buffer-manager.js";
import type { Renumbering, ScanAllocation } from "../seam/ports.js";

/**
 * Relative tolerance for "two rounds moved every clock by the same amount": floating-point
 * rounding of sums of microsecond costs, not a model figure (far above double precision's
 * 1e-16 relative error, far below any real difference between rounds).
 */
const PERIOD_EPSILON = 1e-9;

export class StridingGang implements Entity {
  readonly id: number;
  private readonly n: number;
  private readonly clock: Float64Array;
  /** Blocks a process read in bulk since its last exact step: last and second-to-last (-1: none). */
  private readonly last1: Float64Array;
  private readonly last2: Float64Array;
  private readonly lastTime: Float64Array;
  private readonly bulkClaims: Float64Array;
  private readonly snap: Float64Array;
  private readonly perRound: Int32Array;
  /** Syncscan's report interval, in blocks (the syncscan port's). */
  private readonly reportEvery: number;
  private nextBulkTry = 0;
  private steps = 0;
  /** Claims emulated in bulk (for the benchmark). */
  emulatedClaims = 0;
  /** Claims skipped by periodic jumps (for the benchmark). */
  jumpedClaims = 0;

  constructor(
    private readonly ctx: ScanRunCtx,
    readonly members: SeqScanParticipant[],
    private readonly striding: NonNullable<ScanAllocation["striding"]>,
  ) {
    this.id = ctx.scheduler.add(this);
    this.n = members.length;
    this.clock = new Float64Array(this.n);
    this.last1 = new Float64Array(this.n).fill(-1);
    this.last2 = new Float64Array(this.n).fill(-1);
    this.lastTime = new Float64Array(this.n);
    this.bulkClaims = new Float64Array(this.n);
    this.snap = new Float64Array(this.n);
    this.perRound = new Int32Array(this.n);
    this.reportEvery = ctx.machine.syncscan.reportIntervalBlocks;
  }

  /** The table was renumbered under the scan (warp.ts): the blocks each process still has to replay move too. */
  renumber(change: Renumbering): void {
    for (let i = 0; i < this.n; i++) {
      if (this.last1[i]! >= 0) this.last1[i] = change.map(this.last1[i]!);
      if (this.last2[i]! >= 0) this.last2[i] = change.map(this.last2[i]!);
      this.members[i]!.renumber(change);
    }
  }

  /** Starts process i at `startTimes[i]`. */
  start(startTimes: readonly number[]): void {
    let first = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.n; i++) {
      this.clock[i] = startTimes[i]!;
      if (startTimes[i]! < first) first = startTimes[i]!;
    }
    this.ctx.scheduler.schedule(this.id, first);
  }

  fire(nowUs: number): void {
    const scheduler = this.ctx.scheduler;
    const members = this.members;
    const clock = this.clock;
    for (;;) {
      let k = -1;
      let t = Number.POSITIVE_INFINITY;
      for (let i = 0; i < this.n; i++) {
        if (clock[i]! < t) {
          t = clock[i]!;
          k = i;
        }
      }
      if (k < 0) return;
      if (t > nowUs && !scheduler.canContinue(t)) {
        scheduler.schedule(this.id, t);
        return;
      }
      scheduler.advanceTo(t);
      nowUs = t;
      if (this.steps >= this.nextBulkTry && this.tryBulk(t)) continue;
      this.flush(k);
      const next = members[k]!.step(t);
      clock[k] = next < 0 ? Number.POSITIVE_INFINITY : next;
      this.steps++;
    }
  }

  /** Brings process k's own state up to date with what it read in bulk. */
  private flush(k: number): void {
    const b1 = this.last1[k]!;
    if (b1 < 0) return;
    const m = this.members[k]!;
    const table = this.ctx.table;
    const t = this.lastTime[k]!;
    const b2 = this.last2[k]!;
    if (b2 >= 0) this.skipBlock(m, b2, t);
    this.skipBlock(m, b1, t);
    // After a periodic jump the ring holds the process's last block (the ones before passed through it).
    const sb = this.ctx.machine.sharedBuffers;
    if (!sb.isResident(table.index, b1)) sb.installRun(table.index, b1, 1, m.ring, t);
    const stats = this.ctx.stats.perParticipant[m.index]!;
    stats.blocks += this.bulkClaims[k]! * this.striding.claimBlocks;
    stats.claims += this.bulkClaims[k]!;
    this.bulkClaims[k] = 0;
    this.last1[k] = -1;
    this.last2[k] = -1;
  }

  /** Accounts one quiet 8 kB read of `block` by `m` in its open file's state (the bulk's `touch` counted it). */
  private skipBlock(m: SeqScanParticipant, block: number, t: number): void {
    const segBlocks = this.ctx.table.segmentBlocks;
    const seg = Math.floor(block / segBlocks);
    this.ctx.machine.os.skipQuiet(
      openSegment(this.ctx, m.opens, seg),
      (block - seg * segBlocks) * PAGES_PER_BLOCK,
      PAGES_PER_BLOCK,
      PAGES_PER_BLOCK,
      t,
      true,
    );
  }

  /** Emulates the claims of a quiet stretch (see the header); false when the stretch is not there. */
  private tryBulk(t: number): boolean {
    const ctx = this.ctx;
    const n = this.n;
    const members = this.members;
    for (let i = 0; i < n; i++) if (members[i]!.done) return false;
    // Bulk pays off only if the stretch can be long: with something else due within a few rounds,
    // the exact path is cheaper than setting up an emulation that stops at that event. Four rounds
    // is an engine speed choice of ours, not a model figure; results move with it only as far as the
    // bulk's stated approximations (the tests hold bulk within 1% of claim-by-claim processing).
    if (ctx.scheduler.nextEventUs() - t < 4 * n * members[0]!.missUs) return this.backOff();
    const pos = this.striding.position();
    if (pos === null) return false;
    const cb = this.striding.claimBlocks;
    const { counter, startBlock, nblocks } = pos;
    const b0 = (counter + startBlock) % nblocks;
    const table = ctx.table;
    const segStart = Math.floor(b0 / table.segmentBlocks) * table.segmentBlocks;
    const file = fileIdOf(table, segStart / table.segmentBlocks);
    let room = Math.min(
      nblocks - counter - 1,
      b0 >= startBlock ? nblocks - b0 - 1 : startBlock - b0 - 1,
      segStart + table.segmentBlocks - b0,
    );
    room -= room % cb;
    if (room < cb) return this.backOff();
    const os = ctx.machine.os;
    if (!os.cachedReadsAreQuiet) return this.backOff(1 << 30);
    const run = os.cacheRun(file, (b0 - segStart) * PAGES_PER_BLOCK, room * PAGES_PER_BLOCK, t);
    room = Math.min(room, Math.floor(run.pages / PAGES_PER_BLOCK));
    room -= room % cb;
    // The next claim needs the OS (a miss, a marker) or shared buffers: let one process
    // take it exactly, then try again right after it.
    if (room < cb) return this.backOff(1);

    // Processes that already hold a claim (they got the line and have not read yet) finish it
    // first, if it is quiet too; otherwise no bulk this time.
    const sb = ctx.machine.sharedBuffers;
    const osBlocksBefore = ctx.stats.osBlocks;
    const held: number[] = [];
    for (let i = 0; i < n; i++) {
      const m = members[i]!;
      if (m.remaining === 0) continue;
      const c = m.cur;
      const cSeg = Math.floor(c / table.segmentBlocks);
      if (cSeg * table.segmentBlocks !== segStart || c + m.remaining > segStart + table.segmentBlocks)
        return this.backOff();
      if (sb.firstResident(table.index, c, c + m.remaining) >= 0) return this.backOff();
      const r = os.cacheRun(file, (c - segStart) * PAGES_PER_BLOCK, m.remaining * PAGES_PER_BLOCK, t);
      if (r.pages < m.remaining * PAGES_PER_BLOCK) return this.backOff();
      held.push(i, r.readyAtUs);
    }
    const factor = ctx.cpuFactor();
    const missUs = members[0]!.missUs * factor;
    const hitUs = members[0]!.hitUs * factor;
    const firstUseUs = ctx.machine.cpu.bufferFirstUseUs * factor;
    const viaRing = members[0]!.ring !== null;
    // CPU of `blocks` blocks from `first`: a shared-buffer hit or a read from the page cache each.
    // Each block read from the page cache goes into the reader's ring, as in the exact path,
    // so that concurrent scans find it in shared buffers.
    // Returns when the process is done with the blocks, from `atUs` (when it has the claim).
    const readBlocks = (
      first: number,
      blocks: number,
      ring: BufferRing | null,
      atUs: number,
      osReadyUs: number,
    ): number => {
      let t = atUs;
      for (let b = first; b < first + blocks; b++) {
        if (sb.isResident(table.index, b)) {
          const valid = sb.hit(table.index, b, viaRing);
          ctx.stats.sharedHits++;
          t = (valid > t ? valid : t) + hitUs;
        } else {
          if (osReadyUs > t) t = osReadyUs;
          const firstUses = sb.installRun(table.index, b, 1, ring, t);
          ctx.stats.osBlocks++;
          t += missUs + firstUses * firstUseUs;
        }
      }
      return t;
    };
    for (let j = 0; j < held.length; j += 2) {
      const i = held[j]!;
      const m = members[i]!;
      const dataAt = Math.max(this.clock[i]!, held[j + 1]!);
      this.clock[i] = readBlocks(m.cur, m.remaining, m.ring, this.clock[i]!, held[j + 1]!);
      this.last2[i] = this.last1[i]!;
      this.last1[i] = m.cur + m.remaining - 1;
      this.lastTime[i] = dataAt;
      ctx.stats.blocks += m.remaining;
      ctx.stats.perParticipant[m.index]!.blocks += m.remaining;
      m.cur += m.remaining;
      m.remaining = 0;
    }

    // Flush pending syncscan reports (they belong to the blocks before the stretch).
    for (let i = 0; i < n; i++) {
      const m = members[i]!;
      if (m.pendingReport >= 0) {
        ctx.machine.syncscan.report(table.syncKey, m.pendingReport);
        m.pendingReport = -1;
      }
    }

    const hold = ctx.line.holdUs(this.striding.op);
    const ready = run.readyAtUs;
    const clock = this.clock;
    let lineFree = ctx.line.freeAtUs;
    let handed = 0;
    let claims = 0;
    let waitUs = 0;
    const snap = this.snap;
    const perRound = this.perRound;
    perRound.fill(0);
    snap.set(clock);
    let prevDelta = Number.NaN;
    let waitAtSnap = 0;
    // Other entities' next event: the emulation keeps global time order by stopping there.
    const horizon = ctx.scheduler.nextEventUs();
    const report = ctx.syncReport;
    while (handed + cb <= room) {
      let k = 0;
      let tk = clock[0]!;
      for (let i = 1; i < n; i++) {
        if (clock[i]! < tk) {
          tk = clock[i]!;
          k = i;
        }
      }
      if (tk >= horizon && claims > 0) break;
      const start = tk > lineFree ? tk : lineFree;
      waitUs += start - tk;
      lineFree = start + hold;
      const dataAt = lineFree > ready ? lineFree : ready;
      const first = b0 + handed;
      if (report) {
        const m16 = first + cb - 1 - ((first + cb - 1) % this.reportEvery);
        if (m16 >= first) ctx.machine.syncscan.report(table.syncKey, m16);
      }
      clock[k] = readBlocks(first, cb, members[k]!.ring, lineFree, ready);
      this.last2[k] = this.last1[k]!;
      this.last1[k] = b0 + handed + cb - 1;
      this.lastTime[k] = dataAt;
      this.bulkClaims[k]!++;
      perRound[k]!++;
      handed += cb;
      claims++;
      if (claims % n === 0) {
        // A round: did every process claim once, and did every clock move by the same amount as last round?
        let periodic = true;
        const d0 = clock[0]! - snap[0]!;
        for (let i = 0; i < n; i++) {
          if (perRound[i] !== 1 || Math.abs(clock[i]! - snap[i]! - d0) > PERIOD_EPSILON * d0)
            periodic = false;
        }
        if (periodic && Math.abs(d0 - prevDelta) <= PERIOD_EPSILON * d0) {
          let rounds = Math.floor((room - handed) / (n * cb)) - 1;
          // ... and only up to the next event of anything else.
          let latest = 0;
          for (let i = 0; i < n; i++) if (clock[i]! > latest) latest = clock[i]!;
          if (horizon < Number.POSITIVE_INFINITY)
            rounds = Math.min(rounds, Math.floor((horizon - latest) / d0));
          // Periodic rounds cost the same only if none of their blocks is in shared buffers.
          const hit =
            rounds > 0 ? sb.firstResident(table.index, b0 + handed, b0 + handed + rounds * n * cb) : -1;
          if (hit >= 0) rounds = Math.floor((hit - b0 - handed) / (n * cb));
          if (rounds > 0) {
            const roundWait = waitUs - waitAtSnap;
            const shiftBlocks = rounds * n * cb;
            for (let i = 0; i < n; i++) {
              clock[i]! += rounds * d0;
              this.last1[i]! += shiftBlocks;
              if (this.last2[i]! >= 0) this.last2[i]! += shiftBlocks;
              this.lastTime[i]! += rounds * d0;
              this.bulkClaims[i]! += rounds;
            }
            lineFree += rounds * d0;
            waitUs += rounds * roundWait;
            handed += shiftBlocks;
            claims += rounds * n;
            this.jumpedClaims += rounds * n;
            ctx.stats.osBlocks += shiftBlocks;
            if (report) {
              const last = b0 + handed - 1;
              ctx.machine.syncscan.report(table.syncKey, last - (last % this.reportEvery));
            }
          }
        }
        prevDelta = d0;
        snap.set(clock);
        perRound.fill(0);
        waitAtSnap = waitUs;
      }
    }
    this.emulatedClaims += claims;
    this.striding.fastForward(handed);
    ctx.line.addBulk(claims, hold, waitUs, lineFree);
    ctx.stats.blocks += handed;
    ctx.stats.claims += claims;
    os.touch(
      file,
      (b0 - segStart) * PAGES_PER_BLOCK,
      handed * PAGES_PER_BLOCK,
      (ctx.stats.osBlocks - osBlocksBefore) * PAGES_PER_BLOCK,
    );
    return true;
  }

  private backOff(steps = this.n): boolean {
    this.nextBulkTry = this.steps + steps;
    return false;
  }
}
