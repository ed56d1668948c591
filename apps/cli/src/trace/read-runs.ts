/**
 * Per-process read runs: the shape of a scan as the OS sees it.
 *
 * A run is a maximal sequence of one process's reads on one file where each
 * read starts exactly where the previous one ended, which is what Linux's
 * readahead and UFS's clustering look for (apps/docs/src/reference/os-readahead-policies.md). A serial seq scan is
 * one long run per process; PG 11-13 parallel workers striding one block at a
 * time make runs of about one block each (apps/docs/src/reference/experiments.md#t1-freebsd-ufs-striding-and-64-block-chunks); PG14+ chunks make
 * runs of chunk size.
 */
import type { TraceRead } from "@scanlab/host";

/** One process's reads summarised. */
export interface ProcessReads {
  /** Process id (0 when the trace has none). */
  pid: number;
  /** Process name, when the trace has one (blkparse). */
  name: string | null;
  /** Reads (requests) of this process. */
  reads: number;
  /** Bytes they transferred. */
  bytes: number;
  /** bytes / reads. */
  meanRequestBytes: number;
  /** Request size in bytes -> count, sizes ascending. */
  requestSizes: Record<string, number>;
  /** Distinct files read. */
  files: number;
  /** Runs of consecutive reads (per file). */
  runs: number;
  /** bytes / runs. */
  meanRunBytes: number;
  /** The longest run in bytes. */
  longestRunBytes: number;
  /** The first runs, as [file, start offset, bytes] (at most 20). */
  firstRuns: [string, number, number][];
}

/** Groups reads into per-process runs (reads in trace order). */
export function summariseReads(
  reads: readonly TraceRead[],
  names: ReadonlyMap<number, string> = new Map(),
): ProcessReads[] {
  const byPid = new Map<number, TraceRead[]>();
  for (const r of reads) {
    const list = byPid.get(r.pid) ?? [];
    list.push(r);
    byPid.set(r.pid, list);
  }
  const out: ProcessReads[] = [];
  for (const [pid, list] of byPid) {
    const sizes = new Map<number, number>();
    const runs: [string, number, number][] = [];
    const openRun = new Map<string, number>(); // file -> index of its current run
    let bytes = 0;
    for (const r of list) {
      bytes += r.bytes;
      sizes.set(r.bytes, (sizes.get(r.bytes) ?? 0) + 1);
      const i = openRun.get(r.file);
      const run = i === undefined ? undefined : runs[i];
      if (run !== undefined && run[1] + run[2] === r.offset) {
        run[2] += r.bytes;
      } else {
        openRun.set(r.file, runs.length);
        runs.push([r.file, r.offset, r.bytes]);
      }
    }
    const longest = runs.reduce((a, x) => Math.max(a, x[2]), 0);
    out.push({
      pid,
      name: names.get(pid) ?? null,
      reads: list.length,
      bytes,
      meanRequestBytes: list.length > 0 ? bytes / list.length : 0,
      requestSizes: Object.fromEntries(
        [...sizes].sort((a, b) => a[0] - b[0]).map(([k, v]) => [String(k), v]),
      ),
      files: new Set(list.map((r) => r.file)).size,
      runs: runs.length,
      meanRunBytes: runs.length > 0 ? bytes / runs.length : 0,
      longestRunBytes: longest,
      firstRuns: runs.slice(0, 20),
    });
  }
  return out;
}
