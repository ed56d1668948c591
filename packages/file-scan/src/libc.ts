/**
 * The C library's own functions, bound through koffi, for the two calls a
 * scan worker makes that Node's fs does not offer as PostgreSQL makes them:
 * posix_fadvise (fadvise.ts) and pread (pread.ts).
 *
 * koffi is a maintained FFI package for Node that ships its compiled binding
 * for each platform inside its npm tarball (no download, compiler or
 * node-gyp at install time). Node's fs descriptors are the process's own
 * file descriptors, so the bound functions take them as they are. The
 * library is tried under glibc's soname, then musl's.
 *
 * Interface: {@link bindLibc}.
 */
import { createRequire } from "node:module";
import { errorClause } from "@scanlab/core";

/** The libc names tried, in order: glibc's soname, then musl's. */
const LIBC_NAMES = ["libc.so.6", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1", "libc.so"];

interface KoffiLib {
  func(signature: string): (...args: unknown[]) => unknown;
}
interface Koffi {
  load(path: string): KoffiLib;
  errno(): number;
}

/** A bound C function, with koffi's errno of the calling thread; or why it cannot be had, as a clause. */
export type LibcBinding =
  | { ok: true; fn: (...args: unknown[]) => unknown; errno: () => number }
  | { ok: false; clause: string };

/**
 * Binds `signature` (a C prototype in koffi's syntax) from the C library,
 * or returns why it cannot be had here as a clause ("the koffi package did
 * not load (...)"); the caller makes the sentence. Linux only.
 */
export function bindLibc(signature: string): LibcBinding {
  if (process.platform !== "linux") return { ok: false, clause: `this is ${process.platform}, not Linux` };
  let koffi: Koffi;
  try {
    koffi = createRequire(import.meta.url)("koffi") as Koffi;
  } catch (error) {
    return { ok: false, clause: `the koffi package did not load (${errorClause(error)})` };
  }
  let lastError: unknown = null;
  for (const name of LIBC_NAMES) {
    try {
      return { ok: true, fn: koffi.load(name).func(signature), errno: () => koffi.errno() };
    } catch (error) {
      lastError = error;
    }
  }
  return { ok: false, clause: `no C library could be bound (${errorClause(lastError)})` };
}
