/**
 * The warp: skipping the steady middle of long scans.
 *
 * T3 scans an 800 GB table six times at once, for three simulated hours; in
 * the middle of those scans nothing changes from one gigabyte to the next.
 * Every client runs at the same rate, the device moves the same bytes per
 * second, the same share of blocks is found in shared buffers. Simulating
 * each readahead window of that stretch costs minutes and teaches nothing the
 * first few seconds of it did not. So the engine measures the stretch, checks
 * that it is steady, and then cuts the rest of it out of the table.
 *
 * The story of one cut:
 *
 * 1. Measure. Every 1024 steps the warp samples each running scan's blocks
 *    processed, and the machine's counters. Once every scan has advanced a
 *    window's worth since the last kept sample (256 MB), the sample is kept.
 *    The last three kept samples make two windows; the first two windows
 *    after the runs in flight change (start-up, a cut) are never used.
 *
 * 2. Check. The cut is allowed only when (a) every scan in flight is one whose
 *    state the warp can renumber (sequential scans before PG17: a serial
 *    backend, a chunked or a striding parallel scan; a serial PG13-17 bitmap
 *    heap scan, alone; not read streams, not parallel bitmap scans), all on
 *    one table, and every client has started;
 *    (b) each scan ran at the same rate in both windows, and all scans ran at
 *    the same rate, within {@link STEADY_TOLERANCE}: they move in step, so
 *    skipping a stretch skips no drift between them (the mechanism behind
 *    T3's sync-scan penalty is such a drift, and is never skipped over);
 *    (c) the device moved the same bytes per second in both windows.
 *
 * 3. Choose the stretch. Whole segment files, starting at the first segment
 *    boundary past the leading scan's frontier (the next block any scan
 *    would claim), ending early enough that every scan still has, after it,
 *    its own tail (PG14's ramp-down zone less its first halving, which a
 *    cut may cross), plus the spread between the scans, plus a window, and
 *    the table as long as the allocator needs (PG14's unsigned ramp-down
 *    threshold: seam/adapters.ts warpLimits). Nothing of the stretch may be in
 *    shared buffers. Pages ahead of the scans (in the stretch, and after it
 *    up to the leading scan's end) still in the page cache from earlier, a
 *    previous run's, must be ones the skipped reads would have pushed out
 *    (least recently used first) before the scans got to them; they are
 *    dropped. If one would still be there, there is no cut: a cut cannot
 *    tell what a hit inside the stretch would have changed.
 *
 * 4. Cut. The table loses those blocks; every piece of state after them is
 *    renumbered down (page-cache files, shared-buffer tags, each scan's
 *    allocator and start block, the processes' open files and positions, the
 *    syncscan location; a bitmap scan's bitmap and both its iterators). The
 *    machine is then exactly in the state of a machine scanning a shorter
 *    table, with every scan as far from its end as before less the stretch.
 *    Each scan is credited with the stretch's blocks (a bitmap scan: its
 *    pages there), and the clock with the time they take at the measured
 *    rate; every other counter (shared-buffer hits, device reads and bytes,
 *    busy time) grows by its measured rate over that time. Claims are whole
 *    chunks, too rare in a window to count when chunks are large: the
 *    stretch is credited one claim per chunk (twice as many past a halving
 *    it crosses), and the cache line's operations per claim. The rest of the
 *    page cache is left as it is: the pages the scans read before the
 *    stretch stand for the stretch's own (nobody reads either again), with
 *    the same room taken and older ages, so later reads evict as real ones
 *    would. Reported times (run starts and durations, the
 *    time series, the simulated total) include the skipped time; the event
 *    loop's own clock does not.
 *
 * 5. Restore. A run that starts while a cut is outstanding (a pgbench client
 *    starting its next run) must see the whole table. Before it starts, the
 *    cut blocks come back where they were, behind every scan in flight (the
 *    margin of step 3 guarantees they have all passed the cut: the first
 *    scan to end has come that far, and the others are in step behind it),
 *    so their counters move by the stretch's length. Their pages come back
 *    into the page cache as the skipped reads left them: all of them, aged as
 *    of the moment every process had read past the cut (younger than
 *    everything read before it, older than nearly everything after), and
 *    then, once every stretch is back, the least recently used pages over
 *    capacity go. What remains is what a real cache would hold: the
 *    stretch's last pages if there was room, all of it if the table fits,
 *    none if much was read since.
 *
 * What a cut changes in results: the skipped stretch's time and counters are
 * extrapolated from the two windows before it instead of simulated. The
 * tests hold warped and exact runs of the same scenario within a few tenths
 * of a percent. `simulate(..., { exact: true })` turns the warp off.
 */

