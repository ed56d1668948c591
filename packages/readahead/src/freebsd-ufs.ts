/**
 * FreeBSD UFS/FFS read clustering (`sys/kern/vfs_cluster.c`,
 * `sys/kern/vfs_vnops.c`, `sys/ufs/ffs/ffs_vnops.c`).
 *
 * The story (apps/docs/src/reference/freebsd-ufs-clustering.md, rule by rule from the source text it cites):
 *
 * FreeBSD does not look at the page cache to guess a stream. Each open file
 * (`struct file`) keeps a *sequentiality counter* `f_seqcount` and the offset
 * where its previous read ended, `f_nextoff`. `sequential_heuristic()` runs
 * on every read that reaches the file system: a read that starts where the
 * previous one ended (or at offset 0 while the counter is positive) adds one
 * per 16 KiB read to the counter (capped at `IO_SEQMAX` = 127) and passes it
 * down; any other read draws the counter down to 1, then 0, and **gets no
 * readahead at all** (apps/docs/src/reference/freebsd-ufs-clustering.md#sequential-heuristic).
 *
 * `ffs_read()` hands each file-system block (`bsize`, 32 KiB by default) the
 * read touches to `cluster_read()` (apps/docs/src/reference/freebsd-ufs-clustering.md#ffs-read, apps/docs/src/reference/freebsd-ufs-clustering.md#cluster-read). If the block is cached, the
 * reader waits for it if it is still being read, then looks at its `B_RAM`
 * ("read-ahead mark") flag: with a positive counter and a mark, it clears the
 * mark, walks the cached blocks ahead (re-marking every `racluster`-th and the
 * last one it may read ahead to) and, if it finds a hole within
 * `maxra = min(seqcount, read_max)` blocks, reads ahead from there. If the
 * block is not cached, it is read **synchronously**, alone for an 8 kB read
 * (one 32 KiB I/O, marked), then readahead runs if the counter allows.
 * Readahead builds clusters with `cluster_rbuild()` (apps/docs/src/reference/freebsd-ufs-clustering.md#cluster-rbuild): runs of absent
 * blocks up to `mnt_iosize_max` (128 KiB up to FreeBSD 12, up to 1 MiB from
 * 13), one device I/O each, the first and last blocks marked.
 *
 * Everything is gated on *this open file's* counter. Two processes striding
 * through a file each see their reads jump (`off != f_nextoff`): the counter
 * falls to 0, every miss is a lone synchronous 32 KiB read, and marks are
 * ignored (apps/docs/src/reference/freebsd-ufs-clustering.md#why-striding-collapses-to-32-kb, "a strict next-block system"). That is the 32 kB collapse
 * Thomas Munro measured in 2020.
 *
 * FreeBSD 13 added a page-cache fast path (`VOP_READ_PGCACHE`,
 * `vn_read_from_obj()`, apps/docs/src/reference/freebsd-ufs-clustering.md#version-notes): a read of at most 16 pages that is entirely
 * resident and valid is copied without `sequential_heuristic()` or
 * `cluster_read()`; only `f_nextoff` moves. So with `version: ">=13"` the
 * counter grows only on slow-path reads and marks on resident blocks go
 * unseen (apps/docs/src/reference/freebsd-ufs-clustering.md#version-notes marks this consequence [I]).
 *
 * Simplifications (all [I]): files are contiguous on disk (every
 * `VOP_BMAP` run is maximal, no holes); `nbuf / 8` does not limit `maxra`;
 * the mount does not use `noclusterr`; a buffer is present exactly when all
 * its pages are (UFS reads whole blocks); the last partial block of a file
 * is a whole block; a fast-path read whose pages are only partly valid takes
 * the slow path for all of it.
 */
import { checkNumber, ReadaheadError } from "./errors.js";
import {
  checkRead,
  emptyTally,
  type FadviseAdvice,
  type IoTally,
  issueRun,
  type OpenFile,
  type OpenOptions,
  outcome,
  PAGE_BYTES,
  type PendingRead,
  type QuietRun,
  RENAME_FILE,
  type ReadaheadModel,
  type ReadOutcome,
  type SubmitIo,
  wholeReads,
} from "./model.js";
import type { PageCache, PageState } from "./page-cache.js";
import { fadviseRange, openSizePages, unknownAdvice, validPagesAt } from "./per-open.js";

