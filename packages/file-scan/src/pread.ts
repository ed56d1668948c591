/**
 * The read system call of a scan worker.
 *
 * Problem. A warm scan is a loop of reads whose data comes from the page
 * cache at memory speed, so what each call costs in user space is a large
 * part of what is measured: an 8 kB read takes one or two microseconds in
 * all. PostgreSQL's md.c calls pread(2) (FileRead, and for a read stream
 * pg_preadv, which calls pread itself when there is one buffer; PG17+
 * src/include/port/pg_iovec.h). Node's `fs.readSync` reaches the same
 * system call through argument checks, an error context object and libuv's
 * request, a few hundred nanoseconds more per call: a bare loop of warm
 * 8 kB reads runs some 20 % slower through it than through pread (measured
 * side by side: README.md, "pread and posix_fadvise from Node").
 *
 * Design choices.
 * - The worker calls libc's pread directly, bound through koffi (libc.ts),
 *   with the buffer passed as a pointer to its memory: no copy, no check
 *   beyond the bounds below. It is the system call PostgreSQL makes, with
 *   the same arguments, so strace and the kernel see the same reads.
 * - The buffer's length is checked against the request before every call:
 *   the C function cannot see it, and reading past a buffer would corrupt
 *   the worker's memory.
 * - A failed call throws an Error in Node's own form (`EIO: i/o error,
 *   read`, with `code` and `errno`), so the worker reports it as it reports
 *   fs errors. EINTR is retried, as PostgreSQL's FileRead does.
 * - Where it cannot be bound (not Linux, koffi missing), the worker reads
 *   through `fs.readSync`, the same system call, and the scan's result says
 *   so in its warnings.
 *
 * Interface: {@link loadPread}.
 */
import { readSync } from "node:fs";
import { getSystemErrorMap } from "node:util";
import { bindLibc } from "./libc.js";

/**
 * Reads up to `length` bytes at file offset `position` into `buffer` from its
 * first byte; returns the bytes read (fewer at end of file, 0 past it).
 * Throws the system error of a failed read.
 */
export type PreadFn = (fd: number, buffer: Uint8Array, length: number, position: number) => number;

/** The read call a worker uses, and why it is `fs.readSync` when it is. */
export interface Pread {
  readonly read: PreadFn;
  /** Why libc's pread could not be bound (the worker then reads through fs.readSync), or null. */
  readonly fallback: string | null;
}

/** EINTR on Linux (include/uapi/asm-generic/errno-base.h). */
const EINTR = 4;

/** An Error as Node's fs raises them: `CODE: description, read`, with `code`, `errno` and `syscall`. */
function systemError(errno: number): Error {
  const [code, description] = getSystemErrorMap().get(-errno) ?? [`E${errno}`, `error number ${errno}`];
  return Object.assign(new Error(`${code}: ${description}, read`), { code, errno: -errno, syscall: "read" });
}

/** fs.readSync with the same contract, where libc's pread cannot be had. */
const readSyncPread: PreadFn = (fd, buffer, length, position) => readSync(fd, buffer, 0, length, position);

/** Binds libc's pread, or falls back to fs.readSync and says why in one sentence. */
export function loadPread(): Pread {
  const bound = bindLibc("int64_t pread(int fd, void *buf, size_t count, int64_t offset)");
  if (!bound.ok) {
    return {
      read: readSyncPread,
      fallback: `The workers read through Node's fs.readSync, not libc's pread: ${bound.clause}.`,
    };
  }
  const pread = bound.fn as (fd: number, buf: Uint8Array, count: number, offset: number) => number;
  const errno = bound.errno;
  return {
    read: (fd, buffer, length, position) => {
      if (length > buffer.length)
        throw new RangeError(`a read of ${length} bytes into a buffer of ${buffer.length}`);
      for (;;) {
        const n = pread(fd, buffer, length, position);
        if (n >= 0) return n;
        const e = errno();
        if (e !== EINTR) throw systemError(e);
      }
    },
    fallback: null,
  };
}