import type { RunInFlight, RunObserver } from "../loop/run-observer.js";
import type { Scheduler } from "../loop/scheduler.js";
import type { TableRt } from "../pg/machine.js";
import { segmentFileId } from "../pg/machine.js";
import type { OpenFiles, RunStats } from "../pg/scan-run.js";
import type { SharedLine } from "../pg/shared-memory.js";
import { renumberBuffers, type SharedBuffers } from "../seam/buffer-manager.js";
import type { OsCounters, OsPort, Renumbering, SyncScanPort, WarpLimits } from "../seam/ports.js";
import { cutStretch, renumberSegment, restoreStretch } from "../seam/shared-leaf.js";
import { warpRunOf } from "./warp-run.js";

/**
 * Rates must agree within 1% (window to window, scan to scan). Our choice: the
 * jitter of per-block CPU time (pg/cpu-jitter.ts) moves a 256 MB window's rate
 * by far less, and a real drift between clients of more than 1% over two
 * windows is what the warp must not skip.
 */
export const STEADY_TOLERANCE = 0.01;
/**
 * A window, in blocks per scan: 256 MB (our choice: a thousand 128 kB
 * readahead windows and several allocator rounds of 11 processes with
 * 8192-block chunks; a window that is not steady only delays the cut to the
 * next one). It is also the slack a cut leaves for scans that drift apart
 * by up to the tolerance after it.
 */
const WINDOW_BLOCKS = 32_768;

/** A run in flight, as the warp sees it. */
export interface WarpRun {
  readonly table: TableRt;
  readonly stats: RunStats;
  readonly line: SharedLine;
  /** False when the run holds state the warp cannot renumber (read streams, parallel bitmap scans). */
  readonly warpable: boolean;
  /** What its allocation forbids a cut: a tail of its path (ramp-down still to come), a table shorter than some size. */
  limits(): WarpLimits;
  /**
   * Counter-space position (block = (counter + startBlock) mod nblocks), or
   * null before the start; `end`, when given, is where the scan's path ends
   * in counter space (a bitmap's last page + 1; default nblocks).
   */
  position(): { counter: number; startBlock: number; nblocks: number; end?: number } | null;
  /** The lowest counter value a process of the run still has to read (claimed, not yet read). */
  lowestPending(): number;
  /** Renumbers the run's allocator and processes (each model moves its own counters). */
  renumber(change: Renumbering): void;
  /**
   * Blocks the run processes in blocks [at, at + blocks) (a bitmap scan: its
   * pages there); absent: all of them. A run that has it is cut only alone.
   */
  blocksIn?(at: number, blocks: number): number;
}

/** What the warp did, for results. */
export interface WarpSummary {
  /** Stretches cut out of tables. */
  cuts: number;
  /** Stretches put back before a new run started. */
  restores: number;
  /** Blocks credited to runs without being simulated (summed over runs). */
  skippedBlocks: number;
  /** Simulated seconds credited without being simulated. */
  skippedS: number;
}

interface Sample {
  t: number;
  runs: WarpRun[];
  blocks: number[];
  claims: number[];
  sharedHits: number[];
  osBlocks: number[];
  perBlocks: number[][];
  lineOps: number[];
  lineBusy: number[];
  lineWait: number[];
  os: OsCounters;
  sbHits: number;
  sbMisses: number;
  sbEvictions: number;
}

/** What a run was credited with by cuts (claims, its cache line's figures). */
interface Credits {
  claims: number;
  ops: number;
  busyUs: number;
  waitUs: number;
}

interface Cut {
  table: TableRt;
  at: number;
  blocks: number;
  /**
   * The page cache's LRU epoch when the last scan passed the cut (null
   * until then): the age its pages come back with, younger than every page
   * read before the stretch, older than those after.
   */
  epoch: number | null;
}

