/**
 * DOC: the flash queue model (SATA SSD, NVMe, an SSD of unknown interface).
 *
 * A read on an SSD goes through three stages:
 *
 *   1. the command path (host interface, controller firmware, completion):
 *      a fixed delay that does not hold any shared resource;
 *   2. a flash read on one of the drive's internal parallel units (dies,
 *      planes, channels as the firmware schedules them). Which unit is set by
 *      the read's address: a page-mapped flash translation layer puts each
 *      mapped page (stripe bytes) on whichever unit had room when it was
 *      written, so to the host the unit of a page is fixed but as good as
 *      random (a hash of the page number). At queue depth q, reads therefore
 *      find their unit busy with another read now and then and wait: the
 *      balls-into-bins collisions that make the IOPS curve bend gradually
 *      instead of at one sharp knee. A unit is busy for the same time
 *      whatever the read size: the first page has to be sensed before
 *      anything moves, and the datasheets give no second figure to make it
 *      size-dependent;
 *   3. the data path (flash channels into the controller, then the SATA link
 *      or PCIe lanes), one read after another: a per-read command time c
 *      (the controller handles one command at a time) plus the transfer at
 *      the sequential read bandwidth.
 *
 * A datasheet gives four numbers, and they pin these stages down:
 *
 *   L  latency of one small read (b_L bytes, 4 KiB) at queue depth 1
 *   B  sequential read bandwidth at a deep queue (the data path's rate)
 *   R  maximum random-read IOPS, reached at queue depth Q_R
 *
 * - The data path moves B bytes/s. A b-byte read holds it for c + b / B: that
 *   is the sequential ceiling, reached whenever enough large reads are queued,
 *   and the reason small reads saturate at fewer bytes per second than large
 *   ones. The per-command time c comes from a second random-read figure at the
 *   same queue depth (`secondRandomReadIops` of `secondRandomReadBlockBytes`,
 *   e.g. a datasheet's "random 8 KB read"): the larger reads are bound by the
 *   data path, so 1 / R_2 = c + b_2 / B. The Intel DC S3700 (47 500 8 KB reads
 *   per second at 500 MB/s) gives c = 4.67 us and the DC S3610 (52 000 at
 *   550 MB/s) 4.34 us; their 4 KB figures then fit through the same data path
 *   (c + 4096 / B is 12.9 and 11.8 us, i.e. 77 700 and 84 800 reads per
 *   second, against 75 000 and 84 000 quoted). A SATA drive without a second
 *   figure takes the mean of those two, {@link SATA_COMMAND_US} = 4.5 us (ONE
 *   assumption for the class: the SATA command protocol, not the flash, is
 *   what it measures; apps/docs/src/reference/storage-device-models.md#per-command-time-of-a-sata-drive),
 *   at most 1 / R - b_R / B. NVMe and unknown-interface
 *   datasheets give no second figure, so c = 0 there.
 * - At queue depth 1 nothing waits, so L = fixed + unitBusy + c + b_L / B. The
 *   time a small read spends outside the data path is budget = L - c - b_L / B.
 * - The unit stage caps small reads at N / unitBusy reads per second. Little's
 *   law at the knee says about R x budget reads are in the unit stage when
 *   it saturates, so N = floor(R x budget) units (at least 1, at most Q_R).
 *   The stripe is b_L: the datasheet's figures are for reads of that size,
 *   one unit each.
 * - unitBusy is the largest time (at most N / R and at most the budget) for
 *   which the model itself, run in a closed loop of random b_R-byte reads at
 *   Q_R (as fio measures, `throughput.ts`), still reaches R: found by
 *   bisection, because collisions keep the model below N / unitBusy at any
 *   finite depth. What is left of the budget is the fixed command-path
 *   delay: fixed = budget - unitBusy >= 0.
 * - Q_R is a check as well: a device cannot reach R with Q_R reads in
 *   flight unless R x L_R <= Q_R (Little's law with the QD1 latency L_R of
 *   an R-sized read); `profile-consistency.ts` rejects profiles that break it,
 *   e.g. a multi-queue aggregate IOPS figure quoted "at QD32".
 *
 * A measured profile (`measured-profile.ts`) carries the same parameters in
 * its `queueModel`, fitted by least squares to its measured points (same
 * model, more data: there c and the stripe can be seen). They are used as
 * they are.
 *
 * Worked example, Intel SSD 320 120 GB (apps/docs/src/reference/storage-device-models.md#intel-ssd-320): L = 75 us,
 * B = 270 MB/s, R = 38 000 at QD32, one random size quoted so c = 4.5 us (the
 * SATA class value). b_L / B = 4096 / 270 = 15.2 us, budget = 75 - 4.5 - 15.2 =
 * 55.3 us, R x budget = 2.10, so N = 2 units; at QD32 two units are almost
 * never both idle, so unitBusy is close to N / R = 52.6 us, and a few us of
 * the budget are the command path. An 8 KiB read at QD1 takes L + 4096 / B =
 * 90 us (apps/docs/src/reference/storage-device-models.md infers "about 100 us"), a 128 KiB read 545 us, i.e. 240 MB/s
 * ("about 250 MB/s ... the link, not the flash, is what limits large reads even
 * at QD1"), QD32 4 KiB reads reach 38 000 IOPS, QD32 8 KiB reads 28 700
 * (10^6 / (4.5 + 8192 / 270): bound by the data path, 235 MB/s) and QD32
 * 128 KiB reads 268 MB/s.
 *
 * The drive works on at most `depthLimit` reads at once; a read beyond them
 * waits in the host's queue until one completes. With units chosen by
 * address this matters: deeper queues would keep finding idle units and
 * climb past R towards N / unitBusy, which no datasheet shows. The limit is
 * Q_R, the depth at which the datasheet quotes R (for a SATA drive at QD32
 * that is also NCQ's 32 tags), or a measured profile's deepest point.
 *
 * Every unit keeps the time it is next free, and the data path is FIFO, so a
 * read costs O(1) whatever N is (O(log depthLimit) for the drive's queue).
 *
 * Controller read-ahead. A SATA drive's controller watches for a sequential
 * stream and reads ahead of it into its DRAM, so a stream of small reads
 * does not wait for the flash on every read. After `triggerSequentialReads`
 * reads that each start where the previous one ended, the drive senses the
 * next `bufferBytes` behind the stream, in two halves: each half is one
 * background flash read on the unit of its first page (busy unitBusy, like
 * any read), started when the read that consumed the previous half has its
 * data. A read that continues the stream and lies inside the buffer skips
 * the unit stage: its data is ready when its half is (plus `hitLatencyUs`),
 * then it takes the data path and the command path as any read. So does a
 * read that skips ahead of the last one's end but still lies inside the
 * buffer (a sparse bitmap skipping pages): its data is there too. Anything
 * else breaks the stream: a read that goes back (out-of-order reads, a
 * prefetch that overtakes the reader) or jumps past the buffer goes to the
 * flash and the count starts again, and a read that continues the stream
 * beyond the buffer (many reads queued at once) goes to the flash and
 * restarts the buffer behind it. The background reads hold units, so a
 * broken stream costs random reads some waiting too.
 *
 * No datasheet documents it (apps/docs/src/reference/storage-device-models.md#read-ahead-in-sata-controllers),
 * so the parameters are ONE assumption shared by every `sata-ssd` profile,
 * {@link SATA_CONTROLLER_READ_AHEAD} (trigger 2 reads, buffer 128 KiB, no
 * added latency), which a profile can override or turn off
 * (`internalReadAhead: false`). NVMe and unknown-interface profiles have none
 * unless they say so. A measured profile has the read-ahead its points were
 * fitted with (`queue-fit.ts`), or none
 * (apps/docs/src/reference/storage-device-models.md#read-ahead-fitted-from-measurements).
 *
 * Not modelled (no source gives a figure): writes, garbage collection, thermal throttling, SLC caching (writes only,
 * apps/docs/src/reference/storage-device-models.md#samsung-990-pro), and a read's pages spread over several units:
 * a read holds one unit whatever its size, so large reads are bound by the data path alone.
 */
