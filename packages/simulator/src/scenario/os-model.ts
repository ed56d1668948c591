/**
 * Which readahead model the simulator runs for each operating system version
 * it accepts.
 *
 * The problem: a DBA knows their kernel ("Debian 12: Linux 6.1"), while the
 * readahead package models the few rule sets the kernel has had. Offering
 * only the modelled names makes the user guess which one applies.
 *
 * The insight: Linux readahead changed in a handful of releases, each in one
 * place the model has an option for, so every kernel release maps to a fixed
 * combination of options:
 *
 * - rules: `ondemand_readahead()` in mm/readahead.c, whose decision logic is
 *   the same from v4.20 (after 4.18-4.20 made submission split at present
 *   pages, the xarray `page_cache_next_miss`) to v6.9 ("<=6.9"); Jan Kara's
 *   2024 series ("readahead: Disentangle async and sync readahead" and the
 *   patches around it, merged for 6.10) split `page_cache_sync_ra()` and
 *   `page_cache_async_ra()` (">=6.10", modelled as mainline 6.16+, where
 *   `ra->order` is kept per file: 6.10-6.15 differ in folio order and
 *   alignment details only).
 * - read loop: mm/filemap.c `do_generic_file_read()` (later `generic_file_buffered_read()`) leaves `prev_pos`
 *   on the last page read up to 5.11; 5.12's `filemap_read()` ("mm/filemap:
 *   rename generic_file_buffered_read to filemap_read" and its batch lookup)
 *   leaves it at the end of the read.
 * - default read_ahead_kb: 128 kB (`VM_READAHEAD_PAGES`,
 *   include/linux/pagemap.h; md raid0 enlarges its own in `raid0_run()`)
 *   before 5.9; from 5.9 the block layer sets max(2 x io_opt, 128 kB) for
 *   every device ("block: lift setting the readahead size into the block
 *   layer", `blk_queue_io_opt()`, later `disk_update_readahead()`).
 * - large folios: 5.18's `page_cache_ra_order()` ("mm/readahead: Add large
 *   folio readahead") reads folios larger than a page on filesystems that
 *   support them (XFS); the "<=6.9" rules are modelled with order-0 pages,
 *   the ">=6.10" rules with large folios.
 *
 * So 4.20-5.8 run the `linux-5.4` preset, 5.9-5.11 the same with the
 * io_opt default, 5.12-6.9 the `linux-6.1` preset (filemap_read with the
 * <=6.9 rules), 6.10-6.18 the `linux-6.10` preset. 6.18 is the newest
 * kernel the Linux model was held against; later kernels are refused
 * rather than assumed unchanged. FreeBSD changed at 13 (`vn_read_from_obj`
 * page-cache fast path, 1 MB maxphys): 11 and 12 run `freebsd-12`, 13 and 14
 * run `freebsd-13` (14's vfs_cluster.c read path is the one modelled).
 *
 * Design choices: the accepted names are a grammar (`linux-M.N`,
 * `freebsd-N`) plus the fixed names `windows` and `none`, so a user writes
 * their own version; the canonical names (`OS_NAMES`) stay the ones the
 * help and the playground offer; the engine asks this file for the preset
 * and the default read_ahead_kb rule, never the name itself.
 */
import type { OsPresetName } from "@scanlab/readahead";
import type { OsName } from "./types.js";

/** How a Linux kernel picks a device's read_ahead_kb: fixed 128 kB (before 5.9) or max(2 x io_opt, 128 kB). */
export type LinuxDefaultReadAhead = "128kB" | "io_opt";

/** The readahead model one OS name runs. */
export interface OsModel {
  /** The name the scenario gave. */
  readonly requested: string;
  /** The readahead package's preset that runs. */
  readonly preset: OsPresetName;
  /** Linux: how the device's default read_ahead_kb is chosen; null elsewhere. */
  readonly defaultReadAhead: LinuxDefaultReadAhead | null;
}

/** Oldest and newest Linux release accepted, as [major, minor]. */
export const LINUX_RANGE = {
  /** 4.20: the first release with the ondemand_readahead() decisions modelled as "<=6.9". */
  oldest: [4, 20],
  /** 6.18: the newest kernel the Linux model was held against. */
  newest: [6, 18],
} as const;

