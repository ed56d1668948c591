/**
 * posix_fadvise(POSIX_FADV_WILLNEED) from Node, for the scans that advise.
 *
 * Problem. PostgreSQL's read streams and bitmap heap scans tell the kernel
 * which blocks they will read next with posix_fadvise(fd, offset, len,
 * POSIX_FADV_WILLNEED) (fd.c FilePrefetch), and the kernel starts reading
 * them into the page cache at once. Node's fs module has no such call.
 *
 * Design choices.
 * - The call is libc's own posix_fadvise, bound through koffi (libc.ts).
 *   The alternatives were worse: no maintained npm package binds
 *   posix_fadvise alone, and a native addon of our own would need a
 *   compiler and Node's headers on every machine that installs scanlab.
 * - Loaded lazily, in the worker that advises, and only when a scan asks
 *   for advice: scans without advice never load it.
 * - Where it cannot be had (not Linux, koffi missing or not built for this
 *   platform, no libc to bind), {@link loadFadvise} returns the reason as one
 *   sentence; the scan then reads without advice and its result says so,
 *   rather than counting calls that were never made.
 * - POSIX_FADV_WILLNEED is 3 on Linux (include/uapi/linux/fadvise.h).
 *   posix_fadvise returns an error number instead of setting errno; a
 *   non-zero return is counted as a failed call.
 *
 * Interface: {@link loadFadvise}.
 */
import { bindLibc } from "./libc.js";

/** POSIX_FADV_WILLNEED on Linux (include/uapi/linux/fadvise.h). */
export const POSIX_FADV_WILLNEED = 3;

/** posix_fadvise(fd, offset, len, WILLNEED): 0 on success, else an error number. */
export type WillNeedFn = (fd: number, offset: number, len: number) => number;

/** posix_fadvise(WILLNEED) bound, or the reason it cannot be had here. */
export type Fadvise = { ok: true; willNeed: WillNeedFn } | { ok: false; reason: string };

/**
 * Binds posix_fadvise with WILLNEED, or says in one sentence why it cannot be
 * had here.
 */
export function loadFadvise(): Fadvise {
  if (process.platform !== "linux") {
    return {
      ok: false,
      reason: `posix_fadvise advice is only given on Linux (this is ${process.platform}); the scan read without it.`,
    };
  }
  const bound = bindLibc("int posix_fadvise(int fd, int64_t offset, int64_t len, int advice)");
  if (!bound.ok) {
    return {
      ok: false,
      reason: `posix_fadvise is not available: ${bound.clause}; the scan read without advice.`,
    };
  }
  const fadvise = bound.fn as (fd: number, offset: number, len: number, advice: number) => number;
  return { ok: true, willNeed: (fd, offset, len) => fadvise(fd, offset, len, POSIX_FADV_WILLNEED) };
}