/**
 * The warp of one simulation (see the header). A run observer of the loop
 * (loop/run-observer.ts): it hears of every client, run and poll, and keeps
 * its own books of what it must renumber.
 */
export class Warp implements RunObserver {
  /** Runs in flight, in the order they started. */
  private readonly runs = new Set<WarpRun>();
  /** Each run in flight's view. */
  private readonly views = new Map<RunInFlight, WarpRun>();
  /** Open-file maps of processes that hold files of a table: leaders (kept across runs) and running workers. */
  private readonly openMaps = new Map<OpenFiles, TableRt>();
  /** Clients that have not started their first run yet. */
  private pendingClients = 0;
  private cutCount = 0;
  private restoreCount = 0;
  private skippedBlocks = 0;
  private samples: Sample[] = [];
  /** What each run was credited with so far (a run is here once a cut credited it). */
  private readonly creditsOf = new WeakMap<WarpRun, Credits>();
  private readonly cuts: Cut[] = [];

  constructor(
    private readonly enabled: boolean,
    private readonly scheduler: Scheduler,
    private readonly sharedBuffers: SharedBuffers,
    private readonly os: OsPort,
    private readonly syncscan: SyncScanPort,
  ) {}

  /** What the warp did, for results. */
  summary(): WarpSummary {
    return {
      cuts: this.cutCount,
      restores: this.restoreCount,
      skippedBlocks: this.skippedBlocks,
      skippedS: this.scheduler.skippedUs / 1e6,
    };
  }

  /** Whether this machine can be warped at all (its OS and syncscan support renumbering). */
  get possible(): boolean {
    return this.enabled && this.os.warp !== undefined && this.syncscan.renumber !== undefined;
  }

  /* The loop's events (loop/run-observer.ts). */

  clientAdded(leaderOpens: OpenFiles, table: TableRt): void {
    this.openMaps.set(leaderOpens, table);
    this.pendingClients++;
  }

  clientStarted(): void {
    this.pendingClients--;
  }

  /** Before a run starts: every outstanding cut comes back (see the header, 5). */
  runStarting(nowUs: number): void {
    this.restoreCuts(nowUs);
  }

  runStarted(run: RunInFlight): void {
    for (const o of run.workerOpens) this.openMaps.set(o, run.table);
    const view = warpRunOf(run);
    this.views.set(run, view);
    this.runs.add(view);
  }

  runEnded(run: RunInFlight): void {
    const view = this.views.get(run);
    this.views.delete(run);
    if (view !== undefined) this.runs.delete(view);
    for (const o of run.workerOpens) this.openMaps.delete(o);
  }

  /** The loop's poll: every 1024 steps, between two steps (an observer only when {@link Warp.possible}). */
  poll(nowUs: number): void {
    if (this.cuts.length > 0) this.dateCuts();
    if (this.runs.size === 0 || this.pendingClients > 0) {
      this.samples.length = 0;
      return;
    }
    const runs = [...this.runs];
    const table = runs[0]!.table;
    for (const r of runs) {
      if (!r.warpable || r.table !== table || (r.blocksIn !== undefined && runs.length > 1)) {
        this.samples.length = 0;
        return;
      }
    }
    const last = this.samples[this.samples.length - 1];
    if (last !== undefined) {
      if (!sameRuns(last.runs, runs)) this.samples.length = 0;
      else {
        for (let i = 0; i < runs.length; i++)
          if (runs[i]!.stats.blocks - last.blocks[i]! < WINDOW_BLOCKS) return;
      }
    }
    this.samples.push(this.sample(nowUs, runs));
    // Five samples: the first two windows (start-up, or right after a cut) are never measured.
    if (this.samples.length > 5) this.samples.shift();
    if (this.samples.length === 5 && this.tryCut(nowUs, runs, table)) this.samples.length = 0;
  }

  /**
   * Gives the cuts that every process has now read past (not only claimed
   * past) the page cache's epoch of that moment.
   */
  private dateCuts(): void {
    for (const cut of this.cuts) {
      if (cut.epoch !== null) continue;
      let passed = true;
      for (const r of this.runs) {
        if (r.table !== cut.table) continue;
        const pos = r.position();
        if (pos === null || pathOffset(pos, cut.at) >= r.lowestPending()) passed = false;
      }
      if (passed) cut.epoch = this.os.warp!.epochNow();
    }
  }

