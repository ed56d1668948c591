/**
 * The OS adapter: the engine's {@link OsPort} bound to @scanlab/readahead's
 * page cache and readahead models and to @scanlab/device-profiles' device
 * model, for one scenario's machine.
 *
 * The problem: the engine asks the OS one thing ("read these pages of this
 * open file now: when are they ready?"), but the answer takes three models
 * and a layout: the page cache (one for the machine, RAM less
 * shared_buffers), the scenario OS's readahead policy with its tunables, and
 * the device the pages live on, at byte offsets that mean something to RAID
 * striping and disk seeks. The warp (speedups/warp.ts) also needs to renumber
 * the cache and credit the device's counters, and the results need the
 * device's figures over the time actually simulated.
 *
 * The insight: all of that is state of one machine, so it is one object: the
 * port's calls are its methods, the warp's hooks too, and the counters the
 * results report are its fields.
 *
 * Design choices:
 * - The device: @scanlab/device-profiles `createDeviceModel`, by built-in name
 *   or inline profile. Tables lie one after another on it, each segment file
 *   contiguous at a 1 GB boundary ({@link SegmentLayout}).
 * - The OS: one @scanlab/readahead `PageCache` and the readahead model of the
 *   scenario's OS. Linux takes read_ahead_kb from the scenario, else from the
 *   device (6.10: max(2 x io_opt, 128 kB); 5.4: 128 kB, or that for md raid0;
 *   apps/docs/src/reference/storage-device-models.md#six-drive-md-raid0), and
 *   max_sectors_kb from the device's largest I/O. osOptions.fadvise is applied
 *   to every file as it is opened.
 * - Reads the OS cannot finish in one decision (Linux 5.4 waits for a page,
 *   then decides again) continue at the time they happen, so submissions stay
 *   in time order.
 * - Counters the warp credits (device reads and bytes, busy time) are kept
 *   here beside the device's own, and the results' utilisation and queue
 *   depth are over the simulated span plus the credited one.
 * - The adaptive bitmap policy's device figures are measured on the device
 *   model (a few ms of closed-loop runs), so only when a query asks.
 */
import {
  createDeviceModel,
  type DeviceModel,
  type DeviceProfile,
  LINUX_DEFAULT_READ_AHEAD_KB,
  throughputAt,
} from "@scanlab/device-profiles";
import {
  createReadaheadModel,
  type OpenFile,
  PAGE_BYTES,
  PageCache,
  type ReadaheadModel,
} from "@scanlab/readahead";
import { renumberOpenFile, renumberSegmentFiles, type SegmentFiles } from "@scanlab/readahead/sim";
import { ScenarioError } from "../../errors.js";
import { type OsModel, osModel } from "../../scenario/os-model.js";
import type { ResolvedScenario } from "../../scenario/resolve.js";
import { BLOCK_BYTES } from "../../units.js";
import { BucketSeries } from "../loop/time-series.js";
import { PAGES_PER_BLOCK, segmentFileId } from "../pg/machine.js";
import { resolveDeviceProfile } from "./device.js";
import type {
  AdaptiveInputs,
  BuiltOs,
  OsCounters,
  OsOpenFile,
  OsPort,
  OsStats,
  OsWarpHooks,
  Renumbering,
} from "./ports.js";

/** RELSEG_SIZE x BLCKSZ: PostgreSQL's 1 GB segment files (apps/docs/src/reference/index.md#block-size-and-units; apps/docs/src/reference/os-readahead-policies.md#per-open-state-and-a-shared-cache). */
const SEGMENT_ALIGN_BYTES = 1024 ** 3;

/** One I/O the readahead model submits to the device. */
interface Submission {
  file: number;
  page: number;
  pages: number;
  sync: boolean;
}

