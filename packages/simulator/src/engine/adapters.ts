/**
 * The seam between the engine and the model packages: each port of
 * `ports.ts` bound to the real implementation.
 *
 * - Device: @scanlab/device-profiles `createDeviceModel`, by built-in name or
 *   inline profile. Tables are laid out one after another on the device, each
 *   segment file contiguous (1 GB apart), so offsets mean something to RAID
 *   striping and disk seeks.
 * - OS: one @scanlab/readahead `PageCache` for the machine (capacity = RAM
 *   minus shared_buffers) and the readahead model of the scenario's OS. Linux
 *   takes read_ahead_kb from the scenario, else from the device (6.10:
 *   max(2 x io_opt, 128 kB); 5.4: 128 kB, or that for md raid0; apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0),
 *   and max_sectors_kb from the device's largest I/O. osOptions.fadvise is
 *   applied to every file as it is opened.
 * - Allocation: @scanlab/block-allocator `createParallelScan`, the policy
 *   from the scenario or PostgreSQL's for the version (9.6: one block under a
 *   spinlock; 11-13: one block per atomic; 14+: chunks).
 * - Syncscan: @scanlab/syncscan `InProcessSyncScanTracker`.
 */
import {
  type AllocatorPolicy,
  createParallelScan,
  INVALID_BLOCK,
  MUNRO2020_RAMPDOWN_CHUNKS,
  type Participant,
  type ResolvedPolicy,
  resolvePolicy,
} from "@scanlab/block-allocator";
import {
  createDeviceModel,
  type DeviceModel,
  type DeviceProfile,
  getBuiltinProfile,
  LINUX_DEFAULT_READ_AHEAD_KB,
  parseDeviceProfile,
  throughputAt,
} from "@scanlab/device-profiles";
import {
  createReadaheadModel,
  type OpenFile,
  PAGE_BYTES,
  PageCache,
  type ReadaheadModel,
} from "@scanlab/readahead";
import { renameOpenFile } from "@scanlab/readahead/sim";
import { InProcessSyncScanTracker } from "@scanlab/syncscan";
import { ScenarioError } from "../errors.js";
import { type OsModel, osModel } from "../scenario/os-model.js";
import { pgModel } from "../scenario/pg-model.js";
import type { ResolvedScenario } from "../scenario/resolve.js";
import type { AllocatorSpec, QuerySpec } from "../scenario/schema.js";
import { BLOCK_BYTES } from "../units.js";
import { PAGES_PER_BLOCK, segmentFileId } from "./machine.js";
import type { AdaptiveInputs } from "./participants.js";
import type { OsPort, ScanAllocation, SyncScanPort, WarpLimits } from "./ports.js";
import type { BuiltOs, ModelFactories, OsStats } from "./simulate.js";
import { BucketSeries } from "./time-series.js";

/** RELSEG_SIZE x BLCKSZ: PostgreSQL's 1 GB segment files (apps/docs/src/reference/index.md#block-size-and-units; apps/docs/src/reference/os-readahead-policies.md#per-open-state-and-a-shared-cache). */
const SEGMENT_ALIGN_BYTES = 1024 ** 3;

/** A device profile from a scenario's `machine.device` (a built-in name or an inline profile). */
export function resolveDeviceProfile(device: string | Record<string, unknown>): DeviceProfile {
  if (typeof device === "string") return getBuiltinProfile(device);
  return parseDeviceProfile(device, "scenario machine.device");
}

const sequentialRates = new Map<string, number>();

/**
 * A device's deep-queue sequential read rate in bytes per second (QD32,
 * 128 KiB reads: the datasheets' convention), from a short closed-loop run of
 * its model; memoized per device. For estimates of a scan's length
 * (work-estimate.ts), not for simulated figures.
 */
export function deviceSequentialBytesPerS(device: string | Record<string, unknown>): number {
  const key = typeof device === "string" ? device : JSON.stringify(device);
  let rate = sequentialRates.get(key);
  if (rate === undefined) {
    rate = throughputAt(resolveDeviceProfile(device), {
      queueDepth: 32,
      requestBytes: 128 * 1024,
      pattern: "sequential",
    }).bytesPerSecond;
    // A memory bound of ours (a sweep names a handful of devices), not a model figure.
    if (sequentialRates.size > 64) sequentialRates.clear();
    sequentialRates.set(key, rate);
  }
  return rate;
}

