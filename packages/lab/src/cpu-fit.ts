/**
 * Per-page and per-tuple CPU costs fitted from warm scans.
 *
 * Problem. The simulator's default CPU costs (perPageUs 1.0, perTupleUs 0.05:
 * 13.3 us a block of 226 tuples with the 8 kB pread) are a guess; a real
 * machine can spend half that, and every predicted time inherits the error.
 *
 * Insight. A warm serial sequential scan (table in the OS page cache, bigger
 * than a quarter of shared_buffers so it goes through the ring) reads no
 * device: its time per block is the pread from the page cache plus the page
 * and tuple work, the simulator's own cost formula (pageWorkUs and preadUs in
 * @scanlab/simulator's cpu-costs.ts). Two such scans of tables with different
 * tuple densities give two equations in the two unknowns
 *
 *     timeUs / blocks - preadUs(8192) = perPageUs + tuplesPerPage x perTupleUs
 *
 * Choices.
 * - Only cells planned with `role: "fit"` (cells.ts) are used, and
 *   {@link assertFitDisjoint} refuses a prediction set that contains one: a
 *   cell is never predicted from a fit of itself.
 * - What a block costs besides page and tuple work (the pread, or a read
 *   stream's share of a combined read, a shared-buffer lookup) is not
 *   fitted: one warm scan cannot tell it from page work. It is what the
 *   simulator itself charges the fit cell on the same machine (its time with
 *   both costs at 0, `baseUsPerBlock`), so a calibrated profile's measured
 *   read costs and each version's read path are subtracted exactly as they
 *   will be added back, and a fit cell is predicted at its own time.
 * - Least squares, with costs kept non-negative: when the unconstrained
 *   solution makes one negative (noise with nearly equal densities), that cost
 *   is 0 and the other is refitted alone.
 * - Samples of one tuple density cannot separate the two costs: the fit puts
 *   all the work on the page and says so in `degenerate`. The lab keeps such
 *   a fit and warns (run-lab.ts): its cost of a block at that density is
 *   still the measured one, where the simulator's defaults are assumed.
 * - One fit per PostgreSQL version: PG18's read stream spends differently
 *   per block than PG15's ReadBuffer loop.
 */

/** The input of one fit cell: its median time and its table's shape. */
export interface FitSample {
  /** The fit cell's id. */
  readonly cellId: string;
  /** Median execution time, microseconds. */
  readonly timeUs: number;
  /** Heap pages scanned. */
  readonly blocks: number;
  /** Tuples a page. */
  readonly tuplesPerPage: number;
  /**
   * What the simulator charges this cell per block besides page and tuple
   * work (its time with both at 0, per block), us; the pread cost given to
   * {@link fitCpuCosts} when absent.
   */
  readonly baseUsPerBlock?: number;
}

/** A fitted per-page and per-tuple cost. */
export interface CpuFit {
  /** Page-level work per heap page, us. */
  readonly perPageUs: number;
  /** Work per tuple, us. */
  readonly perTupleUs: number;
  /** The cells the fit used (never predicted). */
  readonly fitCells: readonly string[];
  /** Fitted minus measured time per block, us, per fit cell. */
  readonly residualsUs: readonly number[];
  /**
   * Why page and tuple work cannot be told apart, one sentence: the samples
   * have fewer than two tuple densities, so all of it went to the page. Null
   * when they have two or more.
   */
  readonly degenerate: string | null;
}

/** Fits `perPageUs` and `perTupleUs` to warm samples, given the pread cost of one 8 kB block (us) for samples without their own base. */
export function fitCpuCosts(samples: readonly FitSample[], preadBlockUs: number): CpuFit | null {
  const usable = samples.filter((s) => s.blocks > 0 && Number.isFinite(s.timeUs) && s.timeUs > 0);
  if (usable.length === 0) return null;
  const xs = usable.map((s) => s.tuplesPerPage);
  const ys = usable.map((s) => s.timeUs / s.blocks - (s.baseUsPerBlock ?? preadBlockUs));
  const n = usable.length;
  let perPageUs: number;
  let perTupleUs: number;
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  const mx = mean(xs);
  const sxx = xs.reduce((a, x) => a + (x - mx) ** 2, 0);
  if (n >= 2 && sxx > 0) {
    const my = mean(ys);
    const sxy = xs.reduce((a, x, i) => a + (x - mx) * (ys[i]! - my), 0);
    perTupleUs = sxy / sxx;
    perPageUs = my - perTupleUs * mx;
  } else {
    // One density only: page and tuple work cannot be told apart; all of it goes to the page below.
    perPageUs = 0;
    perTupleUs = Number.NaN;
  }
  if (!(perTupleUs >= 0)) {
    // No (or a negative) tuple term: everything is page work.
    perTupleUs = 0;
    perPageUs = Math.max(0, mean(ys));
  } else if (perPageUs < 0) {
    perPageUs = 0;
    const sxx0 = xs.reduce((a, x) => a + x * x, 0);
    perTupleUs = Math.max(0, xs.reduce((a, x, i) => a + x * ys[i]!, 0) / sxx0);
  }
  const fitCells = usable.map((s) => s.cellId);
  return {
    perPageUs,
    perTupleUs,
    fitCells,
    residualsUs: xs.map((x, i) => perPageUs + perTupleUs * x - ys[i]!),
    degenerate: new Set(xs).size >= 2 ? null : oneDensity(fitCells, xs[0]!),
  };
}

