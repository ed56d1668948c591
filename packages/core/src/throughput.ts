/**
 * One throughput unit: MiB/s, 2^20 bytes per second, named `mibPerS` in
 * every field and "MiB/s" in every label.
 *
 * Problem: scanlab sets throughputs side by side (a simulated scan beside a
 * published one, a real scan beside its prediction, a sweep's points beside
 * each other), and the two megabytes differ by 4.9 %, which is as large as
 * the effects being compared. A figure in 10^6 bytes labelled "MB/s" beside
 * one in 2^20 bytes labelled the same reads 4.9 % apart for the same scan.
 *
 * Insight: the quantities a scan is made of are counted in powers of 1024 by
 * the systems scanlab models: PostgreSQL's sizes (BLCKSZ = 8192; kB, MB, GB in
 * postgresql.conf are 1024-based, guc.c memory_unit_conversion_table), the
 * kernel's readahead window (`read_ahead_kb`, in KiB), the sizes a user types
 * (`--table-size 800GB` is 800 GiB, as PostgreSQL reads it). In MiB/s a 1 GB
 * table scanned in one second is 1024, not 1073.7. The I/O statistics tools
 * the published experiments quote count the same way: FreeBSD's iostat "MB/s"
 * is bytes / (1024 * 1024) per second (lib/libdevstat/devstat.c,
 * devstat_compute_statistics, DSM_MB_PER_SECOND), and sysstat's `iostat -m`
 * reports MB_read/s as sectors / 2048 (1 MB = 2^20 bytes).
 *
 * Design choices:
 * - The unit is written "MiB/s" (IEC 80000-13), never "MB/s", so it cannot be
 *   mistaken for the decimal megabyte of datasheets, fio's `MB/s`, or dd.
 * - Device datasheets quote MB/s = 10^6 bytes per second. Such a figure is
 *   converted ({@link mibPerSFromMBPerS}), never relabelled: 270 MB/s is
 *   257.5 MiB/s. Citations keep the publication's own figure and unit.
 * - Bytes and seconds in, MiB/s out ({@link mibPerS}); callers that already
 *   hold bytes per second or bytes per microsecond have their own helpers, so
 *   no call site divides by 1048576 or 1e6 by hand.
 */

/** Bytes in a mebibyte, 2^20: the MiB of {@link THROUGHPUT_UNIT}. */
export const BYTES_PER_MIB = 1_048_576;

/** The label of every throughput scanlab prints: mebibytes (2^20 bytes) per second. */
export const THROUGHPUT_UNIT = "MiB/s";

/**
 * Bytes moved over seconds, in MiB/s (NaN for no time, as for no finished run).
 *
 * @example
 * ```ts
 * import { mibPerS } from "@scanlab/core";
 * console.log(mibPerS(131072 * 8192, 2)); // 512
 * ```
 */
export function mibPerS(bytes: number, seconds: number): number {
  return bytes / BYTES_PER_MIB / seconds;
}

/**
 * A rate in bytes per second, in MiB/s.
 *
 * @example
 * ```ts
 * import { mibPerSFromBytesPerSecond } from "@scanlab/core";
 * console.log(mibPerSFromBytesPerSecond(125 * 1048576)); // 125
 * ```
 */
export function mibPerSFromBytesPerSecond(bytesPerSecond: number): number {
  return bytesPerSecond / BYTES_PER_MIB;
}

/**
 * A rate in bytes per microsecond (what a timer in microseconds gives), in MiB/s.
 *
 * @example
 * ```ts
 * import { mibPerSFromBytesPerUs } from "@scanlab/core";
 * console.log(mibPerSFromBytesPerUs(1048576 / 1e6)); // 1
 * ```
 */
export function mibPerSFromBytesPerUs(bytesPerUs: number): number {
  return (bytesPerUs * 1e6) / BYTES_PER_MIB;
}

/**
 * A decimal MB/s figure (10^6 bytes per second: datasheets, fio's `MB/s`,
 * dd), converted to MiB/s.
 *
 * @example
 * ```ts
 * import { mibPerSFromMBPerS } from "@scanlab/core";
 * console.log(mibPerSFromMBPerS(270).toFixed(1)); // 257.5 (the Intel SSD 320's datasheet 270 MB/s)
 * ```
 */
export function mibPerSFromMBPerS(mbPerS: number): number {
  return (mbPerS * 1e6) / BYTES_PER_MIB;
}