/** FreeBSD lines: "<=12" (classic path, MAXPHYS 128 KiB) or ">=13" (page-cache fast path, maxphys 1 MiB). */
export type FreeBsdVersion = "<=12" | ">=13";

/** Options of {@link freebsdUfsReadahead}. */
export interface FreeBsdUfsOptions {
  /** Version line. Default ">=13". */
  version?: FreeBsdVersion;
  /** UFS block size `bsize` in bytes. Default 32768 (newfs default, apps/docs/src/reference/freebsd-ufs-clustering.md#ufs-parameters). */
  bsizeBytes?: number;
  /**
   * MAXPHYS / `kern.maxphys`: 131072 up to FreeBSD 12, 1048576 from 13 on
   * 64-bit (apps/docs/src/reference/freebsd-ufs-clustering.md#ufs-parameters). Default by version.
   */
  maxphysBytes?: number;
  /**
   * The device's `si_iosize_max` (0: DFLTPHYS, 65536). `mnt_iosize_max` is this
   * capped at MAXPHYS. Default: as large as MAXPHYS (the device allows it).
   */
  deviceMaxIoBytes?: number;
  /** `vfs.read_max`: most blocks read ahead of the reader. Default 64 (apps/docs/src/reference/freebsd-ufs-clustering.md#ufs-parameters). */
  readMax?: number;
  /** `vfs.read_min`: fewest blocks a synchronous miss reads. Default 1 (apps/docs/src/reference/freebsd-ufs-clustering.md#ufs-parameters). */
  readMin?: number;
}

/** Per-open state of the FreeBSD model (`struct file`). */
export class FreeBsdOpenFile implements OpenFile {
  /** File id. */
  private fileId: number;
  /** File size in pages. */
  readonly sizePages: number;
  /** `f_seqcount` (open sets it to 1). */
  seqcount = 1;
  /** `f_nextoff` in pages. */
  nextOffPages = 0;
  /** POSIX_FADV_RANDOM in force (skips the heuristic). */
  random = false;
  /** F_READAHEAD: a fixed counter that bypasses the heuristic, or null. */
  fixedSeqcount: number | null;

  /** @internal */
  constructor(file: number, sizePages: number, fixedSeqcount: number | null) {
    this.fileId = file;
    this.sizePages = sizePages;
    this.fixedSeqcount = fixedSeqcount;
  }
  /** File id. */
  get file(): number {
    return this.fileId;
  }

  /** `renumberOpenFile` (sim.ts). */
  [RENAME_FILE](file: number): void {
    this.fileId = file;
  }
}

/** Options of {@link FreeBsdUfsReadahead.open}. */
export interface FreeBsdOpenOptions extends OpenOptions {
  /**
   * `fcntl(F_READAHEAD)`: fix the counter handed to `cluster_read` (sets
   * FRDAHEAD, which skips detection, apps/docs/src/reference/freebsd-ufs-clustering.md#sequential-heuristic). Default: none.
   */
  readaheadSeqcount?: number;
}

/** `IO_SEQMAX` (sys/sys/vnode.h, 0x7F; apps/docs/src/reference/freebsd-ufs-clustering.md#ufs-parameters): the counter's cap. */
const IO_SEQMAX = 127;
/** Sequentiality unit of `sequential_heuristic()` (vfs_vnops.c; apps/docs/src/reference/freebsd-ufs-clustering.md#ufs-parameters, apps/docs/src/reference/freebsd-ufs-clustering.md#sequential-heuristic): 16384 bytes = 4 pages. */
const SEQ_UNIT_PAGES = 16384 / PAGE_BYTES;
/** Largest read the page-cache fast path takes (`io_hold_cnt` = 16 pages, vfs_vnops.c; apps/docs/src/reference/freebsd-ufs-clustering.md#version-notes). */
const PGCACHE_MAX_PAGES = 16;

