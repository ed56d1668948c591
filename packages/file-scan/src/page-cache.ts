/**
 * Cold or warm: how much of the file the OS page cache holds, and how to
 * empty it without root.
 *
 * A scan of a file that is already in the page cache never touches the
 * device: it measures memory copies, not I/O. The numbers of Munro's 2020 FreeBSD report (postgr.es/m/CA+hUKGJ_EErDv41YycXcbMbCBkztA34+z1ts9VQH+ACRuvpxig@mail.gmail.com) (apps/docs/src/reference/experiments.md#t1-freebsd-ufs-striding-and-64-block-chunks
 * ) are cold-cache numbers: the table was far bigger than what had been read
 * recently. So every result states what the cache held, *measured*, before and
 * after the scan, and classifies the scan from the before-measurement:
 *
 * - **Measuring** uses `fincore` from util-linux (`fincore --bytes --raw
 *   --noheadings --output RES,SIZE FILE`), which maps the file and asks the
 *   kernel with mincore(2) which pages are resident. Where fincore is not
 *   installed or fails, residency is "unknown" and so is the cache state; we do
 *   not guess from the eviction option.
 * - **Evicting** asks the kernel to drop the file's clean pages with
 *   posix_fadvise(POSIX_FADV_DONTNEED). Node has no binding for it; GNU dd does
 *   it for `iflag=nocache` (coreutils dd.c: with `count=0` it only "drops the
 *   cache for the whole file" and reads nothing), so `dd if=FILE iflag=nocache
 *   count=0` needs no root, unlike `echo 1 > /proc/sys/vm/drop_caches`, and
 *   touches only this file. DONTNEED cannot drop dirty pages (a file written a
 *   moment ago), so we first fdatasync(2) a read-only descriptor of the file:
 *   that only writes back what is already written, it changes neither the
 *   contents nor the timestamps. Pages mapped by another process can stay
 *   resident too; the after-eviction measurement shows it.
 * - **Classifying**: cold when at most 1% of the file was resident before the
 *   scan, warm when at least 99% was, mixed in between. The 1% margins are
 *   scanlab's choice: a file that was evicted a moment ago can get a few pages
 *   back from another reader, and one that was just read can lose a few to
 *   memory pressure, and neither changes what the scan measures.
 */
import { execFile } from "node:child_process";
import { closeSync, constants, fdatasyncSync, openSync } from "node:fs";
import { promisify } from "node:util";
import { clause } from "./errors.js";

const execFileAsync = promisify(execFile);

/** At most this fraction of the file resident before the scan: "cold" (scanlab's choice, see the file header). */
export const COLD_MAX_RESIDENT_FRACTION = 0.01;
/** At least this fraction resident before the scan: "warm" (scanlab's choice, see the file header). */
export const WARM_MIN_RESIDENT_FRACTION = 0.99;

/** Longest we wait for fincore or dd on one file (they take milliseconds; a hung NFS mount should not hang the scan). */
const TOOL_TIMEOUT_MS = 60_000;

/** How much of the target the page cache held at one moment. */
export type Residency =
  | {
      /** fincore answered. */
      readonly known: true;
      /** Bytes resident in the page cache (whole pages, so it can exceed a partial last page's bytes). */
      readonly residentBytes: number;
      /** The target's size in bytes, as fincore saw it. */
      readonly totalBytes: number;
      /** residentBytes / totalBytes, capped at 1. */
      readonly fraction: number;
    }
  | {
      /** fincore is missing or failed. */
      readonly known: false;
      /** One sentence saying why. */
      readonly reason: string;
    };

/** The scan's cache state, from the residency measured before it: see {@link classifyCache}. */
export type CacheState = "cold" | "warm" | "mixed" | "unknown";

/** What eviction did. */
export interface EvictionReport {
  /** Whether the caller asked for eviction. */
  readonly requested: boolean;
  /** Whether every file's DONTNEED call ran without error (whether it worked shows in `before`). */
  readonly ok: boolean;
  /** Why it did not run, when `requested && !ok`. */
  readonly reason?: string;
}