/** The page cache's capacity on a scenario's machine: RAM less shared_buffers, in OS pages. */
export function osCapacityPages(resolved: ResolvedScenario): number {
  return Math.max(0, Math.floor((resolved.ramBytes - resolved.sharedBuffersBytes) / PAGE_BYTES));
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

/** The readahead model's tunables for the scenario's OS (what the scenario sets, else the device's figures). */
function readaheadOverrides(
  machine: ResolvedScenario["scenario"]["machine"],
  os: OsModel,
  device: DeviceModel,
): Record<string, unknown> {
  const opts = machine.osOptions;
  const overrides: Record<string, unknown> = {};
  if (machine.os.startsWith("linux")) {
    overrides.readAheadKb = opts.readAheadKb ?? linuxDefaultReadAheadKb(os, device);
    overrides.maxSectorsKb = opts.maxSectorsKb ?? Math.floor(device.maxIoBytes / 1024);
  } else if (machine.os.startsWith("freebsd")) {
    Object.assign(overrides, opts.freebsd ?? {});
    overrides.deviceMaxIoBytes = device.maxIoBytes;
  } else if (machine.os === "windows") {
    Object.assign(overrides, opts.windows ?? {});
  }
  return overrides;
}

/**
 * Where each segment file lies on the device and how many pages it has:
 * table after table, each segment file at a 1 GB boundary. A table the warp
 * renumbers is laid out again from its own base, so the files after a cut
 * keep offsets a table of the new size would have.
 */
class SegmentLayout {
  readonly sizePages = new Map<number, number>();
  readonly baseBytes = new Map<number, number>();
  private readonly tableBase: number[] = [];
  private readonly tableStride: number[] = [];

  constructor(tables: ResolvedScenario["tables"]) {
    let base = 0;
    tables.forEach((t, ti) => {
      const segBytes = t.segmentBlocks * BLOCK_BYTES;
      const segStride = Math.ceil(segBytes / SEGMENT_ALIGN_BYTES) * SEGMENT_ALIGN_BYTES;
      this.tableBase.push(base);
      this.tableStride.push(segStride);
      base += this.layOut(ti, t.nblocks, t.segmentBlocks, base, segStride) * segStride;
    });
  }

  /** Table `ti` renumbered to `nblocks` blocks: its files' sizes and offsets again. */
  relayOut(ti: number, nblocks: number, segmentBlocks: number): void {
    const lo = segmentFileId(ti, 0);
    const hi = segmentFileId(ti + 1, 0);
    for (const map of [this.sizePages, this.baseBytes])
      for (const f of [...map.keys()]) if (f >= lo && f < hi) map.delete(f);
    this.layOut(ti, nblocks, segmentBlocks, this.tableBase[ti]!, this.tableStride[ti]!);
  }

  private layOut(ti: number, nblocks: number, segmentBlocks: number, base: number, stride: number): number {
    const segments = Math.max(1, Math.ceil(nblocks / segmentBlocks));
    for (let s = 0; s < segments; s++) {
      const blocks = Math.min(segmentBlocks, nblocks - s * segmentBlocks);
      this.sizePages.set(segmentFileId(ti, s), Math.max(0, blocks) * PAGES_PER_BLOCK);
      this.baseBytes.set(segmentFileId(ti, s), base + s * stride);
    }
    return segments;
  }
}

/** The OS and device of one scenario's machine (see the header). */
export class OsAdapter implements BuiltOs, OsPort, OsWarpHooks {
  /** The port is the adapter itself. */
  readonly port: OsPort = this;
  /** So are the warp's hooks. */
  readonly warp: OsWarpHooks = this;
  readonly confidence: "high" | "medium" | "low";
  readonly cachedReadsAreQuiet: boolean;
  private readonly profile: DeviceProfile;
  private readonly device: DeviceModel;
  private readonly cache: PageCache;
  private readonly model: ReadaheadModel;
  private readonly fadvise: ResolvedScenario["scenario"]["machine"]["osOptions"]["fadvise"];
  /** read_ahead_kb for the adaptive policy: Linux's, else 128 kB. */
  private readonly adaptiveReadAheadKb: number;
  private readonly layout: SegmentLayout;
  private readonly series = new BucketSeries();
  /** The time of the call being served (submissions are made at it). */
  private now = 0;
  /** Simulated time the warp skipped so far: series points are placed at reported time. */
  private skippedUs = 0;
  /** Device figures credited by the warp over what it skipped. */
  private readonly credited = { busyUs: 0, latencyUs: 0, spanUs: 0 };
  private deviceReads = 0;
  private deviceBytes = 0;
  /** Pages submitted to the device (OsPort.submittedPages). */
  submittedPages = 0;
  private syncReads = 0;
  private requestedBytes = 0;
  private adaptiveInputs: AdaptiveInputs | undefined;

  constructor(resolved: ResolvedScenario, capacityPages = osCapacityPages(resolved)) {
    const m = resolved.scenario.machine;
    this.profile = resolveDeviceProfile(m.device);
    this.device = createDeviceModel(this.profile, { seed: resolved.scenario.seed });
    this.cache = new PageCache({ capacityPages });
    this.fadvise = m.osOptions.fadvise;
    const os = osModel(m.os);
    if (os === null)
      throw new ScenarioError(`machine.os ${JSON.stringify(m.os)} is not an OS this simulator models.`);
    const overrides = readaheadOverrides(m, os, this.device);
    this.model = createReadaheadModel(this.cache, os.preset, overrides);
    this.confidence = this.model.confidence;
    this.cachedReadsAreQuiet = m.os !== "windows";
    // Not Linux: 128 kB, Linux's default window (VM_READAHEAD_PAGES, apps/docs/src/reference/linux-readahead-window.md#readahead-parameters) and
    // FreeBSD's MAXPHYS cluster (apps/docs/src/reference/freebsd-ufs-clustering.md#ufs-parameters).
    this.adaptiveReadAheadKb = m.os.startsWith("linux") ? (overrides.readAheadKb as number) : 128;
    this.layout = new SegmentLayout(resolved.tables);
  }

  /** Where the readahead model's I/O goes: counted, charted, and queued on the device at the current time. */
  private readonly submit = (io: Submission): number => {
    const bytes = io.pages * PAGE_BYTES;
    this.submittedPages += io.pages;
    this.deviceReads++;
    this.deviceBytes += bytes;
    if (io.sync) this.syncReads++;
    this.series.add(this.now + this.skippedUs, bytes);
    return this.device.submit(this.layout.baseBytes.get(io.file)! + io.page * PAGE_BYTES, bytes, this.now);
  };

  /* The port (ports.ts OsPort). */

  open(file: number): OsOpenFile {
    const of = this.model.open(file, { sizePages: this.layout.sizePages.get(file) ?? 0 });
    // A what-if posix_fadvise on the whole file right after open: it only changes
    // per-open state (normal / sequential / random submit nothing).
    if (this.fadvise !== undefined) this.model.fadvise(of, this.fadvise, 0, 0, this.now, this.submit);
    return of;
  }

  read(of: OsOpenFile, page: number, pages: number, nowUs: number): number {
    this.now = nowUs;
    this.requestedBytes += pages * PAGE_BYTES;
    let out = this.model.read(of as OpenFile, page, pages, nowUs, this.submit);
    // A read the OS could not finish in one decision (the 5.4 loop waits for a
    // page, then decides again): the process waits, then the read continues.
    // The continuation's submissions are made at the time they happen.
    while (out.pending !== null) {
      const t = out.readyAtUs > nowUs ? out.readyAtUs : nowUs;
      this.now = t;
      out = this.model.resume(out.pending, t, this.submit);
    }
    return out.readyAtUs;
  }

  quietRun(
    of: OsOpenFile,
    page: number,
    maxPages: number,
    pagesPerRead: number,
    nowUs: number,
  ): { pages: number; readyAtUs: number } {
    return this.model.quietRun(of as OpenFile, page, maxPages, pagesPerRead, nowUs);
  }

  skipQuiet(
    of: OsOpenFile,
    page: number,
    pages: number,
    pagesPerRead: number,
    nowUs: number,
    counted = false,
  ): void {
    if (!counted) this.requestedBytes += pages * PAGE_BYTES;
    this.model.skipQuiet(of as OpenFile, page, pages, pagesPerRead, nowUs);
  }

  willneed(of: OsOpenFile, page: number, pages: number, nowUs: number): void {
    this.now = nowUs;
    this.model.fadvise(of as OpenFile, "willneed", page, pages, nowUs, this.submit);
  }

  cacheRun(
    file: number,
    page: number,
    maxPages: number,
    nowUs: number,
  ): { pages: number; readyAtUs: number } {
    return this.cache.run(file, page, maxPages, nowUs);
  }

  touch(file: number, page: number, pages: number, readPages: number): void {
    this.requestedBytes += readPages * PAGE_BYTES;
    if (pages > 0) this.cache.touch(file, page, pages);
  }

  isResident(file: number, page: number): boolean {
    return this.cache.isPresent(file, page);
  }

  warm(file: number, pages: number): void {
    if (pages > 0) this.cache.insert(file, 0, pages, Number.NEGATIVE_INFINITY, 0);
  }

  /* The warp's hooks (ports.ts OsWarpHooks). */

  clearAhead(
    table: number,
    fromSegment: number,
    toSegment: number,
    beyond: [number, number][],
    nowUs: number,
    dryRun: boolean,
  ): boolean {
    const cache = this.cache;
    const sizePages = this.layout.sizePages;
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
      readBefore += sizePages.get(file) ?? 0;
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
    if (!dryRun) for (const f of doomed) cache.drop(f, 0, sizePages.get(f) ?? Number.MAX_SAFE_INTEGER, nowUs);
    return true;
  }

  epochNow(): number {
    return this.cache.epochNow();
  }

  restoreAged(table: number, fromSegment: number, toSegment: number, epoch: number): void {
    for (let seg = fromSegment; seg < toSegment; seg++) {
      const file = segmentFileId(table, seg);
      this.cache.insertAged(file, 0, this.layout.sizePages.get(file) ?? 0, epoch);
    }
  }

  evictOverfull(nowUs: number): void {
    this.cache.evictOldest(this.cache.overfullPages(), nowUs);
  }

  renumberTable(change: Renumbering, segmentBlocks: number): void {
    renumberSegmentFiles(this.cache, change, segmentFiles(change.relation, segmentBlocks));
    this.layout.relayOut(change.relation, change.nblocks, segmentBlocks);
  }

  renumberOpen(of: OsOpenFile, change: Renumbering, segmentBlocks: number): boolean {
    return renumberOpenFile(of as OpenFile, change, segmentFiles(change.relation, segmentBlocks));
  }

  counters(): OsCounters {
    const d = this.device.stats();
    return {
      deviceReads: this.deviceReads,
      deviceBytes: this.deviceBytes,
      syncReads: this.syncReads,
      requestedBytes: this.requestedBytes,
      busyUs: d.busyUs,
      latencyUs: d.totalLatencyUs,
    };
  }

  credit(delta: OsCounters, creditUs: number, atUs: number): void {
    this.deviceReads += delta.deviceReads;
    this.deviceBytes += delta.deviceBytes;
    this.syncReads += delta.syncReads;
    this.requestedBytes += delta.requestedBytes;
    this.credited.busyUs += delta.busyUs;
    this.credited.latencyUs += delta.latencyUs;
    this.credited.spanUs += creditUs;
    this.series.addSpread(atUs + this.skippedUs, atUs + this.skippedUs + creditUs, delta.deviceBytes);
    this.skippedUs += creditUs;
  }

  /* What the engine reads at the end, and the adaptive policy's figures. */

  stats(): OsStats {
    const d = this.device.stats();
    // With skipped stretches, the device's own figures are over the simulated span only.
    const span = d.spanUs + this.credited.spanUs;
    return {
      deviceReads: this.deviceReads,
      deviceBytes: this.deviceBytes,
      syncReads: this.syncReads,
      requestedBytes: this.requestedBytes,
      utilisation: span > 0 ? (d.busyUs + this.credited.busyUs) / span : 0,
      meanQueueDepth: span > 0 ? (d.totalLatencyUs + this.credited.latencyUs) / span : 0,
      series: this.series,
    };
  }

  adaptive(): AdaptiveInputs {
    this.adaptiveInputs ??= adaptiveInputs(this.profile, this.adaptiveReadAheadKb);
    return this.adaptiveInputs;
  }
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
function adaptiveInputs(profile: DeviceProfile, readAheadKb: number): AdaptiveInputs {
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

/** How table `table`'s segment files are numbered in the page cache (pg/machine.ts segmentFileId). */
function segmentFiles(table: number, segmentBlocks: number): SegmentFiles {
  return { first: segmentFileId(table, 0), end: segmentFileId(table + 1, 0), segmentBlocks };
}