function oneDensity(fitCells: readonly string[], tuplesPerPage: number): string {
  const cells =
    fitCells.length === 1
      ? `the sequential fit cell ${fitCells[0]} has`
      : `the sequential fit cells ${fitCells.join(", ")} all have`;
  return `${cells} ${tuplesPerPage} tuples a page, and one tuple density cannot tell a page's cost from a tuple's: all CPU work is charged per page, which overestimates scans of sparser tables and underestimates denser ones.`;
}

/** A warm bitmap fit cell: its median time and how the simulator's time for it moves with each bitmap cost. */
export interface BitmapFitSample {
  /** The fit cell's id. */
  readonly cellId: string;
  /** Median execution time, us. */
  readonly timeUs: number;
  /** The simulator's time with the fitted page and tuple costs and both bitmap costs at 0, us. */
  readonly baseUs: number;
  /** What 1 us of bitmapTupleUs adds to the simulator's time, us (the scan's matched tuples). */
  readonly perTupleSlopeUs: number;
  /** What 1 us of bufferFirstUseUs adds, us (the buffers the scan uses for the first time). */
  readonly perFirstUseSlopeUs: number;
}

/** The fitted costs of a bitmap scan. */
export interface BitmapCostFit {
  /** Extra work per tuple a bitmap scan matches, us. */
  readonly bitmapTupleUs: number;
  /** Faulting in a shared buffer on its first use since the server started, us. */
  readonly bufferFirstUseUs: number;
  /** The cells the fit used (never predicted). */
  readonly fitCells: readonly string[];
  /** Fitted minus measured time, us, per fit cell. */
  readonly residualsUs: readonly number[];
}

/**
 * Fits bitmapTupleUs and bufferFirstUseUs to warm bitmap scans whose page
 * and tuple costs are already fitted. A warm scan reads no device, so its
 * time is linear in both costs: base + a x perTupleSlope + b x
 * perFirstUseSlope. Scans of different selectivity tell them apart: every
 * matched tuple costs a, but only the buffers up to shared_buffers cost b.
 * Least squares, kept non-negative: when the two-cost solution makes one
 * negative, or the samples cannot tell the costs apart, the better of the
 * one-cost fits is kept.
 */
export function fitBitmapCosts(samples: readonly BitmapFitSample[]): BitmapCostFit | null {
  const usable = samples.filter(
    (s) => Number.isFinite(s.timeUs) && s.timeUs > 0 && s.perTupleSlopeUs + s.perFirstUseSlopeUs > 0,
  );
  if (usable.length === 0) return null;
  const ys = usable.map((s) => s.timeUs - s.baseUs);
  const xa = usable.map((s) => s.perTupleSlopeUs);
  const xb = usable.map((s) => s.perFirstUseSlopeUs);
  const dot = (u: number[], v: number[]) => u.reduce((acc, x, i) => acc + x * v[i]!, 0);
  const sse = (a: number, b: number) => ys.reduce((acc, y, i) => acc + (a * xa[i]! + b * xb[i]! - y) ** 2, 0);
  const candidates: [number, number][] = [[0, 0]];
  const aa = dot(xa, xa);
  const bb = dot(xb, xb);
  const ab = dot(xa, xb);
  const ay = dot(xa, ys);
  const by = dot(xb, ys);
  if (aa > 0) candidates.push([Math.max(0, ay / aa), 0]);
  if (bb > 0) candidates.push([0, Math.max(0, by / bb)]);
  const det = aa * bb - ab * ab;
  // Two costs only when the samples separate them (not nearly collinear).
  if (usable.length >= 2 && det > 1e-9 * aa * bb) {
    const a = (ay * bb - by * ab) / det;
    const b = (by * aa - ay * ab) / det;
    if (a >= 0 && b >= 0) candidates.push([a, b]);
  }
  let best = candidates[0]!;
  for (const c of candidates) if (sse(c[0], c[1]) < sse(best[0], best[1])) best = c;
  const [bitmapTupleUs, bufferFirstUseUs] = best;
  return {
    bitmapTupleUs,
    bufferFirstUseUs,
    fitCells: usable.map((s) => s.cellId),
    residualsUs: ys.map((y, i) => bitmapTupleUs * xa[i]! + bufferFirstUseUs * xb[i]! - y),
  };
}

/** Throws when a cell used for the fit is also among the cells to predict. */
export function assertFitDisjoint(fitCells: readonly string[], predictedCells: readonly string[]): void {
  const fit = new Set(fitCells);
  const both = predictedCells.filter((id) => fit.has(id));
  if (both.length > 0) {
    throw new Error(`cells both fitted and predicted: ${both.join(", ")}`);
  }
}