/**
 * Measures how much of `paths` (the target's files) the page cache holds,
 * summed, with `fincore`.
 *
 * @example
 * ```ts
 * import { measureResidency } from "@scanlab/file-scan";
 * const r = await measureResidency(["/var/lib/postgresql/15/main/base/5/16384"]);
 * if (r.known) console.log(`${(r.fraction * 100).toFixed(1)}% resident`);
 * ```
 */
export async function measureResidency(paths: readonly string[]): Promise<Residency> {
  let residentBytes = 0;
  let totalBytes = 0;
  for (const path of paths) {
    let stdout: string;
    try {
      ({ stdout } = await execFileAsync(
        "fincore",
        ["--bytes", "--raw", "--noheadings", "--output", "RES,SIZE", path],
        { timeout: TOOL_TIMEOUT_MS, encoding: "utf8" },
      ));
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === "ENOENT") {
        return { known: false, reason: "fincore (util-linux) is not installed, so residency is unknown." };
      }
      const stderr = String((error as { stderr?: unknown }).stderr ?? "").trim();
      return {
        known: false,
        reason: `fincore failed on ${path} (${clause(stderr === "" ? error : stderr)}).`,
      };
    }
    const fields = stdout.trim().split(/\s+/);
    const res = Number(fields[0]);
    const size = Number(fields[1]);
    if (fields.length < 2 || !Number.isFinite(res) || !Number.isFinite(size)) {
      return {
        known: false,
        reason: `fincore printed something unexpected for ${path} (${clause(stdout)}).`,
      };
    }
    residentBytes += res;
    totalBytes += size;
  }
  const fraction = totalBytes === 0 ? 0 : Math.min(1, residentBytes / totalBytes);
  return { known: true, residentBytes, totalBytes, fraction };
}

/**
 * Asks the kernel to drop `paths` from the page cache: fdatasync a read-only
 * descriptor (so pages written recently are clean), then
 * `dd if=FILE iflag=nocache count=0` (posix_fadvise DONTNEED, no root needed).
 * Never throws for a missing tool: the report says what happened.
 *
 * @example
 * ```ts
 * import { evictFromPageCache, measureResidency } from "@scanlab/file-scan";
 * const report = await evictFromPageCache(["/tmp/big.dat"]);
 * console.log(report.ok, await measureResidency(["/tmp/big.dat"]));
 * ```
 */
export async function evictFromPageCache(paths: readonly string[]): Promise<EvictionReport> {
  for (const path of paths) {
    try {
      const fd = openSync(path, constants.O_RDONLY);
      try {
        fdatasyncSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch {
      // Writing back is only a help for DONTNEED; the residency measurement tells the truth either way.
    }
    try {
      await execFileAsync("dd", [`if=${path}`, "iflag=nocache", "count=0", "status=none"], {
        timeout: TOOL_TIMEOUT_MS,
      });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const reason =
        code === "ENOENT"
          ? "dd (GNU coreutils) is not installed, so the file could not be evicted."
          : `dd iflag=nocache failed on ${path} (${clause(String((error as { stderr?: unknown }).stderr ?? "") || error)}).`;
      return { requested: true, ok: false, reason };
    }
  }
  return { requested: true, ok: true };
}

/**
 * The cache state of a scan from the residency measured before it: "cold"
 * (at most 1% resident), "warm" (at least 99%), "mixed", or "unknown" when
 * fincore could not tell.
 *
 * @example
 * ```ts
 * import { classifyCache } from "@scanlab/file-scan";
 * classifyCache({ known: true, residentBytes: 0, totalBytes: 1 << 30, fraction: 0 }); // "cold"
 * ```
 */
export function classifyCache(before: Residency): CacheState {
  if (!before.known) return "unknown";
  if (before.fraction <= COLD_MAX_RESIDENT_FRACTION) return "cold";
  if (before.fraction >= WARM_MIN_RESIDENT_FRACTION) return "warm";
  return "mixed";
}
