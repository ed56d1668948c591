/**
 * posix_fadvise(POSIX_FADV_WILLNEED) from Node, for the scans that advise.
 *
 * Problem. PostgreSQL's read streams and bitmap heap scans tell the kernel
 * which blocks they will read next with posix_fadvise(fd, offset, len,
 * POSIX_FADV_WILLNEED) (fd.c FilePrefetch), and the kernel starts reading
 * them into the page cache at once. Node's fs module has no such call.
 *
 * Design choices.
 * - The call is made through koffi, a maintained FFI package for Node that
 *   ships its compiled binding for each platform inside its npm tarball (no
 *   download, compiler or node-gyp at install time), and binds libc's own
 *   posix_fadvise. The alternatives were worse: no maintained npm package
 *   binds posix_fadvise alone, and a native addon of our own would need a
 *   compiler and Node's headers on every machine that installs scanlab.
 *   Node's fs descriptors are the process's own file descriptors, so the
 *   call takes them as they are.
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
import { createRequire } from "node:module";
import { errorClause } from "@scanlab/core";

/** POSIX_FADV_WILLNEED on Linux (include/uapi/linux/fadvise.h). */
export const POSIX_FADV_WILLNEED = 3;

/** posix_fadvise(fd, offset, len, WILLNEED): 0 on success, else an error number. */
export type WillNeedFn = (fd: number, offset: number, len: number) => number;

/** The libc names tried, in order: glibc's soname, then musl's. */
const LIBC_NAMES = ["libc.so.6", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1", "libc.so"];

interface KoffiLib {
  func(signature: string): (...args: unknown[]) => unknown;
}
interface Koffi {
  load(path: string): KoffiLib;
}

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
  let koffi: Koffi;
  try {
    koffi = createRequire(import.meta.url)("koffi") as Koffi;
  } catch (error) {
    return {
      ok: false,
      reason: `posix_fadvise is not available: the koffi package did not load (${errorClause(error)}); the scan read without advice.`,
    };
  }
  let lastError: unknown = null;
  for (const name of LIBC_NAMES) {
    try {
      const lib = koffi.load(name);
      const fadvise = lib.func("int posix_fadvise(int fd, int64_t offset, int64_t len, int advice)") as (
        fd: number,
        offset: number,
        len: number,
        advice: number,
      ) => number;
      return { ok: true, willNeed: (fd, offset, len) => fadvise(fd, offset, len, POSIX_FADV_WILLNEED) };
    } catch (error) {
      lastError = error;
    }
  }
  return {
    ok: false,
    reason: `posix_fadvise is not available: no C library could be bound (${errorClause(lastError)}); the scan read without advice.`,
  };
}