import { mulberry32 } from "@scanlab/core";
import {
  badRead,
  type DeviceModel,
  type DeviceStats,
  linuxReadAheadKb,
  StatsRecorder,
} from "./device-model.js";
import { type ControllerReadAhead, type FlashProfile, SATA_CONTROLLER_READ_AHEAD } from "./profile-schema.js";
import { GiB, US_PER_S } from "./units.js";

/** The queue a flash profile turns into (see the file header for the derivation). */
export interface FlashQueueParameters {
  /** Internal parallel units N. */
  readonly units: number;
  /** Time a read holds its unit, in microseconds (the same for every read size). */
  readonly unitBusyUs: number;
  /** Command-path delay that holds no resource, in microseconds. */
  readonly fixedLatencyUs: number;
  /** Data-path rate in bytes per microsecond (the sequential read bandwidth). */
  readonly transferBytesPerUs: number;
  /** Time each read holds the data path besides its transfer, in microseconds (file header: from a second random-read figure, the SATA class value, or 0). */
  readonly commandUs: number;
  /** Bytes of one mapped page: the unit of offset o is a hash of floor(o / stripeBytes), modulo the units. */
  readonly stripeBytes: number;
  /**
   * Reads the drive works on at once; more wait in the host's queue. The depth at which the datasheet quotes
   * its random IOPS (Q_R), or the deepest measured point of a measured profile: past it the model assumes no
   * further gain, as neither source shows any.
   */
  readonly depthLimit: number;
  /** Time outside the data path of a small read at QD1: L - c - b_L / B (fixed + unitBusy), in microseconds. */
  readonly budgetUs: number;
  /** `datasheet`: derived from the four figures; `fitted`: the profile's own `queueModel`. */
  readonly basis: "datasheet" | "fitted";
}