/** PostgreSQL's allocator for a version when the scenario does not choose one (its allocator model, pg-model.ts). */
export function defaultAllocator(pg: QuerySpec["pg"]): AllocatorSpec {
  return { kind: pgModel(pg).allocator };
}

/**
 * The read_ahead_kb Linux gives the device when the scenario does not set it.
 * From ~5.9 the block layer sets max(2 x io_opt, 128 kB) for every device
 * (`disk_update_readahead`; apps/docs/src/reference/linux-readahead-window.md#readahead-parameters, apps/docs/src/reference/linux-readahead-window.md#version-table; apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0 "later
 * kernels"), which is the device model's `readAheadKbDefault`. Before that only
 * md raid0 enlarged it, to max(128 kB, 2 x disks x chunk) = max(2 x io_opt,
 * 128 kB) (`raid0_run()`; apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0 "kernels before ~5.9"); any other
 * device kept the 128 kB default (`VM_READAHEAD_PAGES`) whatever io_opt it reports.
 */
function linuxDefaultReadAheadKb(os: OsModel, device: DeviceModel): number {
  if (os.defaultReadAhead === "128kB" && device.kind !== "raid0") return LINUX_DEFAULT_READ_AHEAD_KB;
  return device.readAheadKbDefault;
}

function buildOs(resolved: ResolvedScenario, capacityPages: number): BuiltOs {
  const m = resolved.scenario.machine;
  const profile = resolveDeviceProfile(m.device);
  const device = createDeviceModel(profile, { seed: resolved.scenario.seed });
  const cache = new PageCache({ capacityPages });
  const opts = m.osOptions;
  const overrides: Record<string, unknown> = {};
  const os = osModel(m.os);
  if (os === null)
    throw new ScenarioError(`machine.os ${JSON.stringify(m.os)} is not an OS this simulator models.`);
  if (m.os.startsWith("linux")) {
    overrides.readAheadKb = opts.readAheadKb ?? linuxDefaultReadAheadKb(os, device);
    overrides.maxSectorsKb = opts.maxSectorsKb ?? Math.floor(device.maxIoBytes / 1024);
  } else if (m.os.startsWith("freebsd")) {
    Object.assign(overrides, opts.freebsd ?? {});
    overrides.deviceMaxIoBytes = device.maxIoBytes;
  } else if (m.os === "windows") {
    Object.assign(overrides, opts.windows ?? {});
  }
  const model: ReadaheadModel = createReadaheadModel(cache, os.preset, overrides);

  // Device layout: table after table, each segment file at a 1 GB boundary.
  const fileSizePages = new Map<number, number>();
  const fileBaseBytes = new Map<number, number>();
  const layOut = (ti: number, nblocks: number, segmentBlocks: number, base: number, stride: number) => {
    const segments = Math.max(1, Math.ceil(nblocks / segmentBlocks));
    for (let s = 0; s < segments; s++) {
      const blocks = Math.min(segmentBlocks, nblocks - s * segmentBlocks);
      fileSizePages.set(segmentFileId(ti, s), Math.max(0, blocks) * PAGES_PER_BLOCK);
      fileBaseBytes.set(segmentFileId(ti, s), base + s * stride);
    }
    return segments;
  };
  const tableBase: number[] = [];
  const tableStride: number[] = [];
  let base = 0;
  resolved.tables.forEach((t, ti) => {
    const segBytes = t.segmentBlocks * BLOCK_BYTES;
    const segStride = Math.ceil(segBytes / SEGMENT_ALIGN_BYTES) * SEGMENT_ALIGN_BYTES;
    tableBase.push(base);
    tableStride.push(segStride);
    base += layOut(ti, t.nblocks, t.segmentBlocks, base, segStride) * segStride;
  });

  const series = new BucketSeries();
  let now = 0;
  /** Simulated time the warp skipped so far: series points are placed at reported time. */
  let skippedUs = 0;
  const device0 = { busyUs: 0, latencyUs: 0, spanUs: 0 };
  let deviceReads = 0;
  let deviceBytes = 0;
  let syncReads = 0;
  let requestedBytes = 0;
  const submit = (io: { file: number; page: number; pages: number; sync: boolean }): number => {
    const bytes = io.pages * PAGE_BYTES;
    deviceReads++;
    deviceBytes += bytes;
    if (io.sync) syncReads++;
    series.add(now + skippedUs, bytes);
    return device.submit(fileBaseBytes.get(io.file)! + io.page * PAGE_BYTES, bytes, now);
  };

  const port: OsPort = {
    open(file) {
      const of = model.open(file, { sizePages: fileSizePages.get(file) ?? 0 });
      // A what-if posix_fadvise on the whole file right after open: it only changes
      // per-open state (normal / sequential / random submit nothing).
      if (opts.fadvise !== undefined) model.fadvise(of, opts.fadvise, 0, 0, now, submit);
      return of;
    },
    read(of, page, pages, nowUs) {
      now = nowUs;
      requestedBytes += pages * PAGE_BYTES;
      let out = model.read(of as OpenFile, page, pages, nowUs, submit);
      // A read the OS could not finish in one decision (the 5.4 loop waits for a
      // page, then decides again): the process waits, then the read continues.
      // The continuation's submissions are made at the time they happen.
      while (out.pending !== null) {
        const t = out.readyAtUs > nowUs ? out.readyAtUs : nowUs;
        now = t;
        out = model.resume(out.pending, t, submit);
      }
      return out.readyAtUs;
    },
    quietRun(of, page, maxPages, pagesPerRead, nowUs) {
      return model.quietRun(of as OpenFile, page, maxPages, pagesPerRead, nowUs);
    },
    skipQuiet(of, page, pages, pagesPerRead, nowUs, counted = false) {
      if (!counted) requestedBytes += pages * PAGE_BYTES;
      model.skipQuiet(of as OpenFile, page, pages, pagesPerRead, nowUs);
    },
    willneed(of, page, pages, nowUs) {
      now = nowUs;
      model.fadvise(of as OpenFile, "willneed", page, pages, nowUs, submit);
    },
    cacheRun(file, page, maxPages, nowUs) {
      return cache.run(file, page, maxPages, nowUs);
    },
    cachedReadsAreQuiet: m.os !== "windows",
    touch(file, page, pages, readPages) {
      requestedBytes += readPages * PAGE_BYTES;
      if (pages > 0) cache.touch(file, page, pages);
    },
    isResident(file, page) {
      return cache.isPresent(file, page);
    },
    warm(file, pages) {
      if (pages > 0) cache.insert(file, 0, pages, Number.NEGATIVE_INFINITY, 0);
    },
    warp: {
      clearAhead(table, fromSegment, toSegment, beyond, nowUs, dryRun) {
        const free = Math.max(0, cache.capacityPages - cache.stats().residentPages);
        const doomed: number[] = [];
        // A page of the stretch is reached after the stretch's pages before it were read.
        let readBefore = 0;
        for (let seg = fromSegment; seg < toSegment; seg++) {
          const file = segmentFileId(table, seg);
          const newest = cache.newestEpoch(file);
          if (newest !== Number.NEGATIVE_INFINITY) {
            if (newest >= cache.oldestSurvivingEpoch(Math.max(0, readBefore - free))) return false;
            doomed.push(file);
          }
          readBefore += fileSizePages.get(file) ?? 0;
        }
        // A page beyond it, after the whole stretch.
        const gone = cache.oldestSurvivingEpoch(Math.max(0, readBefore - free));
        const cached = cache.cachedFiles();
        for (const [from, to] of beyond) {
          const lo = segmentFileId(table, from);
          const hi = segmentFileId(table, to);
          for (const f of cached) {
            if (f < lo || f >= hi) continue;
            if (cache.newestEpoch(f) >= gone) return false;
            doomed.push(f);
          }
        }
        if (!dryRun)
          for (const f of doomed) cache.drop(f, 0, fileSizePages.get(f) ?? Number.MAX_SAFE_INTEGER, nowUs);
        return true;
      },
      epochNow() {
        return cache.epochNow();
      },
      restoreAged(table, fromSegment, toSegment, epoch) {
        for (let seg = fromSegment; seg < toSegment; seg++) {
          const file = segmentFileId(table, seg);
          cache.insertAged(file, 0, fileSizePages.get(file) ?? 0, epoch);
        }
      },
      evictOverfull(nowUs) {
        cache.evictOldest(cache.overfullPages(), nowUs);
      },
      relabelTable(change) {
        const lo = segmentFileId(change.table, 0);
        const hi = segmentFileId(change.table + 1, 0);
        cache.renameFiles((f) => {
          if (f < lo || f >= hi) return f;
          const seg = change.mapSegment(f - lo);
          if (seg < 0)
            throw new Error(`warp: segment ${f - lo} of table ${change.table} is cached but cut out`);
          return lo + seg;
        });
        for (const map of [fileSizePages, fileBaseBytes])
          for (const f of [...map.keys()]) if (f >= lo && f < hi) map.delete(f);
        layOut(
          change.table,
          change.newNblocks,
          change.segmentBlocks,
          tableBase[change.table]!,
          tableStride[change.table]!,
        );
      },
      renameOpen(of, file) {
        renameOpenFile(of as OpenFile, file);
      },
      counters() {
        const d = device.stats();
        return {
          deviceReads,
          deviceBytes,
          syncReads,
          requestedBytes,
          busyUs: d.busyUs,
          latencyUs: d.totalLatencyUs,
        };
      },
      credit(delta, creditUs, atUs) {
        deviceReads += delta.deviceReads;
        deviceBytes += delta.deviceBytes;
        syncReads += delta.syncReads;
        requestedBytes += delta.requestedBytes;
        device0.busyUs += delta.busyUs;
        device0.latencyUs += delta.latencyUs;
        device0.spanUs += creditUs;
        series.addSpread(atUs + skippedUs, atUs + skippedUs + creditUs, delta.deviceBytes);
        skippedUs += creditUs;
      },
    },
  };

  // Measured on the device model (a few ms of closed-loop runs), so only when a query asks.
  let adaptive: AdaptiveInputs | undefined;
  return {
    port,
    confidence: model.confidence,
    // Not Linux: 128 kB, Linux's default window (VM_READAHEAD_PAGES, apps/docs/src/reference/linux-readahead-window.md#readahead-parameters) and
    // FreeBSD's MAXPHYS cluster (apps/docs/src/reference/freebsd-ufs-clustering.md#ufs-parameters).
    adaptive: () =>
      (adaptive ??= adaptiveInputs(
        profile,
        m.os.startsWith("linux") ? (overrides.readAheadKb as number) : 128,
      )),
    stats(): OsStats {
      const d = device.stats();
      // With skipped stretches, the device's own figures are over the simulated span only.
      const span = d.spanUs + device0.spanUs;
      return {
        deviceReads,
        deviceBytes,
        syncReads,
        requestedBytes,
        utilisation: span > 0 ? (d.busyUs + device0.busyUs) / span : 0,
        meanQueueDepth: span > 0 ? (d.totalLatencyUs + device0.latencyUs) / span : 0,
        series,
      };
    },
  };
}