class FreeBsdPending implements PendingRead {
  readonly of: FreeBsdOpenFile;
  readonly startPage: number;
  readonly end: number;
  /** Next block to hand to cluster_read. */
  lbn: number;
  /** Readahead loop in progress: [next, limit) of cluster_read, or null. */
  raNext = -1;
  raLimit = -1;
  /** Block waited for whose B_RAM check is still to do (-1 none). */
  checkAfterWait = -1;
  readonly seq: number;
  readyAtUs: number;
  readonly hitPages: number;
  /** Pages per UFS block (the model's). */
  readonly blockPages: number;
  done = false;
  constructor(
    of: FreeBsdOpenFile,
    startPage: number,
    end: number,
    blockPages: number,
    seq: number,
    readyAtUs: number,
    hitPages: number,
  ) {
    this.of = of;
    this.blockPages = blockPages;
    this.lbn = Math.floor(startPage / blockPages);
    this.startPage = startPage;
    this.end = end;
    this.seq = seq;
    this.readyAtUs = readyAtUs;
    this.hitPages = hitPages;
  }
  /** Pages from the next block still to hand to cluster_read (or whose marker check waits) to the end. */
  get remainingPages(): number {
    if (this.done) return 0;
    const from = this.lbn * this.blockPages;
    return this.end - Math.max(from, this.startPage);
  }
}

/** The FreeBSD UFS model (see the file header for the story). */
export class FreeBsdUfsReadahead implements ReadaheadModel<FreeBsdOpenFile> {
  readonly name = "freebsd-ufs" as const;
  readonly confidence = "medium" as const;
  readonly label: string;
  readonly cache: PageCache;
  /** Version line. */
  readonly version: FreeBsdVersion;
  /** Pages per UFS block. */
  readonly blockPages: number;
  /** `racluster`: largest cluster in blocks. */
  readonly racluster: number;
  /** markedHit's blocks to re-mark (reused, no allocation per hit). */
  private readonly marks: number[] = [];
  /** `vfs.read_max`. */
  readonly readMax: number;
  /** `vfs.read_min`. */
  readonly readMin: number;

  constructor(cache: PageCache, options: FreeBsdUfsOptions = {}) {
    this.cache = cache;
    const version = options.version ?? ">=13";
    if (version !== "<=12" && version !== ">=13") {
      throw new ReadaheadError(
        "READAHEAD_UNKNOWN_VERSION",
        `FreeBSD version ${JSON.stringify(version)} is unknown; use "<=12" or ">=13".`,
      );
    }
    this.version = version;
    // Defaults (apps/docs/src/reference/freebsd-ufs-clustering.md#ufs-parameters): bsize 32 KiB (newfs); MAXPHYS 128 KiB up to 12, kern.maxphys 1 MiB
    // from 13 (64-bit); DFLTPHYS 64 KiB when the device gives no si_iosize_max; read_max 64, read_min 1.
    const bsize = checkNumber("FreeBSD bsizeBytes", options.bsizeBytes ?? 32768, {
      min: PAGE_BYTES,
      integer: true,
    });
    if (bsize % PAGE_BYTES !== 0) {
      throw new ReadaheadError(
        "READAHEAD_BAD_PARAMETER",
        `FreeBSD bsizeBytes must be a multiple of ${PAGE_BYTES}, got ${bsize}.`,
      );
    }
    const maxphys = checkNumber(
      "FreeBSD maxphysBytes",
      options.maxphysBytes ?? (version === "<=12" ? 131072 : 1048576),
      { min: bsize, integer: true },
    );
    const device = checkNumber("FreeBSD deviceMaxIoBytes", options.deviceMaxIoBytes ?? maxphys, {
      min: 0,
      integer: true,
    });
    const iosizeMax = Math.min(device === 0 ? 65536 : device, maxphys);
    this.blockPages = bsize / PAGE_BYTES;
    this.racluster = Math.max(1, Math.floor(iosizeMax / bsize));
    this.readMax = checkNumber("FreeBSD readMax", options.readMax ?? 64, { min: 0, integer: true });
    this.readMin = checkNumber("FreeBSD readMin", options.readMin ?? 1, { min: 0, integer: true });
    this.label =
      `freebsd-ufs ${version} (bsize ${bsize / 1024} KiB, mnt_iosize_max ${iosizeMax / 1024} KiB, ` +
      `read_max ${this.readMax}${version === ">=13" ? ", page-cache fast path" : ""})`;
  }

