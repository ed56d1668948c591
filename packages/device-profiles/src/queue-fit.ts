/**
 * DOC: fitting the flash queue to measured points, and comparing them.
 *
 * A measured profile keeps its points (pattern, read size, queue depth, IOPS).
 * The flash queue of `flash-queue.ts` has the same parameters whether they
 * come from a datasheet or a measurement: N units chosen by address, each busy
 * unitBusy per read, a fixed delay, a FIFO data path that holds each read for
 * a command time c plus its bytes at B. From a measurement they are fitted by
 * least squares: the sum over the points of (ln(model IOPS / measured IOPS))^2,
 * where the model IOPS is the queue itself run in a closed loop at the point's
 * pattern, read size and depth (as fio runs a job). Relative errors, so a
 * 4 MiB point and an 8 KiB point weigh the same.
 *
 * - N is a whole number: each candidate of {@link UNIT_CANDIDATES} gets its
 *   own fit of the four times and rates (Nelder-Mead on their logarithms, so
 *   they stay positive), and the best is kept.
 * - The stripe is the smallest random read measured (one unit per read of
 *   the size the queue depths were measured with, as a datasheet's 4 KiB).
 * - Reads above the profile's largest I/O are split as the model splits them.
 * - The controller's read-ahead (flash-queue.ts, "Controller read-ahead") is
 *   fitted too: its buffer and the latency of a hit, with the stream detected
 *   after {@link SATA_CONTROLLER_READ_AHEAD}'s two contiguous reads (the
 *   points cannot tell a trigger of 2 from 3). Its fit starts twice, from a
 *   128 KiB and from a 1 MiB buffer, and keeps the better: a drive's DRAM
 *   buffer and a host's read-ahead lie far apart, and one start settles
 *   near itself. Whatever serves sequential
 *   reads faster than random ones, a drive's controller or the storage
 *   behind a virtual disk, shows in the points as a cheaper small sequential
 *   read, and this is the mechanism that can produce it. Each unit count is
 *   fitted with and without it, and the read-ahead is kept only when it pays
 *   for its two extra parameters: when Akaike's information criterion,
 *   n ln(SSE / n) + 2k over n points and k parameters, is lower with it
 *   (H. Akaike, "A new look at the statistical model identification", IEEE
 *   Transactions on Automatic Control 19(6), 1974).
 *
 * {@link modelAtPoints} runs a profile's model at each point and returns the
 * ratios: what `scanlab calibrate` prints and `npm run bench` checks.
 */
import {
  closedLoopIops,
  controllerReadAheadOf,
  flashQueueParameters,
  type QueueCore,
} from "./flash-queue.js";
import {
  type ControllerReadAhead,
  type FlashProfile,
  type FlashQueueModelFields,
  MAX_BYTES_PER_SECOND,
  MAX_IO_BYTES,
  MAX_LATENCY_US,
  type ReadMeasurement,
  SATA_CONTROLLER_READ_AHEAD,
} from "./profile-schema.js";
import { US_PER_S } from "./units.js";

/** Unit counts tried by the fit: 1 to 128 in steps of about 1.5x (our choice; past 128 the knee is beyond QD64). */
export const UNIT_CANDIDATES: readonly number[] = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128];

/** Result of {@link fitFlashQueue}. */
export interface QueueFit {
  /** The fitted parameters, as a profile's `queueModel` holds them. */
  readonly queueModel: FlashQueueModelFields;
  /** The fitted controller read-ahead, or false when the points are better told without one (file header). */
  readonly readAhead: ControllerReadAhead | false;
  /** Root mean square of ln(model / measured) over the points. */
  readonly rmsLogError: number;
}

/** A measured point beside the model's figure for it. */
export interface ModelComparison {
  /** The measured point. */
  readonly point: ReadMeasurement;
  /** The model's IOPS at the point's pattern, read size and queue depth. */
  readonly modelIops: number;
  /** The model's bytes per second there. */
  readonly modelBytesPerSecond: number;
  /** model / measured (IOPS; the same ratio as bandwidth). */
  readonly ratio: number;
}

/** Samples of the closed loop while fitting (the final comparison uses throughput.ts's sizes). */
const FIT_COUNTED = 600;

function pointIops(
  core: QueueCore,
  m: ReadMeasurement,
  maxIoBytes: number,
  readAhead: ControllerReadAhead | null,
  counted?: number,
): number {
  return closedLoopIops(core, m.blockBytes, m.queueDepth, m.pattern, 1, maxIoBytes, counted, readAhead);
}

/**
 * Nelder-Mead (J. A. Nelder and R. Mead, "A simplex method for function
 * minimization", Computer Journal 7(4), 1965) with the standard coefficients
 * 1, 2, 0.5, 0.5, for at most `maxEvaluations` evaluations.
 */