/**
 * The physical figures the adaptive bitmap policy plans with, measured on the
 * device model the way a DBA would measure the real device with fio: QD1
 * latency of an 8 kB random read, deep-queue sequential bandwidth, and the
 * queue depth at which 8 kB random IOPS reach 90% of their maximum.
 *
 * The workloads follow the datasheets' conventions (apps/docs/src/reference/storage-device-models.md: sequential
 * reads rated at QD32 with 128 KiB transfers; random reads at QD1 and deep
 * queues). QD 256 as "the maximum" and 90% as "IOPS stop growing" are this
 * function's own operational definitions of the adaptive cost model's
 * `saturatingQueueDepth` (@scanlab/bitmap-prefetch adaptive-cost-model.ts),
 * not published figures.
 */
function adaptiveInputs(profile: DeviceProfile, readAheadKb: number) {
  const qd1 = throughputAt(profile, { queueDepth: 1, requestBytes: 8192, pattern: "random" });
  const seq = throughputAt(profile, { queueDepth: 32, requestBytes: 131072, pattern: "sequential" });
  const peak = throughputAt(profile, { queueDepth: 256, requestBytes: 8192, pattern: "random" }).iops;
  let qd = 1;
  while (
    qd < 256 &&
    throughputAt(profile, { queueDepth: qd, requestBytes: 8192, pattern: "random" }).iops < 0.9 * peak
  )
    qd *= 2;
  return {
    readLatencyUs: qd1.meanLatencyUs,
    bandwidthMBps: seq.bytesPerSecond / 1e6,
    saturatingQueueDepth: qd,
    readaheadBlocks: Math.max(1, Math.floor(readAheadKb / 8)),
  };
}