/** The queue's parameters without the derivation's bookkeeping: what the queue runs. @internal */
export type QueueCore = Pick<
  FlashQueueParameters,
  | "units"
  | "unitBusyUs"
  | "fixedLatencyUs"
  | "transferBytesPerUs"
  | "commandUs"
  | "stripeBytes"
  | "depthLimit"
>;

/**
 * Per-command data-path time of a SATA drive whose datasheet quotes one random-read size, in microseconds: the
 * mean of the two SATA datasheets of apps/docs/src/reference/storage-device-models.md#intel-dc-s3700-and-s3610
 * that quote two, 1 / R_8K - 8192 / B: DC S3700 10^6 / 47 500 - 8192 / 500 = 4.669 us, DC S3610
 * 10^6 / 52 000 - 8192 / 550 = 4.336 us (see the header of `flash-queue.ts`).
 */
export const SATA_COMMAND_US = 4.5;

/**
 * The per-command time c of a datasheet profile (file header): from its second random-read figure when it
 * has one, else {@link SATA_COMMAND_US} for a SATA drive and 0 for the others; never more than the first
 * random figure and the QD1 latency leave room for.
 */
function datasheetCommandUs(profile: FlashProfile, transferBytesPerUs: number): number {
  const roomUs = Math.min(
    US_PER_S / profile.randomReadIops - profile.randomReadBlockBytes / transferBytesPerUs,
    profile.readLatencyQd1Us - profile.latencyReadBytes / transferBytesPerUs,
  );
  let c = 0;
  if (profile.secondRandomReadIops !== undefined && profile.secondRandomReadBlockBytes !== undefined)
    c = US_PER_S / profile.secondRandomReadIops - profile.secondRandomReadBlockBytes / transferBytesPerUs;
  else if (profile.kind === "sata-ssd") c = SATA_COMMAND_US;
  return Math.max(0, Math.min(c, roomUs));
}

/**
 * The controller read-ahead a flash profile's model runs (file header, "Controller read-ahead"): the
 * profile's own `internalReadAhead`, else {@link SATA_CONTROLLER_READ_AHEAD} for a `sata-ssd` profile
 * derived from its datasheet; null when off.
 *
 * @example
 * ```ts
 * import { controllerReadAheadOf, getBuiltinProfile } from "@scanlab/device-profiles";
 * const p = getBuiltinProfile("intel-ssd-320-120gb");
 * if (p.kind === "sata-ssd") console.log(controllerReadAheadOf(p)?.bufferBytes); // 131072
 * ```
 */
export function controllerReadAheadOf(profile: FlashProfile): ControllerReadAhead | null {
  if (profile.internalReadAhead === false) return null;
  if (profile.internalReadAhead !== undefined) return profile.internalReadAhead;
  return profile.kind === "sata-ssd" && profile.queueModel === undefined ? SATA_CONTROLLER_READ_AHEAD : null;
}

/** Derivations by the figures they come from: a profile parsed again (a scenario's inline copy) is not solved again. */
const derived = new Map<string, FlashQueueParameters>();

