/**
 * Reading `strace -f -e pread64` logs (also `preadv`/`preadv2`, PG17+'s
 * vectored reads with io_combine_limit): every line shape strace writes for
 * them, with or without `-f` pid prefixes (`[pid N] ` on a terminal, `N ` with
 * `-o`), timestamps (`-t`, `-tt`, `-ttt`, `-r`), `-y` paths in the fd
 * argument (`5</var/lib/postgresql/base/5/16384>`), and calls split across
 * lines by another process's call (`<unfinished ...>` / `<... pread64 resumed>`).
 * Failed calls (`= -1 EINTR ...`) and reads of 0 bytes are left out; signals
 * and exits (`--- SIG... ---`, `+++ exited ... +++`) are ignored.
 */
import type { TraceRead } from "@scanlab/host";

/** What one log gave. */
export interface StraceParse {
  /** The successful reads, in log order. */
  reads: TraceRead[];
  /** Lines that were a read call (including failed ones). */
  calls: number;
  /** Calls left out: failed, or 0 bytes. */
  failed: number;
  /** Lines that were not understood (neither a read nor strace's own chatter). */
  unknownLines: number;
}

const PREFIX = /^(?:\[pid\s+(\d+)\]\s+|(\d+)\s+)?(?:(?:\d{2}:\d{2}:\d{2}(?:\.\d+)?|\d+\.\d+)\s+)?/;
const READ_CALL = /^(pread64|preadv2?|pread)\((.*)$/;
const RESUMED = /^<\.\.\.\s+(pread64|preadv2?|pread)\s+resumed>\s?(.*)$/;
const FD = /^(\d+)(?:<([^>]*)>)?,/;
/** The tail of pread64: `, COUNT, OFFSET) = RESULT`; of preadv: `], IOVCNT, OFFSET[, FLAGS]) = RESULT`. */
const END = String.raw`(?:\s+[A-Z][A-Z0-9_]*\s+\([^)]*\))?(?:\s+<[\d.]+>)?\s*$`;
const TAIL_PREAD = new RegExp(String.raw`,\s*(\d+),\s*(\d+)\)\s*=\s*(-?\d+|\?)` + END);
const TAIL_PREADV = new RegExp(String.raw`\],\s*(\d+),\s*(\d+)(?:,\s*[A-Z_|0-9]+)?\)\s*=\s*(-?\d+|\?)` + END);

/** Whether a text looks like an strace log of read calls. */
export function looksLikeStrace(text: string): boolean {
  return /(?:^|\n)(?:\[pid\s+\d+\]\s+|\d+\s+)?(?:[\d:.]+\s+)?(?:pread64|preadv2?|<\.\.\. pread)/.test(text);
}

/** Parses an strace log. */
export function parseStraceLog(text: string): StraceParse {
  const reads: TraceRead[] = [];
  const pending = new Map<number, { call: string; head: string }>();
  let calls = 0;
  let failed = 0;
  let unknownLines = 0;
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trimEnd();
    if (line.trim() === "") continue;
    const p = PREFIX.exec(line)!;
    const pid = Number(p[1] ?? p[2] ?? 0);
    let rest = line.slice(p[0].length);
    if (/^(---|\+\+\+)/.test(rest) || /^strace: /.test(rest)) continue;
    let call: string;
    const resumed = RESUMED.exec(rest);
    if (resumed) {
      const head = pending.get(pid);
      pending.delete(pid);
      if (head === undefined) {
        unknownLines++;
        continue;
      }
      call = head.call;
      rest = head.head + resumed[2];
    } else {
      const m = READ_CALL.exec(rest);
      if (!m) {
        // Other system calls (strace -e with more than reads) are not errors.
        if (!/^[a-z_0-9]+\(/.test(rest) && !/^<\.\.\. [a-z_0-9]+ resumed>/.test(rest)) unknownLines++;
        continue;
      }
      call = m[1]!;
      rest = m[2]!;
      const unfinished = /\s*<unfinished \.\.\.>\s*$/.exec(rest);
      if (unfinished) {
        pending.set(pid, { call, head: rest.slice(0, unfinished.index) });
        continue;
      }
    }
    calls++;
    const fd = FD.exec(rest);
    const tail = (call.startsWith("preadv") ? TAIL_PREADV : TAIL_PREAD).exec(rest);
    if (!fd || !tail) {
      unknownLines++;
      continue;
    }
    const result = Number(tail[3]);
    if (!(result > 0)) {
      failed++;
      continue;
    }
    reads.push({ pid, file: fd[2] ?? `fd ${fd[1]}`, offset: Number(tail[2]), bytes: result });
  }
  return { reads, calls, failed, unknownLines };
}