  open(file: number, options: FreeBsdOpenOptions = {}): FreeBsdOpenFile {
    const fixed =
      options.readaheadSeqcount === undefined
        ? null
        : Math.min(
            IO_SEQMAX,
            checkNumber("FreeBSD readaheadSeqcount", options.readaheadSeqcount, { integer: true }),
          );
    return new FreeBsdOpenFile(file, openSizePages(options), fixed);
  }

  // ------------------------------------------------------------------ reads

  /** Blocks in the file (the last partial one counts as a block). */
  private fileBlocks(of: FreeBsdOpenFile): number {
    return Math.ceil(of.sizePages / this.blockPages);
  }

  /** Whole blocks in the file (EOF clamps of cluster_read and cluster_rbuild). */
  private fullBlocks(of: FreeBsdOpenFile): number {
    return Math.floor(of.sizePages / this.blockPages);
  }

  /** `sequential_heuristic()` (apps/docs/src/reference/freebsd-ufs-clustering.md#sequential-heuristic): updates the counter, returns what the read gets. */
  private heuristic(of: FreeBsdOpenFile, page: number, pages: number): number {
    if (of.random) return 0;
    if (of.fixedSeqcount !== null) return of.fixedSeqcount;
    if ((page === 0 && of.seqcount > 0) || page === of.nextOffPages) {
      of.seqcount = Math.min(IO_SEQMAX, of.seqcount + this.seqIncrement(pages));
      return of.seqcount;
    }
    of.seqcount = of.seqcount > 1 ? 1 : 0;
    return 0;
  }

  read(of: FreeBsdOpenFile, page: number, pages: number, nowUs: number, submit: SubmitIo): ReadOutcome {
    checkRead(of, page, pages);
    const hitPages = validPagesAt(this.cache, of.file, page, pages, nowUs);
    if (this.fastEligible(pages) && hitPages === pages) {
      // FreeBSD 13 page-cache fast path: every page resident and valid.
      of.nextOffPages = page + pages;
      this.cache.touch(of.file, page, pages, nowUs);
      return outcome(emptyTally(), nowUs, null, hitPages);
    }
    const seq = this.heuristic(of, page, pages);
    const r = new FreeBsdPending(of, page, page + pages, this.blockPages, seq, nowUs, hitPages);
    return this.walk(r, nowUs, submit);
  }

  resume(pendingRead: PendingRead, nowUs: number, submit: SubmitIo): ReadOutcome {
    if (!(pendingRead instanceof FreeBsdPending) || pendingRead.done) {
      throw new RangeError("resume() needs the pending read of an unfinished FreeBSD read");
    }
    return this.walk(pendingRead, nowUs, submit);
  }

  /**
   * A buffer is cached (B_CACHE) only if all its pages are: a block with a
   * page evicted is read again. Returns the block's state, completion time
   * and first marked page (B_RAM), or -1.
   */
  private blockState(
    of: FreeBsdOpenFile,
    lbn: number,
    nowUs: number,
  ): { state: PageState; readyAtUs: number; markerUnit: number } {
    const a = lbn * this.blockPages;
    const b = Math.min(a + this.blockPages, of.sizePages);
    // One walk over the block's extents: all present? latest completion? a mark?
    let e = this.cache.extentAt(of.file, a);
    let t = nowUs;
    let mark = -1;
    let p = a;
    while (p < b) {
      if (e === null || e.start > p) return { state: "absent", readyAtUs: Number.NaN, markerUnit: -1 };
      if (e.readyAtUs > t) t = e.readyAtUs;
      if (mark < 0 && e.mark >= 0) mark = e.mark;
      p = e.end;
      e = e.next[0]!;
    }
    return { state: t > nowUs ? "in-flight" : "valid", readyAtUs: t, markerUnit: mark };
  }

  /** Anything for cluster_read to decide in blocks [from, lastLbn] of this read? */
  private decisionsAhead(r: FreeBsdPending, from: number, lastLbn: number): boolean {
    const bp = this.blockPages;
    const a = from * bp;
    const b = Math.min((lastLbn + 1) * bp, r.of.sizePages);
    if (a >= b) return false;
    if (this.cache.nextMissing(r.of.file, a, b - a) < b) return true;
    return r.seq > 0 && this.cache.markerIn(r.of.file, a, b) >= 0;
  }