/**
 * Derives the queue (units, unit busy time, command-path delay, data-path
 * rate, stripe) from a flash profile's datasheet figures, or takes the
 * fitted `queueModel` of a measured profile. See the header of `flash-queue.ts`.
 *
 * @example
 * ```ts
 * import { flashQueueParameters, getBuiltinProfile } from "@scanlab/device-profiles";
 * const p = getBuiltinProfile("intel-ssd-320-120gb");
 * if (p.kind === "sata-ssd") console.log(flashQueueParameters(p).units); // 2
 * ```
 */
export function flashQueueParameters(profile: FlashProfile): FlashQueueParameters {
  if (profile.queueModel !== undefined) return fittedParameters(profile);
  const key = [
    profile.kind,
    profile.secondRandomReadIops,
    profile.secondRandomReadBlockBytes,
    profile.readLatencyQd1Us,
    profile.latencyReadBytes,
    profile.sequentialReadBytesPerSecond,
    profile.randomReadIops,
    profile.randomReadBlockBytes,
    profile.randomReadQueueDepth,
  ].join(" ");
  const known = derived.get(key);
  if (known !== undefined) return known;
  const result = datasheetParameters(profile);
  if (derived.size > 1000) derived.clear();
  derived.set(key, result);
  return result;
}

function fittedParameters(profile: FlashProfile): FlashQueueParameters {
  const q = profile.queueModel!;
  const transferBytesPerUs = q.transferBytesPerSecond / US_PER_S;
  return {
    units: q.units,
    unitBusyUs: q.unitBusyUs,
    fixedLatencyUs: q.fixedLatencyUs,
    transferBytesPerUs,
    commandUs: q.commandUs,
    stripeBytes: q.stripeBytes,
    depthLimit:
      (profile.measurements ?? []).length === 0
        ? Number.POSITIVE_INFINITY
        : Math.max(...profile.measurements!.map((m) => m.queueDepth)),
    budgetUs: q.fixedLatencyUs + q.unitBusyUs,
    basis: "fitted",
  };
}

function datasheetParameters(profile: FlashProfile): FlashQueueParameters {
  const transferBytesPerUs = profile.sequentialReadBytesPerSecond / US_PER_S;
  const commandUs = datasheetCommandUs(profile, transferBytesPerUs);
  const budgetUs = Math.max(
    0,
    profile.readLatencyQd1Us - commandUs - profile.latencyReadBytes / transferBytesPerUs,
  );
  const iopsPerUs = profile.randomReadIops / US_PER_S;
  // 1e-9: floating-point slack so a product that is a whole number in exact arithmetic does not floor one below it.
  const units = Math.min(Math.max(1, Math.floor(iopsPerUs * budgetUs + 1e-9)), profile.randomReadQueueDepth);
  const stripeBytes = profile.latencyReadBytes;
  const ceilingUs = Math.min(units / iopsPerUs, budgetUs);
  const core = (unitBusyUs: number): QueueCore => ({
    units,
    unitBusyUs,
    fixedLatencyUs: budgetUs - unitBusyUs,
    transferBytesPerUs,
    commandUs,
    stripeBytes,
    depthLimit: profile.randomReadQueueDepth,
  });
  const at = (unitBusyUs: number): number =>
    closedLoopIops(core(unitBusyUs), profile.randomReadBlockBytes, profile.randomReadQueueDepth);
  // The model's IOPS at Q_R falls as unitBusy grows (the fixed delay takes the rest of the same budget):
  // bisection for the largest unitBusy that still reaches R. 0.1 % of R is below any datasheet's precision.
  let unitBusyUs = ceilingUs;
  if (at(ceilingUs) < profile.randomReadIops * 0.999) {
    let lo = 0;
    let hi = ceilingUs;
    for (let i = 0; i < 30; i++) {
      const mid = (lo + hi) / 2;
      if (at(mid) >= profile.randomReadIops * 0.999) lo = mid;
      else hi = mid;
    }
    unitBusyUs = lo;
  }
  return { ...core(unitBusyUs), budgetUs, basis: "datasheet" };
}

/**
 * IOPS of the queue in a closed loop (as `throughputAt` runs a model): q reads
 * in flight, each completion submits the next at once; random offsets are
 * read-aligned and uniform over 8 GiB (seeded), sequential ones one stream,
 * through the controller's read-ahead when `readAhead` is given.
 * @internal shared by the derivation above and the fit of `measured-profile.ts`
 */
