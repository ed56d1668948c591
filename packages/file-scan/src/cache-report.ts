/**
 * Cold or warm, as one scan finds it: the page cache prepared and measured
 * before the workers start, measured again after, and reported.
 *
 * Problem. A scan of a file that is already in the page cache measures
 * memory copies, not the device (page-cache.ts). So what the cache held
 * must be measured rather than assumed from the eviction option, and
 * measured in a way this caller can see: for a file it may read but not
 * write, Linux's mincore() reports every page resident
 * (residency-visibility.ts).
 *
 * Design choices.
 * - Before the workers start: evict if asked (unless the scan is already
 *   aborted); where the kernel hands freed memory back to a hypervisor, wait
 *   for it to be reported (`settleFreedMemory`, @scanlab/host), so the scan
 *   reads into memory as a file cold in production does and pays the host's
 *   fault on each new page; then measure residency (fincore). The
 *   measurement, not the option, makes the scan cold, warm or mixed
 *   (classifyCache, page-cache.ts).
 * - Whether mincore() tells this caller the truth is decided at the same
 *   moment. When it does not, cold or warm comes afterwards from the bytes
 *   the device read for the scan (`/proc/self/io` read_bytes, sampled around
 *   the timed window: timed-window.ts), and the report names that method
 *   and why.
 * - More than {@link COLD_MAX_RESIDENT_FRACTION} of the file still resident
 *   just after an eviction that ran is worth a warning: pages in use or
 *   dirty elsewhere. Residency that cannot be measured, or an eviction that
 *   did not run, is a warning too.
 *
 * Interface: {@link prepareCache} before the workers start,
 * {@link reportCache} after the timed window.
 */
import { evictFromPageCache, measureResidency, settleFreedMemory } from "@scanlab/host";
import {
  type CacheState,
  COLD_MAX_RESIDENT_FRACTION,
  classifyCache,
  type EvictionReport,
  type Residency,
} from "./page-cache.js";
import {
  classifyByDeviceReads,
  type ResidencyVisibility,
  residencyVisibility,
} from "./residency-visibility.js";
import type { ScanRequest } from "./scan-options.js";
import type { ScanTarget } from "./target.js";

/** Page cache residency before and after, and what that makes the scan. */
export interface CacheReport {
  /**
   * cold / warm / mixed: from the residency measured before the scan (method "mincore"; unknown without
   * fincore), or from the bytes the device read for the scan (method "device-reads") when the kernel hides
   * residency from this caller (residency-visibility.ts).
   */
  readonly state: CacheState;
  /** How `state` was found. */
  readonly method: "mincore" | "device-reads";
  /** Why residency could not be used, when method is "device-reads". */
  readonly methodReason?: string;
  /** Bytes the device read for this process during the scan (`/proc/self/io` read_bytes), or null where unknown. */
  readonly deviceReadBytes: number | null;
  /** Residency just before the workers started. */
  readonly before: Residency;
  /** Residency just after the scan. */
  readonly after: Residency;
  /** What eviction did (requested: false when not asked). */
  readonly eviction: EvictionReport;
}

/** The page cache just before the workers start. */
export interface PreparedCache {
  /** The target's files. */
  readonly paths: readonly string[];
  /** What eviction did. */
  readonly eviction: EvictionReport;
  /** Residency after eviction, before the workers start. */
  readonly before: Residency;
  /** Whether mincore() shows this caller the truth about these files. */
  readonly visibility: ResidencyVisibility;
  /** Sentences about eviction and residency, in the order they were found. */
  readonly warnings: readonly string[];
}

/**
 * Evicts the target's files when `request.evict` is set (and its signal has
 * not aborted), waits for the freed memory where a hypervisor takes it back,
 * then measures residency.
 */
export async function prepareCache(
  target: ScanTarget,
  request: Pick<ScanRequest, "evict" | "signal">,
): Promise<PreparedCache> {
  const paths = target.segments.map((s) => s.path);
  const warnings: string[] = [];
  let eviction: EvictionReport = { requested: false, ok: false };
  if (request.evict && !request.signal?.aborted) {
    eviction = { requested: true, ...evictFromPageCache(paths) };
    if (!eviction.ok && eviction.reason !== undefined) warnings.push(eviction.reason);
    else eviction = { ...eviction, settled: await settleFreedMemory(request.signal) };
  }
  const before = measureResidency(paths);
  const visibility = residencyVisibility(paths);
  if (!before.known) warnings.push(before.reason);
  if (visibility.visible && eviction.ok && before.known && before.fraction > COLD_MAX_RESIDENT_FRACTION) {
    warnings.push(
      `after eviction ${(before.fraction * 100).toFixed(1)}% of the file was still resident (pages in use or dirty elsewhere).`,
    );
  }
  return { paths, eviction, before, visibility, warnings };
}

/**
 * Measures residency after the scan and reports the cache: cold or warm from
 * the residency before, or, where that is hidden, from `deviceReadBytes` of
 * the `scannedBytes` (then `methodReason` says why).
 */
export function reportCache(
  prepared: PreparedCache,
  deviceReadBytes: number | null,
  scannedBytes: number,
): CacheReport {
  const { paths, eviction, before, visibility } = prepared;
  const after = measureResidency(paths);
  if (visibility.visible) {
    return { state: classifyCache(before), method: "mincore", deviceReadBytes, before, after, eviction };
  }
  return {
    state: classifyByDeviceReads(deviceReadBytes, scannedBytes),
    method: "device-reads",
    methodReason: `${visibility.reason}; cold or warm comes from the bytes the device read for the scan (/proc/self/io read_bytes).`,
    deviceReadBytes,
    before,
    after,
    eviction,
  };
}