  /** `ffs_read()`: one `cluster_read()` (or `bread()` at EOF) per block the read touches. */
  private walk(r: FreeBsdPending, nowUs: number, submit: SubmitIo): ReadOutcome {
    const tally = emptyTally();
    const of = r.of;
    const bp = this.blockPages;
    const lastLbn = Math.floor((r.end - 1) / bp);
    const nblocks = this.fileBlocks(of);
    for (;;) {
      // A readahead loop interrupted by a wait on a busy buffer?
      if (r.raNext >= 0) {
        const wait = this.readaheadLoop(r, nowUs, submit, tally);
        if (wait !== null) return this.pendingAt(r, wait, tally);
        r.lbn++;
      } else if (r.checkAfterWait >= 0) {
        const lbn = r.checkAfterWait;
        r.checkAfterWait = -1;
        // The mark may have been taken by another reader while this one slept.
        if (this.blockState(of, lbn, nowUs).markerUnit >= 0) {
          const wait = this.markedHit(r, lbn, nowUs, submit, tally);
          if (wait !== null) return this.pendingAt(r, wait, tally);
        }
        r.lbn++;
      }
      if (r.lbn > lastLbn) break;
      const lbn = r.lbn;
      const st = this.blockState(of, lbn, nowUs);
      const totreadPages = r.end - lbn * bp;
      if (lbn + 1 >= nblocks) {
        // Don't do readahead if this is the end of the file: bread().
        if (st.state === "absent") {
          issueRun(
            this.cache,
            submit,
            tally,
            of.file,
            lbn * bp,
            Math.min(bp, of.sizePages - lbn * bp),
            true,
            bp,
            nowUs,
          );
        }
        this.noteReady(r, lbn, nowUs);
        r.lbn++;
        continue;
      }
      if (st.state === "absent") {
        const wait = this.missPath(r, lbn, totreadPages, nowUs, submit, tally);
        if (wait !== null) return this.pendingAt(r, wait, tally);
        r.lbn++;
        // bufwait(reqbp): the reader sleeps until block lbn is read before the next block.
        const t = this.cache.readyAt(of.file, lbn * bp, (lbn + 1) * bp, nowUs);
        if (t > nowUs && this.decisionsAhead(r, r.lbn, lastLbn)) return this.pendingAt(r, t, tally);
        continue;
      }
      // Present: getblk() sleeps while it is being read, then the B_RAM check.
      const marked = st.markerUnit >= 0 && r.seq > 0;
      if (st.state === "in-flight") {
        this.noteReady(r, lbn, nowUs);
        if (marked || this.decisionsAhead(r, lbn + 1, lastLbn)) {
          if (marked) r.checkAfterWait = lbn;
          else r.lbn++;
          return this.pendingAt(r, st.readyAtUs, tally);
        }
        r.lbn++;
        continue;
      }
      if (marked) {
        const wait = this.markedHit(r, lbn, nowUs, submit, tally);
        if (wait !== null) return this.pendingAt(r, wait, tally);
      }
      r.lbn++;
    }
    r.done = true;
    of.nextOffPages = r.end;
    this.cache.touch(of.file, r.startPage, r.end - r.startPage, nowUs);
    return outcome(tally, r.readyAtUs, null, r.hitPages);
  }

  private pendingAt(r: FreeBsdPending, untilUs: number, tally: IoTally): ReadOutcome {
    if (untilUs > r.readyAtUs) r.readyAtUs = untilUs;
    return outcome(tally, untilUs, r, r.hitPages);
  }

  private noteReady(r: FreeBsdPending, lbn: number, nowUs: number): void {
    const bp = this.blockPages;
    const t = this.cache.readyAt(r.of.file, lbn * bp, (lbn + 1) * bp, nowUs);
    if (t > r.readyAtUs) r.readyAtUs = t;
  }

  /** `maxra` of cluster_read. */
  private maxra(of: FreeBsdOpenFile, lbn: number, seq: number): number {
    let maxra = Math.min(seq, this.readMax);
    const blocksInFile = this.fullBlocks(of);
    if (lbn + maxra + 1 > blocksInFile) maxra = blocksInFile - lbn;
    return maxra;
  }