export function closedLoopIops(
  core: QueueCore,
  bytes: number,
  queueDepth: number,
  pattern: "random" | "sequential" = "random",
  seed = 1,
  maxIoBytes = Number.POSITIVE_INFINITY,
  counted?: number,
  readAhead: ControllerReadAhead | null = null,
): number {
  const q = Math.max(1, Math.floor(queueDepth));
  const queue = new FlashDrive(core, readAhead);
  const random = mulberry32(seed);
  const slots = Math.max(1, Math.floor((8 * GiB) / bytes));
  let next = 0;
  const offset = (): number => {
    if (pattern === "sequential") {
      const o = next;
      next += bytes;
      return o;
    }
    return Math.floor(random.nextFloat() * slots) * bytes;
  };
  const submit = (o: number, now: number): number => {
    if (bytes <= maxIoBytes) return queue.serve(o, bytes, now);
    let done = now;
    for (let d = 0; d < bytes; d += maxIoBytes)
      done = Math.max(done, queue.serve(o + d, Math.min(maxIoBytes, bytes - d), now));
    return done;
  };
  // The same sample sizes as throughput.ts: 4 x depth (at least 200) reads to fill the queue, then 20 x depth (at least 2000) counted.
  const warmup = Math.max(200, 4 * q);
  const measured = counted ?? Math.max(2000, 20 * q);
  const completion = new Float64Array(q);
  for (let i = 0; i < q; i++) completion[i] = submit(offset(), 0);
  let completed = 0;
  let t0 = 0;
  let t1 = 0;
  while (completed < warmup + measured) {
    let slot = 0;
    for (let i = 1; i < q; i++) if (completion[i]! < completion[slot]!) slot = i;
    const t = completion[slot]!;
    completed++;
    if (completed === warmup) t0 = t;
    else if (completed > warmup) t1 = t;
    completion[slot] = submit(offset(), t);
  }
  return (measured * US_PER_S) / (t1 - t0);
}

/**
 * The unit holding mapped page `page`: the page number mixed by MurmurHash3's
 * 32-bit finaliser (fmix32, A. Appleby, public domain), modulo the units.
 * A page-mapped FTL puts a page on whichever unit had room when it was written
 * (file header), so which unit holds it is, to the host, as good as random:
 * fixed for the page, uniform over the units.
 */
