/**
 * How much of a file the OS page cache holds, measured with `fincore`.
 *
 * A scan or a device measurement of a file that is already in the page cache
 * never touches the device: it measures memory copies, not I/O. So scanlab
 * measures residency before and after, with one tool:
 *
 * - **Measuring** uses `fincore` from util-linux (`fincore --bytes --raw
 *   --noheadings --output RES,SIZE FILE`), which maps the file and asks the
 *   kernel with mincore(2) which pages are resident. Where fincore is not
 *   installed or fails, residency is "unknown"; we do not guess from the
 *   eviction option.
 * - mincore counts a page only once it is up to date, so pages still being
 *   read do not show (wait a moment after a read before asking).
 * - Synchronous, with a timeout: fincore takes milliseconds, callers measure
 *   between phases (before and after a scan, between fio runs), and a hung
 *   NFS mount should not hang the caller.
 * - Whether the kernel tells this caller the truth is a separate question
 *   (mm/mincore.c `can_do_mincore()`): see {@link residencyVisible}.
 */
import { execFileSync } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { errorClause } from "@scanlab/core";

/** Longest we wait for fincore on one file (it takes milliseconds; a hung NFS mount should not hang the caller). */
const FINCORE_TIMEOUT_MS = 60_000;

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

/**
 * Measures how much of `paths` (one file, or the segment files of one
 * relation) the page cache holds, summed, with `fincore`.
 *
 * @example
 * ```ts
 * import { measureResidency } from "@scanlab/host";
 * const r = measureResidency(["/var/lib/postgresql/15/main/base/5/16384"]);
 * if (r.known) console.log(`${(r.fraction * 100).toFixed(1)}% resident`);
 * ```
 */
export function measureResidency(paths: readonly string[]): Residency {
  let residentBytes = 0;
  let totalBytes = 0;
  for (const path of paths) {
    let stdout: string;
    try {
      stdout = execFileSync("fincore", ["--bytes", "--raw", "--noheadings", "--output", "RES,SIZE", path], {
        timeout: FINCORE_TIMEOUT_MS,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === "ENOENT") {
        return { known: false, reason: "fincore (util-linux) is not installed, so residency is unknown." };
      }
      const stderr = String((error as { stderr?: unknown }).stderr ?? "").trim();
      return {
        known: false,
        reason: `fincore failed on ${path} (${errorClause(stderr === "" ? error : stderr)}).`,
      };
    }
    const fields = stdout.trim().split(/\s+/);
    const res = Number(fields[0]);
    const size = Number(fields[1]);
    if (fields.length < 2 || !Number.isFinite(res) || !Number.isFinite(size)) {
      return {
        known: false,
        reason: `fincore printed something unexpected for ${path} (${errorClause(stdout)}).`,
      };
    }
    residentBytes += res;
    totalBytes += size;
  }
  const fraction = totalBytes === 0 ? 0 : Math.min(1, residentBytes / totalBytes);
  return { known: true, residentBytes, totalBytes, fraction };
}

/**
 * Whether mincore(2), and so fincore, shows this caller the file's page cache. Linux's mm/mincore.c
 * (`can_do_mincore()`, commit 134fca9063ad, 2019) answers truthfully for a file mapping only when the caller
 * owns the inode (or has CAP_FOWNER) or could open the file for writing; to anyone else it reports every page
 * resident. access(2) with W_OK asks the second question the same way (EROFS on a read-only mount included).
 *
 * @example
 * ```ts
 * import { residencyVisible } from "@scanlab/host";
 * if (!residencyVisible("/var/lib/postgresql/15/main/base/5/16384")) console.log("fincore would say 100%");
 * ```
 */
export function residencyVisible(path: string): boolean {
  if (process.platform !== "linux") return true;
  try {
    if (statSync(path).uid === process.geteuid?.()) return true;
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