  /** Every outstanding cut comes back, behind the scans in flight (see the header, 5). */
  private restoreCuts(nowUs: number): void {
    if (this.cuts.length === 0) return;
    this.dateCuts();
    while (this.cuts.length > 0) {
      const { table, at, blocks, epoch } = this.cuts.pop()!;
      for (const r of this.runs) {
        if (r.table !== table) continue;
        const pos = r.position();
        // A run credited with a cut must have passed it.
        if (this.creditsOf.has(r) && !(pos !== null && pathOffset(pos, at) < pos.counter))
          throw new Error(`warp: a run credited with a cut has not passed block ${at} when a new run starts`);
      }
      this.apply(table, restoreStretch(table.index, table.nblocks, at, blocks));
      const seg = table.segmentBlocks;
      this.os.warp!.restoreAged(
        table.index,
        at / seg,
        (at + blocks) / seg,
        epoch ?? this.os.warp!.epochNow(),
      );
      this.restoreCount++;
    }
    // Only once every stretch is back: what goes is the oldest of everything.
    this.os.warp!.evictOverfull(nowUs);
    this.samples.length = 0;
  }

  private sample(t: number, runs: WarpRun[]): Sample {
    return {
      t,
      runs,
      blocks: runs.map((r) => r.stats.blocks),
      claims: runs.map((r) => r.stats.claims),
      sharedHits: runs.map((r) => r.stats.sharedHits),
      osBlocks: runs.map((r) => r.stats.osBlocks),
      perBlocks: runs.map((r) => r.stats.perParticipant.map((p) => p.blocks)),
      lineOps: runs.map((r) => r.line.ops),
      lineBusy: runs.map((r) => r.line.busyUs),
      lineWait: runs.map((r) => r.line.waitUs),
      os: this.os.warp!.counters(),
      sbHits: this.sharedBuffers.hits,
      sbMisses: this.sharedBuffers.misses,
      sbEvictions: this.sharedBuffers.evictions,
    };
  }

  private credits(r: WarpRun): Credits {
    let c = this.creditsOf.get(r);
    if (c === undefined) {
      c = { claims: 0, ops: 0, busyUs: 0, waitUs: 0 };
      this.creditsOf.set(r, c);
    }
    return c;
  }