  /** cluster_read, block present and valid, counter positive, B_RAM set (apps/docs/src/reference/freebsd-ufs-clustering.md#block-present). */
  private markedHit(
    r: FreeBsdPending,
    lbn: number,
    nowUs: number,
    submit: SubmitIo,
    tally: IoTally,
  ): number | null {
    const of = r.of;
    const bp = this.blockPages;
    const cache = this.cache;
    const maxra = this.maxra(of, lbn, r.seq);
    cache.clearMarker(of.file, lbn * bp, nowUs);
    // The blocks ahead, in one walk of the extent list (blockState per block, without a search
    // each); the marks go on after the walk, since setting one splits the extents walked.
    const marks = this.marks;
    marks.length = 0;
    let e = cache.extentAt(of.file, (lbn + 1) * bp);
    let i = 1;
    for (; i < maxra; i++) {
      const a = (lbn + i) * bp;
      const end = Math.min(a + bp, of.sizePages);
      let t = nowUs;
      let p = a;
      while (p < end) {
        if (e === null || e.start > p) break;
        if (e.readyAtUs > t) t = e.readyAtUs;
        if (e.end > end) {
          p = end; // e runs on into the next block
          break;
        }
        p = e.end;
        e = e.next[0]!;
      }
      if (p < end) break; // absent
      if ((i % this.racluster === this.racluster - 1 || i === maxra - 1) && t <= nowUs) {
        // BUF_LOCK(LK_NOWAIT) succeeds only on a buffer not under I/O.
        marks.push(lbn + i);
      }
    }
    for (const b of marks) cache.setMarker(of.file, b * bp, (b + 1) * bp, nowUs);
    if (i >= maxra) return null;
    r.raNext = lbn + i;
    r.raLimit = lbn + maxra;
    return this.readaheadLoop(r, nowUs, submit, tally);
  }

  /** cluster_read, block absent (apps/docs/src/reference/freebsd-ufs-clustering.md#block-absent), then the readahead loop. */
  private missPath(
    r: FreeBsdPending,
    lbn: number,
    totreadPages: number,
    nowUs: number,
    submit: SubmitIo,
    tally: IoTally,
  ): number | null {
    const of = r.of;
    const bp = this.blockPages;
    const cache = this.cache;
    const maxra = this.maxra(of, lbn, r.seq);
    let tot = Math.max(totreadPages, this.readMin * bp);
    if (lbn * bp + tot > of.sizePages) tot = of.sizePages - lbn * bp;
    let nblks = Math.ceil(tot / bp);
    if (nblks > this.racluster) nblks = this.racluster;
    let next: number;
    if (nblks > 1) {
      const k = this.rbuild(of, lbn, nblks, true, nowUs, submit, tally);
      next = lbn + k;
    } else {
      issueRun(cache, submit, tally, of.file, lbn * bp, bp, true, bp, nowUs);
      cache.setMarker(of.file, lbn * bp, (lbn + 1) * bp, nowUs);
      next = lbn + 1;
    }
    this.noteReady(r, lbn, nowUs);
    if (next < lbn + maxra) {
      r.raNext = next;
      r.raLimit = lbn + maxra;
      return this.readaheadLoop(r, nowUs, submit, tally);
    }
    return null;
  }

  /**
   * The readahead loop of cluster_read (apps/docs/src/reference/freebsd-ufs-clustering.md#readahead-loop). getblk() on a buffer under
   * I/O sleeps until it completes: the loop then returns the time to resume at.
   */
  private readaheadLoop(r: FreeBsdPending, nowUs: number, submit: SubmitIo, tally: IoTally): number | null {
    const of = r.of;
    while (r.raNext < r.raLimit) {
      const st = this.blockState(of, r.raNext, nowUs);
      if (st.state === "in-flight") return st.readyAtUs;
      // cluster_rbuild() on a present first block: no I/O, it consumes 1 block (apps/docs/src/reference/freebsd-ufs-clustering.md#cluster-rbuild).
      r.raNext +=
        st.state === "absent" ? this.rbuild(of, r.raNext, this.racluster, false, nowUs, submit, tally) : 1;
    }
    r.raNext = -1;
    r.raLimit = -1;
    return null;
  }

