/**
 * Emptying the page cache of one file without root.
 *
 * **Evicting** asks the kernel to drop the file's clean pages with
 * posix_fadvise(POSIX_FADV_DONTNEED). Node has no binding for it; GNU dd does
 * it for `iflag=nocache` (coreutils dd.c: with `count=0` it only "drops the
 * cache for the whole file" and reads nothing), so `dd if=FILE iflag=nocache
 * count=0` needs no root, unlike `echo 1 > /proc/sys/vm/drop_caches`, and
 * touches only this file. DONTNEED cannot drop dirty pages (a file written a
 * moment ago), so we first fdatasync(2) a read-only descriptor of the file:
 * that only writes back what is already written, it changes neither the
 * contents nor the timestamps. Pages mapped by another process can stay
 * resident too; a residency measurement afterwards (fincore-residency.ts)
 * shows it.
 *
 * Synchronous, with a timeout: dd takes milliseconds and callers evict
 * between phases. It never throws for a missing tool: the report says what
 * happened.
 */
import { execFileSync } from "node:child_process";
import { closeSync, constants, fdatasyncSync, openSync } from "node:fs";

/** Longest we wait for dd on one file (it takes milliseconds; a hung NFS mount should not hang the caller). */
const DD_TIMEOUT_MS = 60_000;

/** What {@link evictFromPageCache} did. */
export interface PageCacheEviction {
  /** Whether every file's DONTNEED call ran without error (whether it worked shows in a residency measurement). */
  readonly ok: boolean;
  /** Why it did not run, when `!ok`. */
  readonly reason?: string;
}

/**
 * Asks the kernel to drop `paths` from the page cache: fdatasync a read-only
 * descriptor (so pages written recently are clean), then
 * `dd if=FILE iflag=nocache count=0` (posix_fadvise DONTNEED, no root needed).
 *
 * @example
 * ```ts
 * import { evictFromPageCache, measureResidency } from "@scanlab/host";
 * const report = evictFromPageCache(["/tmp/big.dat"]);
 * console.log(report.ok, measureResidency(["/tmp/big.dat"]));
 * ```
 */
export function evictFromPageCache(paths: readonly string[]): PageCacheEviction {
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
      execFileSync("dd", [`if=${path}`, "iflag=nocache", "count=0", "status=none"], {
        timeout: DD_TIMEOUT_MS,
        stdio: ["ignore", "ignore", "pipe"],
      });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const stderr = String((error as { stderr?: unknown }).stderr ?? "").trim();
      const first = (stderr === "" ? String((error as { message?: unknown }).message ?? error) : stderr)
        .split("\n")[0]!
        .replace(/[.:;,\s]+$/, "");
      const reason =
        code === "ENOENT"
          ? "dd (GNU coreutils) is not installed, so the file could not be evicted."
          : `dd iflag=nocache failed on ${path} (${first}).`;
      return { ok: false, reason };
    }
  }
  return { ok: true };
}
