/**
 * Test helper (not exported): drives a model like a simulator would, with a
 * fixed-latency device, and records every device read with the time it was
 * submitted and which read issued it.
 */
import type { DeviceRead, OpenFile, ReadaheadModel, ReadOutcome, SubmitIo } from "./model.js";
import type { PageCache } from "./page-cache.js";

/** A device read as the test saw it. */
export interface LoggedIo extends DeviceRead {
  /** Submission time. */
  atUs: number;
  /** Size in KiB. */
  kib: number;
  /** Label of the read that issued it. */
  by: string;
}

/** A device with latency `baseUs + usPerPage * pages` that logs what it is asked. */
export class TestDevice {
  readonly log: LoggedIo[] = [];
  nowUs = 0;
  by = "";
  constructor(
    readonly baseUs = 100,
    readonly usPerPage = 4,
  ) {}
  readonly submit: SubmitIo = (io) => {
    this.log.push({ ...io, atUs: this.nowUs, kib: io.pages * 4, by: this.by });
    return this.nowUs + this.baseUs + this.usPerPage * io.pages;
  };
  /** KiB of each logged read, in order. */
  sizes(): number[] {
    return this.log.map((l) => l.kib);
  }
}

/** One read through `model` at `nowUs`, resumed until done; returns the final outcome (readyAtUs = when the data is there). */
export function readAll<O extends OpenFile>(
  model: ReadaheadModel<O>,
  of: O,
  page: number,
  pages: number,
  nowUs: number,
  dev: TestDevice,
  by = "",
): ReadOutcome {
  dev.by = by;
  dev.nowUs = nowUs;
  let out = model.read(of, page, pages, nowUs, dev.submit);
  while (out.pending !== null) {
    dev.nowUs = out.readyAtUs;
    out = model.resume(out.pending, out.readyAtUs, dev.submit);
  }
  return out;
}

/** One 8 kB PostgreSQL block `block` (pages 2b, 2b+1). */
export function readBlock<O extends OpenFile>(
  model: ReadaheadModel<O>,
  of: O,
  block: number,
  nowUs: number,
  dev: TestDevice,
  by = "",
): ReadOutcome {
  return readAll(model, of, 2 * block, 2, nowUs, dev, by);
}

/**
 * Reads pages [start, end) in reads of `pagesPerRead`, spending `cpuUsPerPage` after each, from
 * `nowUs`: every read through `read()` (slow), or taking `quietRun` + `skipQuiet` where they allow
 * it (fast). Returns the end time and how many pages the fast path skipped.
 */
export function playRun<O extends OpenFile>(
  model: ReadaheadModel<O>,
  of: O,
  start: number,
  end: number,
  pagesPerRead: number,
  cpuUsPerPage: number,
  nowUs: number,
  dev: TestDevice,
  fast: boolean,
): { endUs: number; skipped: number } {
  let t = nowUs;
  let p = start;
  let skipped = 0;
  while (p < end) {
    if (fast) {
      const q = model.quietRun(of, p, end - p, pagesPerRead, t);
      if (q.pages > 0) {
        model.skipQuiet(of, p, q.pages, pagesPerRead, t);
        skipped += q.pages;
        p += q.pages;
        t = q.readyAtUs + cpuUsPerPage * q.pages;
        continue;
      }
    }
    const n = Math.min(pagesPerRead, end - p);
    t = readAll(model, of, p, n, t, dev).readyAtUs + cpuUsPerPage * n;
    p += n;
  }
  return { endUs: t, skipped };
}

/** A run of a file's pages that look the same from outside (see {@link observableRuns}). */
export interface ObservableRun {
  start: number;
  end: number;
  /** "valid", or the completion time of the read in flight. */
  ready: string | number;
  marker: number;
  epoch: number;
}

/**
 * The page cache's observable state of `file` at time `atUs`: runs of pages with the same state
 * (valid, or in flight until when), marker unit and LRU epoch (0 for all when `withEpoch` is false,
 * for an unbounded cache), adjacent equal runs merged however the cache happens to split them.
 */
export function observableRuns(
  cache: PageCache,
  file: number,
  atUs: number,
  withEpoch: boolean,
): ObservableRun[] {
  const merged: ObservableRun[] = [];
  for (const r of cache.extents(file)) {
    const x = {
      start: r.start,
      end: r.end,
      ready: r.readyAtUs <= atUs ? "valid" : r.readyAtUs,
      marker: r.markerUnit,
      epoch: withEpoch ? r.epoch : 0,
    };
    const last = merged.at(-1);
    if (
      last &&
      last.end === x.start &&
      last.ready === x.ready &&
      last.marker === x.marker &&
      last.epoch === x.epoch
    )
      last.end = x.end;
    else merged.push(x);
  }
  return merged;
}