function syncscan(): SyncScanPort {
  const tracker = new InProcessSyncScanTracker();
  return {
    getLocation: (key, nblocks) => tracker.getLocation(key, nblocks),
    report: (key, block) => {
      tracker.reportLocation(key, block);
    },
    relocate: (key, map) => {
      tracker.relocate(key, map);
    },
  };
}

function parallelScan(
  spec: QuerySpec,
  nblocks: number,
  sync: boolean,
  hooks: { getStartBlock(nblocks: number): number; onScanEnd(startBlock: number): void },
): ScanAllocation {
  const policy: AllocatorPolicy = spec.allocator ?? defaultAllocator(spec.pg);
  const scan = createParallelScan(policy, { nblocks, syncscan: sync, hooks });
  const resolved = resolvePolicy(policy);
  const fixed = resolved.kind === "pg96" || resolved.kind === "pg11" || resolved.kind === "batch";
  const joined: Participant[] = [];
  const position = () => {
    const start = scan.startBlock;
    return start === INVALID_BLOCK
      ? null
      : { counter: scan.counter, startBlock: start, nblocks: scan.nblocks };
  };
  return {
    position,
    relabel: (n, mapBlock, counterShift) => scan.relabel({ nblocks: n, mapBlock, counterShift }),
    warpLimits: () => warpLimits(resolved, joined),
    striding: fixed
      ? {
          claimBlocks: fixedClaimBlocks(resolved),
          op: resolved.kind === "pg11" ? "atomic" : "lock",
          position,
          fastForward: (blocks) => scan.fastForward(blocks),
        }
      : undefined,
    join() {
      const p = scan.join();
      joined.push(p);
      return {
        next() {
          const run = p.nextRun();
          return run === null ? null : { startBlock: run.startBlock, blocks: run.blocks, op: run.op };
        },
      };
    },
  };
}