function unitOf(page: number, units: number): number {
  let h = (page <= 0xffffffff ? page : page ^ Math.floor(page / 4294967296)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  h = (h ^ (h >>> 16)) >>> 0;
  return h % units;
}

/** The three stages of one read (file header): units by address, a FIFO data path, a fixed delay. */
class FlashQueue {
  private readonly unitFreeUs: Float64Array;
  private readonly units: number;
  private readonly unitBusyUs: number;
  private readonly fixedLatencyUs: number;
  private readonly commandUs: number;
  private readonly usPerByte: number;
  private readonly stripeBytes: number;
  private pipeFreeUs = Number.NEGATIVE_INFINITY;
  /** Completion times of the last `depthLimit` reads let into the drive (a binary min-heap of `inDrive` entries). */
  private readonly inDriveUs: Float64Array;
  private inDrive = 0;

  constructor(core: QueueCore) {
    this.units = core.units;
    this.unitBusyUs = core.unitBusyUs;
    this.fixedLatencyUs = core.fixedLatencyUs;
    this.commandUs = core.commandUs;
    this.usPerByte = 1 / core.transferBytesPerUs;
    this.stripeBytes = core.stripeBytes;
    this.unitFreeUs = new Float64Array(this.units).fill(Number.NEGATIVE_INFINITY);
    const depth = Math.max(1, Math.floor(core.depthLimit));
    this.inDriveUs = new Float64Array(Number.isFinite(depth) ? depth : 0);
  }

  /** When the data of the last read {@link serve} took was off its unit. */
  lastDataReadyUs = 0;

  /** A background flash read of the page at `offsetBytes` (the controller's read-ahead), from `atUs`: when its data is in. */
  sense(offsetBytes: number, atUs: number): number {
    const unit = this.units === 1 ? 0 : unitOf(Math.floor(offsetBytes / this.stripeBytes), this.units);
    const readyUs = Math.max(atUs, this.unitFreeUs[unit]!) + this.unitBusyUs;
    this.unitFreeUs[unit] = readyUs;
    return readyUs;
  }

  /** Completion time of a read whose data comes off its unit. */
  serve(offsetBytes: number, bytes: number, nowUs: number): number {
    // The drive's queue: a read gets in at once while fewer than depthLimit reads were ever let in, else
    // when the earliest of the last depthLimit completes (at once if that is already past).
    const full = this.inDrive === this.inDriveUs.length && this.inDrive > 0;
    const startUs = full && this.inDriveUs[0]! > nowUs ? this.inDriveUs[0]! : nowUs;
    const unit = this.units === 1 ? 0 : unitOf(Math.floor(offsetBytes / this.stripeBytes), this.units);
    const dataReadyUs = Math.max(startUs, this.unitFreeUs[unit]!) + this.unitBusyUs;
    this.unitFreeUs[unit] = dataReadyUs;
    this.lastDataReadyUs = dataReadyUs;
    const doneUs = this.transfer(dataReadyUs, bytes);
    if (full) this.replaceEarliest(doneUs);
    else if (this.inDrive < this.inDriveUs.length) this.pushInDrive(doneUs);
    return doneUs;
  }

  private pushInDrive(t: number): void {
    const h = this.inDriveUs;
    let i = this.inDrive++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent]! <= t) break;
      h[i] = h[parent]!;
      i = parent;
    }
    h[i] = t;
  }

  /** Puts `t` in place of the earliest completion (one sift down). */
  private replaceEarliest(t: number): void {
    const h = this.inDriveUs;
    const n = this.inDrive;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const c = l + 1 < n && h[l + 1]! < h[l]! ? l + 1 : l;
      if (h[c]! >= t) break;
      h[i] = h[c]!;
      i = c;
    }
    h[i] = t;
  }

  /** Completion time of a read whose data is ready at `dataReadyUs` (after its unit, or from the drive's read-ahead). */
  transfer(dataReadyUs: number, bytes: number): number {
    const pipeStartUs = Math.max(dataReadyUs, this.pipeFreeUs);
    this.pipeFreeUs = pipeStartUs + this.commandUs + bytes * this.usPerByte;
    return this.pipeFreeUs + this.fixedLatencyUs;
  }

  reset(): void {
    this.unitFreeUs.fill(Number.NEGATIVE_INFINITY);
    this.pipeFreeUs = Number.NEGATIVE_INFINITY;
    this.inDrive = 0;
  }
}

/** The flash queue behind the controller's read-ahead (file header): what a model and a closed loop run. */
class FlashDrive {
  /** Reads served from the read-ahead buffer since the last reset. */
  readAheadHits = 0;
  private readonly queue: FlashQueue;
  private readonly readAheadTrigger: number;
  private readonly readAheadHitUs: number;
  /** Half the read-ahead buffer, in bytes. */
  private readonly halfBytes: number;
  private lastEndByte = -1;
  private sequentialRun = 0;
  /** Start of the buffered range [bufferStart, bufferStart + 2 x half), or -1 when nothing is buffered. */
  private bufferStart = -1;
  /** When the first and the second half of the buffer have their data. */
  private firstReadyUs = 0;
  private secondReadyUs = 0;

  constructor(core: QueueCore, readAhead: ControllerReadAhead | null) {
    this.queue = new FlashQueue(core);
    this.readAheadTrigger = readAhead?.triggerSequentialReads ?? Number.POSITIVE_INFINITY;
    this.readAheadHitUs = readAhead?.hitLatencyUs ?? 0;
    this.halfBytes = (readAhead?.bufferBytes ?? 0) / 2;
  }