/** FreeBSD releases accepted. */
const FREEBSD_RANGE = { oldest: 11, newest: 14 } as const;

/** Newest minor of each Linux major line that has one (4.20 and 5.19 were the last of theirs). */
const LAST_MINOR: Readonly<Record<number, number>> = { 4: 20, 5: 19 };

const before = (v: readonly [number, number], w: readonly [number, number]) =>
  v[0] < w[0] || (v[0] === w[0] && v[1] < w[1]);

/** The model for an OS name, or null when the name is not accepted. */
export function osModel(name: string): OsModel | null {
  if (name === "windows" || name === "none") return { requested: name, preset: name, defaultReadAhead: null };
  const linux = /^linux-(\d{1,2})\.(\d{1,2})$/.exec(name);
  if (linux !== null) {
    const v = [Number(linux[1]), Number(linux[2])] as const;
    if (before(v, LINUX_RANGE.oldest) || before(LINUX_RANGE.newest, v)) return null;
    if (v[1] > (LAST_MINOR[v[0]] ?? Number.POSITIVE_INFINITY)) return null;
    const preset: OsPresetName = before(v, [5, 12])
      ? "linux-5.4"
      : before(v, [6, 10])
        ? "linux-6.1"
        : "linux-6.10";
    return { requested: name, preset, defaultReadAhead: before(v, [5, 9]) ? "128kB" : "io_opt" };
  }
  const freebsd = /^freebsd-(\d{1,2})$/.exec(name);
  if (freebsd !== null) {
    const major = Number(freebsd[1]);
    if (major < FREEBSD_RANGE.oldest || major > FREEBSD_RANGE.newest) return null;
    return { requested: name, preset: major <= 12 ? "freebsd-12" : "freebsd-13", defaultReadAhead: null };
  }
  return null;
}

/** Whether an OS name is accepted (type guard for {@link OsName}). */
export function isOsName(name: string): name is OsName {
  return osModel(name) !== null;
}

/** What the OS field accepts, for error messages and help. */
export function acceptedOsNames(): string {
  const [oMaj, oMin] = LINUX_RANGE.oldest;
  const [nMaj, nMin] = LINUX_RANGE.newest;
  return `linux-${oMaj}.${oMin} to linux-${nMaj}.${nMin} (e.g. linux-5.4, linux-6.1, linux-6.10), freebsd-${FREEBSD_RANGE.oldest} to freebsd-${FREEBSD_RANGE.newest}, windows or none`;
}

const PRESET_TEXT: Readonly<Record<OsPresetName, string>> = {
  "linux-5.4":
    "readahead rules as Linux 4.20-6.9 (ondemand_readahead), read loop as 4.20-5.11, order-0 pages",
  "linux-6.1":
    "readahead rules as Linux 4.20-6.9 (ondemand_readahead), read loop as 5.12+ (filemap_read), order-0 pages",
  "linux-6.10": "readahead rules as Linux 6.10+ (sync/async split, ra->order as 6.16+), large folios",
  "freebsd-12": "UFS clustering as FreeBSD 11-12 (MAXPHYS 128 kB)",
  "freebsd-13": "UFS clustering as FreeBSD 13-14 (page-cache fast path, maxphys 1 MB)",
  windows: "Windows Cache Manager model (low confidence)",
  none: "direct I/O, no readahead",
};

/**
 * The mapping in one line, e.g. "linux-6.1: readahead rules as Linux 4.20-6.9
 * (ondemand_readahead), read loop as 5.12+ (filemap_read), order-0 pages;
 * default read_ahead_kb max(2 x io_opt, 128 kB) (5.9+); preset linux-6.1".
 */
export function describeOsModel(name: string): string {
  const m = osModel(name);
  if (m === null) return `${name}: not accepted`;
  const ra =
    m.defaultReadAhead === "128kB"
      ? "; default read_ahead_kb 128 kB (before 5.9)"
      : m.defaultReadAhead === "io_opt"
        ? "; default read_ahead_kb max(2 x io_opt, 128 kB) (5.9+)"
        : "";
  return `${name}: ${PRESET_TEXT[m.preset]}${ra}; preset ${m.preset}`;
}
