/**
 * How many bytes this process has caused to be read from storage: the
 * `read_bytes` line of Linux's `/proc/self/io` (task I/O accounting,
 * fs/proc/base.c do_io_accounting(), Documentation/filesystems/proc.rst).
 *
 * Problem: a scan that finds its file in the page cache reads nothing from
 * the device, and /proc/diskstats counts every process on the device, so
 * neither the scan's own byte count nor the device's says how much of the
 * scan came from storage.
 *
 * Insight: the kernel charges each read that reaches the block layer to the
 * task that caused it (read-ahead included), summed over the process's
 * threads in /proc/self/io. The difference of two readings around a scan is
 * what that scan made the device read.
 *
 * Design choices:
 * - One reader for every package (the real scanner, the kernel readahead
 *   measurement): a second copy drifted once to a different signature.
 * - `null` when the file is missing or has no `read_bytes` line (not Linux,
 *   or a kernel without CONFIG_TASK_IO_ACCOUNTING), so a caller says
 *   "unknown" instead of computing with a made-up zero.
 * - The path is a parameter only so tests can hand it a fixture.
 */
import { readFileSync } from "node:fs";

/**
 * Bytes this process (all its threads) has caused to be read from storage
 * (`/proc/self/io` read_bytes), or null where the counter is unreadable.
 *
 * @param path the file to read (default `/proc/self/io`).
 * @example
 * ```ts
 * import { processReadBytes } from "@scanlab/host";
 * const before = processReadBytes();
 * // ... scan a file ...
 * const after = processReadBytes();
 * const fromStorage = before === null || after === null ? null : after - before;
 * ```
 */
export function processReadBytes(path = "/proc/self/io"): number | null {
  try {
    const m = /^read_bytes:\s*(\d+)/m.exec(readFileSync(path, "utf8"));
    return m === null ? null : Number(m[1]);
  } catch {
    return null;
  }
}