  /**
   * `cluster_rbuild()` (apps/docs/src/reference/freebsd-ufs-clustering.md#cluster-rbuild): one device I/O of the absent blocks from
   * `first` (absent: the caller checked), stopping at a present block or
   * `mnt_iosize_max`. Returns blocks consumed.
   */
  private rbuild(
    of: FreeBsdOpenFile,
    first: number,
    run: number,
    sync: boolean,
    nowUs: number,
    submit: SubmitIo,
    tally: IoTally,
  ): number {
    const bp = this.blockPages;
    const cache = this.cache;
    const fullBlocks = this.fullBlocks(of);
    let n = run;
    while (n > 1 && first + n > fullBlocks) n--;
    // Blocks first+1 .. first+n-1 join while no page of theirs is cached (present, busy or partly valid).
    let k = n;
    if (n > 1) {
      const from = (first + 1) * bp;
      const to = Math.min((first + n) * bp, of.sizePages);
      const present = cache.nextPresent(of.file, from, to);
      if (present < to) k = Math.floor((present - first * bp) / bp);
    }
    const startPage = first * bp;
    const endPage = Math.min((first + k) * bp, of.sizePages);
    issueRun(cache, submit, tally, of.file, startPage, endPage - startPage, sync, k * bp, nowUs);
    if (!sync) cache.setMarker(of.file, startPage, startPage + Math.min(bp, endPage - startPage), nowUs);
    if (sync && k >= 2)
      cache.setMarker(of.file, (first + 1) * bp, Math.min((first + 2) * bp, endPage), nowUs);
    if (k === n && n >= 2) cache.setMarker(of.file, (first + k - 1) * bp, endPage, nowUs);
    return k;
  }

  // --------------------------------------------------------------- fadvise

  fadvise(
    of: FreeBsdOpenFile,
    advice: FadviseAdvice,
    page: number,
    pages: number,
    nowUs: number,
    _submit: SubmitIo,
  ): IoTally {
    switch (advice) {
      case "random":
        of.random = true;
        break;
      case "normal":
      case "sequential":
        of.random = false; // SEQUENTIAL/NOREUSE behave like NORMAL (apps/docs/src/reference/freebsd-ufs-clustering.md#sequential-heuristic)
        break;
      case "willneed":
        break; // vop_stdadvise: "do nothing for now"
      case "dontneed": {
        const n = fadviseRange(of, page, pages);
        if (n > 0) this.cache.drop(of.file, page, n, nowUs);
        break;
      }
      default:
        throw unknownAdvice(advice);
    }
    return emptyTally();
  }

  // ------------------------------------------------------------ fast path

  /** Counter increment of one sequential read of `len` pages (`sequential_heuristic`). */
  private seqIncrement(len: number): number {
    return len >= IO_SEQMAX * SEQ_UNIT_PAGES ? IO_SEQMAX : Math.ceil(len / SEQ_UNIT_PAGES);
  }

  /** Counter read 0 of a run would pass down (without changing the open file). */
  private peekHeuristic(of: FreeBsdOpenFile, page: number, pages: number): number {
    const saved = of.seqcount;
    const seq = this.heuristic(of, page, pages);
    of.seqcount = saved;
    return seq;
  }

  /**
   * First marked block overlapping `[a, b)` that cluster_read would act on
   * (not the file's last block, which gets a plain bread()), as a page, or -1.
   */
  private firstMark(of: FreeBsdOpenFile, a: number, b: number): number {
    const bp = this.blockPages;
    const nblocks = this.fileBlocks(of);
    for (let m = this.cache.markerIn(of.file, a, b); m >= 0; m = this.cache.markerIn(of.file, m + bp, b)) {
      if (Math.floor(m / bp) + 1 < nblocks) return m;
      if (m + bp >= b) break;
    }
    return -1;
  }

  /** Would a read of `len` pages that are all valid take the FreeBSD 13 page-cache fast path? */
  private fastEligible(len: number): boolean {
    return this.version === ">=13" && len <= PGCACHE_MAX_PAGES;
  }

