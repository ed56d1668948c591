/**
 * Other programs' reads during a measured run, and whether they leave the
 * run's request count known (Node-free arithmetic; the measurement feeds it
 * counters).
 *
 * Problem. A pattern run is judged by the device's read requests and their
 * average size, from /proc/diskstats. Those counters belong to the device:
 * any other program reading the same device during the run adds its
 * requests. Subtracting an estimate is not enough: the same foreign bytes
 * can be one large request or thousands of small ones, and small ones can
 * multiply the run's apparent request count (a sequential run of 512
 * requests, plus 5 MiB of 4 KiB reads, looks like 1,800 requests of a third
 * of the size). Unflagged, such a run printed a model-versus-kernel gap of
 * +1954% where a quiet run gave +0.0%.
 *
 * Insight. What the run itself read is known exactly: `/proc/self/io`
 * read_bytes counts the bytes this process caused to be read from storage.
 * The device's bytes beyond that are foreign. Foreign bytes F bound the
 * foreign requests: at least F / (the largest request, max_sectors_kb) and
 * at most F / (the smallest), and never more than the device's reads. So the run's own requests lie in a known
 * interval, and the run is undisturbed when that interval is narrow.
 *
 * Choices.
 * - The smallest foreign request is taken to be a page (4 KiB), or the
 *   device's logical block if that is larger: other programs' buffered
 *   reads go through the page cache, which moves whole pages. An O_DIRECT
 *   read of less than a page, possible on a 512-byte device, is rare; it
 *   would make the true bound up to 8 times looser.
 * - Undisturbed: the interval's width is at most 2% of its low end (our
 *   tolerance: the average request size is then known within 2%, finer
 *   than any gap the comparison cares about). A run with no foreign bytes
 *   is exact.
 * - The reported count subtracts a point estimate inside the interval
 *   (foreign bytes at the run's own average request size), as before; the
 *   interval and the verdict are reported beside it, so a reader sees how
 *   far the figure can be trusted.
 */

/** Device counters over one run (deltas). */
export interface RunCounters {
  /** Read requests the device completed. */
  deviceReads: number;
  /** Bytes the device read (sectors x 512). */
  deviceBytes: number;
  /** Bytes this process caused to be read (`/proc/self/io` read_bytes). */
  ownBytes: number;
}

/** What other programs did to a run. */
export interface Interference {
  /** Bytes the device read that the run did not (0 in a quiet run). */
  foreignBytes: number;
  /** Fewest requests those bytes can have been (each at most max_sectors_kb). */
  foreignRequestsMin: number;
  /** Most requests they can have been (each at least a page, and no more than the device's reads). */
  foreignRequestsMax: number;
  /** The run's own requests, estimated inside [reads - max, reads - min] (foreign bytes at the run's own average size). */
  ownRequests: number;
  /** The run's own requests are not known within the tolerance. */
  disturbed: boolean;
}

/** The smallest request another program's buffered read makes: one page. */
const PAGE_BYTES = 4096;

/** Widest uncertainty of the run's own request count, relative to its low end, for an undisturbed run (see the header). */
export const UNDISTURBED_TOLERANCE = 0.02;

/**
 * Judges one run (see the file header).
 *
 * @example
 * ```ts
 * import { judgeInterference } from "@scanlab/readahead/node";
 * // 512 requests of 512 KiB, plus 5 MiB read by someone else.
 * const i = judgeInterference({ deviceReads: 1792, deviceBytes: 261 << 20, ownBytes: 256 << 20 },
 *   { maxRequestBytes: 4 << 20, logicalBlockBytes: 512 });
 * i.disturbed; // true: those 5 MiB may have been anywhere from 2 to 1,280 of the requests
 * ```
 */
export function judgeInterference(
  c: RunCounters,
  limits: { maxRequestBytes: number; logicalBlockBytes: number },
): Interference {
  const foreignBytes = Math.max(0, c.deviceBytes - c.ownBytes);
  if (foreignBytes === 0) {
    return {
      foreignBytes,
      foreignRequestsMin: 0,
      foreignRequestsMax: 0,
      ownRequests: Math.max(1, c.deviceReads),
      disturbed: false,
    };
  }
  const most = Math.max(0, c.deviceReads - 1); // the run made at least one request of its own
  const foreignRequestsMin = Math.min(most, Math.ceil(foreignBytes / Math.max(1, limits.maxRequestBytes)));
  const smallest = Math.max(PAGE_BYTES, limits.logicalBlockBytes);
  const foreignRequestsMax = Math.min(most, Math.ceil(foreignBytes / smallest));
  const ownAvg = c.ownBytes / Math.max(1, c.deviceReads);
  const estimate = Math.round(foreignBytes / Math.max(ownAvg, smallest));
  const foreign = Math.min(foreignRequestsMax, Math.max(foreignRequestsMin, estimate));
  const low = Math.max(1, c.deviceReads - foreignRequestsMax);
  return {
    foreignBytes,
    foreignRequestsMin,
    foreignRequestsMax,
    ownRequests: Math.max(1, c.deviceReads - foreign),
    disturbed: foreignRequestsMax - foreignRequestsMin > UNDISTURBED_TOLERANCE * low,
  };
}