  /** Steps 2-4 of the header; true when a stretch was cut. */
  private tryCut(nowUs: number, runs: WarpRun[], table: TableRt): boolean {
    const [, , s0, s1, s2] = this.samples as [Sample, Sample, Sample, Sample, Sample];
    const d1 = s1.t - s0.t;
    const d2 = s2.t - s1.t;
    if (!(d1 > 0 && d2 > 0)) return false;
    let minRate = Number.POSITIVE_INFINITY;
    let maxRate = 0;
    let sumRate = 0;
    for (let i = 0; i < runs.length; i++) {
      const r1 = (s1.blocks[i]! - s0.blocks[i]!) / d1;
      const r2 = (s2.blocks[i]! - s1.blocks[i]!) / d2;
      if (Math.abs(r2 - r1) > STEADY_TOLERANCE * Math.max(r1, r2)) return false;
      const r = (s2.blocks[i]! - s0.blocks[i]!) / (d1 + d2);
      minRate = Math.min(minRate, r);
      maxRate = Math.max(maxRate, r);
      sumRate += r;
    }
    if (!(minRate > 0) || maxRate > minRate * (1 + STEADY_TOLERANCE)) return false;
    const dev1 = (s1.os.deviceBytes - s0.os.deviceBytes) / d1;
    const dev2 = (s2.os.deviceBytes - s1.os.deviceBytes) / d2;
    if (Math.abs(dev2 - dev1) > STEADY_TOLERANCE * Math.max(dev1, dev2)) return false;
    const rate = sumRate / runs.length;

    // Step 3: the stretch.
    const n = table.nblocks;
    const seg = table.segmentBlocks;
    const fullEnd = Math.floor(n / seg) * seg;
    const frontiers: number[] = [];
    const remaining: number[] = [];
    const starts: number[] = [];
    for (const r of runs) {
      const pos = r.position();
      const end = pos?.end ?? n;
      if (pos === null || pos.nblocks !== n || pos.counter >= end) return false;
      frontiers.push((pos.startBlock + pos.counter) % n);
      remaining.push(end - pos.counter);
      starts.push(pos.startBlock);
    }
    // The leading scan: the one the others are closest behind.
    let leader = 0;
    let spread = Number.POSITIVE_INFINITY;
    frontiers.forEach((f, i) => {
      let behind = 0;
      for (const g of frontiers) behind = Math.max(behind, (f - g + n) % n);
      if (behind < spread) {
        spread = behind;
        leader = i;
      }
    });
    const lead = frontiers[leader]!;
    let at = (Math.floor(lead / seg) + 1) * seg;
    if (at >= fullEnd) at = 0;
    const dist = frontiers.map((f) => (at - f + n) % n);
    const maxDist = Math.max(...dist);
    // The stretch fits on every scan's remaining path before its tail, and leaves the scan that
    // ends first enough to read after it for every other scan to pass the cut first (they move
    // in step), with a window to spare.
    let blocks = Math.min(fullEnd - at, Math.min(...remaining) - maxDist - WINDOW_BLOCKS);
    const limits = runs.map((r) => r.limits());
    for (let i = 0; i < runs.length; i++) {
      const { tailBlocks, minNblocks } = limits[i]!;
      blocks = Math.min(blocks, remaining[i]! - dist[i]! - tailBlocks, n - minNblocks);
    }
    // With an end time (`until`), the credited time stays within half of what is left, so the
    // run still ends by simulating, not inside a credit (half: our choice).
    const untilLeft = this.scheduler.remainingUs(nowUs);
    if (untilLeft < Number.POSITIVE_INFINITY) blocks = Math.min(blocks, Math.floor((untilLeft / 2) * rate));
    blocks -= blocks % seg;
    // Not worth a cut below two windows' worth (our choice).
    if (blocks < Math.max(2 * WINDOW_BLOCKS, seg)) return false;
    // Pages the scans have ahead of them (in the stretch, and after it up to the leading
    // scan's end) still cached from earlier, a previous run's: the skipped reads would have
    // pushed them out before the scans got there, or the stretch cannot be cut.
    const os = this.os.warp!;
    const endSeg = Math.ceil((starts[leader]! || n) / seg);
    const lastSeg = Math.ceil(n / seg);
    const beyondFrom = (at + blocks) / seg;
    const beyond: [number, number][] =
      endSeg > beyondFrom
        ? [[beyondFrom, endSeg]]
        : [
            [beyondFrom, lastSeg],
            [0, endSeg],
          ];
    if (!os.clearAhead(table.index, at / seg, beyondFrom, beyond, nowUs, true)) return false;
    if (this.sharedBuffers.firstResident(table.index, at, at + blocks) >= 0) return false;

    // Step 4: credit, then cut. What each scan processes in the stretch: its blocks (a bitmap
    // scan, alone: its pages there).
    const processed = runs[0]!.blocksIn?.(at, blocks) ?? blocks;
    const creditUs = processed / rate;
    const scale = creditUs / (s2.t - s0.t);
    runs.forEach((r, i) => {
      const st = r.stats;
      // Claims come in whole chunks, far apart when chunks are large (T3's 512 MB chunks: less
      // than one per scan in a window), so a window's count says little; in a steady stretch
      // each claim hands out one chunk, so the stretch takes its blocks over the chunk size
      // (a serial scan's one claim covers the whole table: none). Past a halving the cut
      // crosses (PG14's ramp-down), each block costs twice the claims.
      const { halvesBelow, blocksPerClaim } = limits[i]!;
      const below = Math.max(0, Math.min(processed, halvesBelow - (remaining[i]! - dist[i]! - processed)));
      const claims = blocksPerClaim > 0 ? Math.round((processed + below) / blocksPerClaim) : 0;
      const dClaims = s2.claims[i]! - s0.claims[i]!;
      const done = this.credits(r);
      // The cache line's operations, busy and waiting time: per claim (the windows', or the
      // run's) where claims drive it; a run that claims nothing (a serial scan's syncscan
      // reports) at the windows' rate in time.
      const simulatedClaims = st.claims - done.claims;
      const credit = (windowed: number, total: number, credited: number) =>
        claims > 0 && dClaims > 0
          ? (claims * windowed) / dClaims
          : claims > 0 && simulatedClaims > 0
            ? (claims * (total - credited)) / simulatedClaims
            : windowed * scale;
      const ops = Math.round(credit(s2.lineOps[i]! - s0.lineOps[i]!, r.line.ops, done.ops));
      const busyUs = credit(s2.lineBusy[i]! - s0.lineBusy[i]!, r.line.busyUs, done.busyUs);
      const waitUs = credit(s2.lineWait[i]! - s0.lineWait[i]!, r.line.waitUs, done.waitUs);
      done.claims += claims;
      done.ops += ops;
      done.busyUs += busyUs;
      done.waitUs += waitUs;
      st.blocks += processed;
      st.claims += claims;
      st.sharedHits += Math.round((s2.sharedHits[i]! - s0.sharedHits[i]!) * scale);
      st.osBlocks += Math.round((s2.osBlocks[i]! - s0.osBlocks[i]!) * scale);
      const per = st.perParticipant;
      const grew = per.map((_p, j) => Math.max(0, (s2.perBlocks[i]![j] ?? 0) - (s0.perBlocks[i]![j] ?? 0)));
      const total = grew.reduce((a, x) => a + x, 0);
      let given = 0;
      let givenClaims = 0;
      per.forEach((p, j) => {
        const last = j === per.length - 1;
        const part = total > 0 ? grew[j]! / total : 1 / per.length;
        const share = last ? processed - given : Math.floor(processed * part);
        p.blocks += share;
        given += share;
        // Claims as blocks: a participant's share of the stretch's blocks is its share of claims.
        const c = last ? claims - givenClaims : Math.round(claims * part);
        p.claims += c;
        givenClaims += c;
      });
      r.line.ops += ops;
      r.line.busyUs += busyUs;
      r.line.waitUs += waitUs;
    });
    const sb = this.sharedBuffers;
    sb.hits += Math.round((s2.sbHits - s0.sbHits) * scale);
    sb.misses += Math.round((s2.sbMisses - s0.sbMisses) * scale);
    sb.evictions += Math.round((s2.sbEvictions - s0.sbEvictions) * scale);
    const o0 = s0.os;
    const o2 = s2.os;
    os.credit(
      {
        deviceReads: Math.round((o2.deviceReads - o0.deviceReads) * scale),
        deviceBytes: Math.round((o2.deviceBytes - o0.deviceBytes) * scale),
        syncReads: Math.round((o2.syncReads - o0.syncReads) * scale),
        requestedBytes: Math.round((o2.requestedBytes - o0.requestedBytes) * scale),
        busyUs: (o2.busyUs - o0.busyUs) * scale,
        latencyUs: (o2.latencyUs - o0.latencyUs) * scale,
      },
      creditUs,
      nowUs,
    );
    os.clearAhead(table.index, at / seg, beyondFrom, beyond, nowUs, false);
    this.apply(table, cutStretch(table.index, table.nblocks, at, blocks));
    this.cuts.push({ table, at, blocks, epoch: null });
    this.scheduler.skip(creditUs);
    this.cutCount++;
    this.skippedBlocks += processed * runs.length;
    return true;
  }

  /** Renumbers every piece of state that names blocks or segments of the table. */
  private apply(table: TableRt, change: Renumbering): void {
    const seg = table.segmentBlocks;
    renumberBuffers(this.sharedBuffers, change);
    const os = this.os.warp!;
    os.renumberTable(change, seg);
    for (const [opens, t] of this.openMaps) {
      if (t.index !== change.relation) continue;
      const entries = [...opens];
      opens.clear();
      for (const [segment, of] of entries) {
        // A file of the cut stretch is closed (it holds nothing the scans need).
        if (os.renumberOpen(of, change, seg)) opens.set(renumberSegment(change, seg, segment), of);
      }
    }
    this.syncscan.renumber!(table.syncKey, change);
    for (const r of this.runs) if (r.table === table) r.renumber(change);
    table.nblocks = change.nblocks;
  }
}

/** How far along a scan's path (from its start block, wrapping) `block` lies. */
function pathOffset(pos: { startBlock: number; nblocks: number }, block: number): number {
  return (block - pos.startBlock + pos.nblocks) % pos.nblocks;
}

function sameRuns(a: WarpRun[], b: WarpRun[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