  quietRun(
    of: FreeBsdOpenFile,
    page: number,
    maxPages: number,
    pagesPerRead: number,
    nowUs: number,
  ): QuietRun {
    const max = Math.min(maxPages, of.sizePages - page);
    if (max <= 0 || pagesPerRead <= 0) return { pages: 0, readyAtUs: nowUs };
    // Reads look at whole blocks: the run must cover every block it touches, from the first
    // block's start to the last block's end, with one readiness.
    const bp = this.blockPages;
    const from = Math.floor(page / bp) * bp;
    const lim = Math.min(Math.ceil((page + max) / bp) * bp, of.sizePages);
    const run = this.cache.run(of.file, from, lim - from, nowUs, true);
    let quietEnd = from + run.pages;
    if (quietEnd < lim) quietEnd = Math.floor(quietEnd / bp) * bp;
    if (quietEnd <= page) return { pages: 0, readyAtUs: nowUs };
    let pages = wholeReads(Math.min(quietEnd, page + max) - page, max, pagesPerRead);
    if (pages === 0) return { pages: 0, readyAtUs: nowUs };
    // Read 0: on the slow path with a positive counter, cluster_read acts on a mark.
    const len0 = Math.min(pagesPerRead, pages);
    const fast0 = this.fastEligible(len0) && run.readyAtUs <= nowUs;
    if (!fast0 && this.peekHeuristic(of, page, len0) > 0 && this.firstMark(of, page, page + len0) >= 0) {
      return { pages: 0, readyAtUs: nowUs };
    }
    // Later reads find the run valid. Those on the slow path are sequential, so their counter
    // is positive (unless POSIX_FADV_RANDOM or F_READAHEAD 0): the first mark they touch ends the run.
    const laterSeq = of.random ? 0 : of.fixedSeqcount !== null ? of.fixedSeqcount : 1;
    if (!this.fastEligible(pagesPerRead) && laterSeq > 0 && pages > len0) {
      const m = this.firstMark(of, page + len0, page + pages);
      if (m >= 0) {
        const firstRead = Math.floor((Math.max(m, page + len0) - page) / pagesPerRead);
        pages = firstRead * pagesPerRead;
      }
    }
    return { pages, readyAtUs: pages > 0 ? run.readyAtUs : nowUs };
  }

  skipQuiet(of: FreeBsdOpenFile, page: number, pages: number, pagesPerRead: number, nowUs: number): void {
    if (pages <= 0) return;
    const len0 = Math.min(pagesPerRead, pages);
    const fast0 = this.fastEligible(len0) && validPagesAt(this.cache, of.file, page, len0, nowUs) === len0;
    if (!fast0) this.heuristic(of, page, len0);
    const rest = pages - len0;
    if (rest > 0 && !of.random && of.fixedSeqcount === null) {
      // Every later read is sequential and finds its pages valid.
      const full = Math.floor(rest / pagesPerRead);
      const last = rest - full * pagesPerRead;
      let inc = 0;
      if (!this.fastEligible(pagesPerRead)) inc += full * this.seqIncrement(pagesPerRead);
      if (last > 0 && !this.fastEligible(last)) inc += this.seqIncrement(last);
      of.seqcount = Math.min(IO_SEQMAX, of.seqcount + inc);
    }
    of.nextOffPages = page + pages;
    this.cache.touch(of.file, page, pages, nowUs);
  }
}

/**
 * Creates the FreeBSD UFS model over `cache`.
 *
 * @example
 * ```ts
 * import { PageCache, freebsdUfsReadahead } from "@scanlab/readahead";
 * const cache = new PageCache();
 * const ufs = freebsdUfsReadahead(cache, { version: "<=12" });
 * const a = ufs.open(0, { sizePages: 1 << 18 });
 * const b = ufs.open(0, { sizePages: 1 << 18 });
 * const sizes: number[] = [];
 * const submit = (io: { pages: number }) => { sizes.push(io.pages * 4); return 0; };
 * for (let block = 0; block < 64; block++) ufs.read(block % 2 ? b : a, 2 * block, 2, 0, submit);
 * console.log(sizes.slice(2)); // all 32 (KiB): striding collapses to lone 32 KiB reads (apps/docs/src/reference/freebsd-ufs-clustering.md#why-striding-collapses-to-32-kb)
 * ```
 */
export function freebsdUfsReadahead(cache: PageCache, options: FreeBsdUfsOptions = {}): FreeBsdUfsReadahead {
  return new FreeBsdUfsReadahead(cache, options);
}