  serve(offsetBytes: number, bytes: number, nowUs: number): number {
    // No read-ahead (NVMe, unknown interface, or off): no stream to follow.
    if (this.halfBytes === 0) return this.queue.serve(offsetBytes, bytes, nowUs);
    const endByte = offsetBytes + bytes;
    if (offsetBytes === this.lastEndByte) this.sequentialRun++;
    else if (!(offsetBytes > this.lastEndByte && this.buffered(endByte))) {
      this.sequentialRun = 0;
      this.bufferStart = -1;
    }
    this.lastEndByte = endByte;
    // Below the trigger (every random read): the flash, as without read-ahead.
    if (this.sequentialRun < this.readAheadTrigger) return this.queue.serve(offsetBytes, bytes, nowUs);
    const half = this.halfBytes;
    if (this.buffered(endByte)) {
      // A hit: the data is ready when its half is; then the data path and the command path.
      this.readAheadHits++;
      const halfReadyUs = endByte <= this.bufferStart + half ? this.firstReadyUs : this.secondReadyUs;
      const dataReadyUs = Math.max(nowUs + this.readAheadHitUs, halfReadyUs);
      if (endByte >= this.bufferStart + 2 * half) this.refill(endByte, dataReadyUs);
      else if (endByte >= this.bufferStart + half) {
        // The first half is used up: the second becomes the first, and the next half is sensed behind it.
        this.bufferStart += half;
        this.firstReadyUs = this.secondReadyUs;
        this.secondReadyUs = this.queue.sense(this.bufferStart + half, dataReadyUs);
      }
      return this.queue.transfer(dataReadyUs, bytes);
    }
    // The stream was just detected, or it ran past the buffer: this read goes to the flash, and the buffer
    // restarts behind it once its data is in.
    const doneUs = this.queue.serve(offsetBytes, bytes, nowUs);
    this.refill(endByte, this.queue.lastDataReadyUs);
    return doneUs;
  }

  /** Whether a read ending at `endByte` lies inside the buffered range. */
  private buffered(endByte: number): boolean {
    return this.bufferStart >= 0 && endByte <= this.bufferStart + 2 * this.halfBytes;
  }

  /** Restarts the read-ahead buffer at `fromByte`: both halves sensed from `atUs`. */
  private refill(fromByte: number, atUs: number): void {
    this.bufferStart = fromByte;
    this.firstReadyUs = this.queue.sense(fromByte, atUs);
    this.secondReadyUs = this.queue.sense(fromByte + this.halfBytes, atUs);
  }

  reset(): void {
    this.queue.reset();
    this.lastEndByte = -1;
    this.sequentialRun = 0;
    this.bufferStart = -1;
    this.readAheadHits = 0;
  }
}

/**
 * The flash queue model: N units chosen by address, a FIFO data path, a
 * fixed delay, and the controller's read-ahead where the profile has one.
 * Create it with {@link createDeviceModel}.
 */
export class FlashQueueModel implements DeviceModel {
  readonly profile: FlashProfile;
  readonly kind: FlashProfile["kind"];
  readonly maxIoBytes: number;
  readonly readAheadKbDefault: number;
  /** The derived (or fitted) queue. */
  readonly parameters: FlashQueueParameters;

  /** The controller read-ahead the model runs (file header), or null when off. */
  readonly readAhead: ControllerReadAhead | null;

  private readonly drive: FlashDrive;
  private readonly recorder = new StatsRecorder();

  /** @param profile a parsed flash profile */
  constructor(profile: FlashProfile) {
    this.profile = profile;
    this.kind = profile.kind;
    this.maxIoBytes = profile.maxIoBytes;
    this.readAheadKbDefault = linuxReadAheadKb(profile.optimalIoBytes);
    this.parameters = flashQueueParameters(profile);
    this.readAhead = controllerReadAheadOf(profile);
    this.drive = new FlashDrive(this.parameters, this.readAhead);
  }

  /** Reads served from the controller's read-ahead buffer since the last reset. */
  get readAheadHits(): number {
    return this.drive.readAheadHits;
  }

  submit(offsetBytes: number, bytes: number, nowUs: number): number {
    if (!(bytes > 0 && offsetBytes >= 0 && nowUs > Number.NEGATIVE_INFINITY))
      throw badRead(offsetBytes, bytes, nowUs);
    let completionUs: number;
    if (bytes <= this.maxIoBytes) {
      completionUs = this.drive.serve(offsetBytes, bytes, nowUs);
      this.recorder.deviceRequests++;
    } else {
      completionUs = nowUs;
      for (let done = 0; done < bytes; done += this.maxIoBytes) {
        const piece = Math.min(this.maxIoBytes, bytes - done);
        const c = this.drive.serve(offsetBytes + done, piece, nowUs);
        if (c > completionUs) completionUs = c;
        this.recorder.deviceRequests++;
      }
    }
    this.recorder.record(nowUs, completionUs, bytes);
    return completionUs;
  }

  stats(): DeviceStats {
    return this.recorder.snapshot();
  }

  reset(): void {
    this.drive.reset();
    this.recorder.reset();
  }
}