function nelderMead(f: (x: number[]) => number, start: number[], step: number, maxEvaluations: number) {
  const n = start.length;
  let simplex = [start, ...start.map((_, i) => start.map((v, j) => (i === j ? v + step : v)))];
  let values = simplex.map(f);
  let evaluations = n + 1;
  while (evaluations < maxEvaluations) {
    const order = values.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
    simplex = order.map(([, i]) => simplex[i]!);
    values = order.map(([v]) => v);
    if (values[n]! - values[0]! < 1e-7) break;
    const centroid = start.map((_, j) => simplex.slice(0, n).reduce((s, x) => s + x[j]!, 0) / n);
    const along = (t: number) => centroid.map((c, j) => c + t * (simplex[n]![j]! - c));
    const reflected = along(-1);
    const fr = f(reflected);
    evaluations++;
    if (fr < values[0]!) {
      const expanded = along(-2);
      const fe = f(expanded);
      evaluations++;
      [simplex[n], values[n]] = fe < fr ? [expanded, fe] : [reflected, fr];
    } else if (fr < values[n - 1]!) {
      [simplex[n], values[n]] = [reflected, fr];
    } else {
      const contracted = along(fr < values[n]! ? -0.5 : 0.5);
      const fc = f(contracted);
      evaluations++;
      if (fc < Math.min(fr, values[n]!)) {
        [simplex[n], values[n]] = [contracted, fc];
      } else {
        for (let i = 1; i <= n; i++) {
          simplex[i] = simplex[i]!.map((v, j) => simplex[0]![j]! + 0.5 * (v - simplex[0]![j]!));
          values[i] = f(simplex[i]!);
          evaluations++;
        }
      }
    }
  }
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i]! < values[best]!) best = i;
  return { x: simplex[best]!, value: values[best]! };
}

/**
 * Fits the flash queue's parameters to measured points (see the header of
 * `queue-fit.ts`).
 *
 * @param points measured points; at least one random read at queue depth 1
 * @param maxIoBytes the profile's largest I/O (reads above it are split)
 *
 * @example
 * ```ts
 * import { fitFlashQueue } from "@scanlab/device-profiles";
 * const fit = fitFlashQueue(
 *   [
 *     { pattern: "random", blockBytes: 8192, queueDepth: 1, iops: 10000, bytesPerSecond: 81.92e6, meanLatencyUs: 100 },
 *     { pattern: "random", blockBytes: 8192, queueDepth: 16, iops: 60000, bytesPerSecond: 491.5e6, meanLatencyUs: 267 },
 *     { pattern: "sequential", blockBytes: 1048576, queueDepth: 16, iops: 1000, bytesPerSecond: 1.05e9, meanLatencyUs: 16000 },
 *   ],
 *   524288,
 * );
 * console.log(fit.queueModel.units, fit.rmsLogError < 0.1); // a handful of units, true
 * ```
 */