/**
 * What a warp must not cut from a scan's table.
 *
 * Tail: blocks at the end of the scan's path where claims change size.
 * PG14 halves a participant's chunk at its first claim within chunk x
 * rampdownChunks of the end (apps/docs/src/reference/parallel-block-allocation.md#block-requests), one halving per claim. A cut
 * that lands between that point and the next one (half as far from the end)
 * leaves the machine as the skipped stretch would have: each participant's
 * next claim halves its chunk once, to the size it would hold there. A cut
 * past the next point would leave chunks two halvings too large, so the zone
 * kept is half the ramp-down zone of the largest chunk held now. What such a
 * cut extrapolates is that the stretch's rate holds through one halving
 * (ramp-down stages of large chunks read at one device rate; warp.test.ts
 * holds warped and exact runs together across it). munro2020 ramps down
 * within its largest chunk x its ramp-down chunks, kept whole; the fixed-size
 * policies keep one size.
 *
 * Table size: PG14's test is `phsw_nallocated > phs_nblocks - chunk_size *
 * 64` in unsigned 32-bit arithmetic, so on a table shorter than chunk x 64
 * the threshold wraps and the scan never ramps down (real PostgreSQL picks
 * the chunk from the table size, so its tables are always long enough). A
 * cut must leave the table at least that long, or the shorter table it
 * leaves would scan without a ramp-down the real one has.
 *
 * Claims: one per chunk held in a steady stretch (PG14: the largest chunk;
 * munro2020 past its ramp-up: its largest; batch: its batch; one block for
 * PG 9.6-13), twice as many per block past the halving point a cut crosses.
 */
function warpLimits(r: ResolvedPolicy, joined: readonly Participant[]): WarpLimits {
  if (r.kind === "pg14") {
    let chunk = 1;
    for (const p of joined) if (p.chunkBlocks > chunk) chunk = p.chunkBlocks;
    const zone = chunk * r.rampdownChunks;
    return { tailBlocks: zone / 2, minNblocks: zone, halvesBelow: zone, blocksPerClaim: chunk };
  }
  if (r.kind === "munro2020") {
    const tailBlocks = r.maxChunkBlocks * MUNRO2020_RAMPDOWN_CHUNKS;
    return { tailBlocks, minNblocks: 0, halvesBelow: 0, blocksPerClaim: r.maxChunkBlocks };
  }
  return {
    tailBlocks: 0,
    minNblocks: 0,
    halvesBelow: 0,
    blocksPerClaim: fixedClaimBlocks(r),
  };
}

/** Blocks per claim of the fixed-size policies: batch's batch, one block for PG 9.6-13. */
function fixedClaimBlocks(r: ResolvedPolicy): number {
  return r.kind === "batch" ? r.blocksPerClaim : 1;
}

/** The model packages, bound. */
export const realModels: ModelFactories = { buildOs, syncscan, parallelScan };

export { ScenarioError };