export function fitFlashQueue(points: readonly ReadMeasurement[], maxIoBytes: number): QueueFit {
  const usable = points.filter((m) => m.iops > 0 && m.queueDepth >= 1);
  const random = usable.filter((m) => m.pattern === "random");
  const stripeBytes = Math.min(...(random.length > 0 ? random : usable).map((m) => m.blockBytes));
  const qd1 =
    random.find((m) => m.queueDepth === 1 && m.blockBytes === stripeBytes) ??
    usable.reduce((a, b) => (b.queueDepth < a.queueDepth ? b : a));
  const bandwidth = Math.max(...usable.map((m) => m.bytesPerSecond));
  const latencyUs = US_PER_S / qd1.iops; // closed loop at QD1: latency = 1 / IOPS
  const peakSmall = Math.max(...usable.filter((m) => m.blockBytes === stripeBytes).map((m) => m.iops));
  const core = (units: number, x: readonly number[]): QueueCore => ({
    units,
    unitBusyUs: Math.exp(x[0]!),
    fixedLatencyUs: Math.exp(x[1]!),
    // Points that show no per-byte cost let the rate run off to infinity: it stops at the profile
    // schema's bound (1 TB/s), which is no per-byte cost at any size a device reads.
    transferBytesPerUs: Math.min(Math.exp(x[2]!), MAX_BYTES_PER_SECOND / US_PER_S),
    commandUs: Math.exp(x[3]!),
    stripeBytes,
    // The closed loops run at the measured depths themselves.
    depthLimit: Number.POSITIVE_INFINITY,
  });
  // x[4], x[5]: the logarithms of the read-ahead buffer and of its hit latency; absent = no read-ahead.
  const readAheadOf = (x: readonly number[], whole = false): ControllerReadAhead | null =>
    x.length < 6
      ? null
      : {
          triggerSequentialReads: SATA_CONTROLLER_READ_AHEAD.triggerSequentialReads,
          // Within the profile schema's bounds: a direction the points do not constrain can run off.
          hitLatencyUs: Math.min(Math.exp(x[5]!), MAX_LATENCY_US),
          // Two halves of whole stripes once fitted; any size while the simplex moves, so the error stays smooth.
          bufferBytes: whole
            ? Math.min(
                Math.max(2, Math.round(Math.exp(x[4]!) / (2 * stripeBytes))) * 2 * stripeBytes,
                Math.floor(MAX_IO_BYTES / (2 * stripeBytes)) * 2 * stripeBytes,
              )
            : Math.min(Math.max(2 * stripeBytes, Math.exp(x[4]!)), MAX_IO_BYTES),
        };
  const error = (units: number, x: readonly number[], counted?: number, whole = false) => {
    const c = core(units, x);
    const readAhead = readAheadOf(x, whole);
    let sum = 0;
    for (const m of usable) sum += Math.log(pointIops(c, m, maxIoBytes, readAhead, counted) / m.iops) ** 2;
    return sum;
  };
  // The read-ahead's starts (our choice, starting points only): a 128 KiB and a 1 MiB buffer, and a hit half as
  // long as the fastest sequential read at QD1.
  const sequentialQd1 = usable.filter((m) => m.pattern === "sequential" && m.queueDepth === 1);
  const hitStartUs =
    sequentialQd1.length === 0
      ? 1
      : Math.max(1, 0.5 * Math.min(...sequentialQd1.map((m) => m.meanLatencyUs)));
  const aic = (sse: number, parameters: number) =>
    usable.length * Math.log(Math.max(sse, 1e-12) / usable.length) + 2 * parameters;
  let best: { units: number; x: number[]; value: number; score: number } | undefined;
  for (const units of UNIT_CANDIDATES) {
    // Start: the datasheet derivation's split of the QD1 latency, the unit stage carrying the small-read peak.
    const transfer = (bandwidth * 1.05) / US_PER_S;
    const unitBusy = Math.max(0.5, Math.min(0.8 * latencyUs, units / (peakSmall / US_PER_S)));
    const fixed = Math.max(0.5, latencyUs - unitBusy - stripeBytes / transfer);
    const start = [Math.log(unitBusy), Math.log(fixed), Math.log(transfer), Math.log(1)];
    const plain = nelderMead((x) => error(units, x, FIT_COUNTED), start, 0.5, 160);
    const withReadAhead = [128 * 1024, 1024 * 1024].map((buffer) =>
      nelderMead(
        (x) => error(units, x, FIT_COUNTED),
        [...plain.x, Math.log(buffer), Math.log(hitStartUs)],
        0.5,
        240,
      ),
    );
    for (const r of [plain, ...withReadAhead]) {
      const score = aic(r.value, r.x.length);
      if (best === undefined || score < best.score) best = { units, ...r, score };
    }
  }
  // Polish the winner with the full sample sizes.
  const polished = nelderMead((x) => error(best!.units, x), best!.x, 0.1, 120);
  const c = core(best!.units, polished.x);
  const readAhead = readAheadOf(polished.x, true);
  return {
    queueModel: {
      units: c.units,
      unitBusyUs: c.unitBusyUs,
      fixedLatencyUs: c.fixedLatencyUs,
      transferBytesPerSecond: c.transferBytesPerUs * US_PER_S,
      commandUs: c.commandUs,
      stripeBytes,
    },
    readAhead: readAhead ?? false,
    rmsLogError: Math.sqrt(error(best!.units, polished.x, undefined, true) / Math.max(1, usable.length)),
  };
}

/**
 * Runs a flash profile's model at each point (its own `measurements` by
 * default, or others such as an independent fio run) and returns model,
 * measured and their ratio.
 *
 * @example
 * ```ts
 * import { getBuiltinProfile, isFlashProfile, modelAtPoints } from "@scanlab/device-profiles";
 * const p = getBuiltinProfile("intel-ssd-320-120gb");
 * if (isFlashProfile(p)) {
 *   const [row] = modelAtPoints(p, [
 *     { pattern: "random", blockBytes: 4096, queueDepth: 32, iops: 38000, bytesPerSecond: 155.6e6, meanLatencyUs: 842 },
 *   ]);
 *   console.log(row!.ratio.toFixed(2)); // 1.00
 * }
 * ```
 */
export function modelAtPoints(
  profile: FlashProfile,
  points: readonly ReadMeasurement[] = profile.measurements ?? [],
): ModelComparison[] {
  const q = flashQueueParameters(profile);
  const readAhead = controllerReadAheadOf(profile);
  return points.map((point) => {
    const modelIops = pointIops(q, point, profile.maxIoBytes, readAhead);
    return {
      point,
      modelIops,
      modelBytesPerSecond: modelIops * point.blockBytes,
      ratio: point.iops > 0 ? modelIops / point.iops : Number.NaN,
    };
  });
}
