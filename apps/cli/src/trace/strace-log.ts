/**
 * Reading `strace -f -e pread64` logs (also `preadv`/`preadv2`, PG17+'s
 * vectored reads with io_combine_limit) for `trace import`: the lines are
 * parsed by `@scanlab/host` (every shape strace writes: `-f` pid prefixes,
 * `-t`/`-tt`/`-ttt`/`-r` timestamps, `-y` paths, calls split into
 * `<unfinished ...>` / `<... pread64 resumed>` halves), and this keeps the
 * reads. Failed calls (`= -1 EINTR ...`) and reads of 0 bytes are counted
 * and left out; other system calls, signals and exits are ignored.
 */
import { parseStraceOutput, type StraceCall, type TraceRead } from "@scanlab/host";

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

const READ_CALLS: ReadonlySet<string> = new Set(["pread64", "pread", "preadv", "preadv2"]);
const NUMBER = /^\d+$/;
/** preadv2's flags argument, e.g. `RWF_NOWAIT` or `0`. */
const FLAGS = /^[A-Z_|0-9]+$/;

/** Whether a text looks like an strace log of read calls. */
export function looksLikeStrace(text: string): boolean {
  return /(?:^|\n)(?:\[pid\s+\d+(?:<[^>\n]*>)?\]\s+|\d+(?:<[^>\n]*>)?\s+)?(?:[ \t]*[\d:.]+\s+)?(?:pread64|preadv2?|<\.\.\. pread)/.test(
    text,
  );
}

/**
 * The byte offset a read call names: the last argument of pread64
 * (`fd, buf, count, offset`); of preadv the one after the buffer array and
 * its count (`fd, [iov...], iovcnt, offset`, preadv2 adding `flags`). Null
 * when the arguments are not of that form.
 */
function readOffset(call: StraceCall): number | null {
  const a = call.args;
  const n = a.length;
  if (!call.syscall.startsWith("preadv")) {
    return n >= 3 && NUMBER.test(a[n - 2]!) && NUMBER.test(a[n - 1]!) ? Number(a[n - 1]) : null;
  }
  for (const flags of [1, 0]) {
    const iov = n - 3 - flags;
    if (iov >= 1 && a[iov]!.endsWith("]") && NUMBER.test(a[iov + 1]!) && NUMBER.test(a[iov + 2]!)) {
      if (flags === 0 || FLAGS.test(a[n - 1]!)) return Number(a[iov + 2]);
    }
  }
  return null;
}

/** Parses an strace log. */
export function parseStraceLog(text: string): StraceParse {
  const reads: TraceRead[] = [];
  let calls = 0;
  let failed = 0;
  let unknownLines = 0;
  for (const line of parseStraceOutput(text)) {
    if (line.kind === "unknown") {
      // A read call cut short is a call not understood; other system calls
      // (strace -e with more than reads) are not errors.
      if (line.syscall === null) unknownLines++;
      else if (READ_CALLS.has(line.syscall)) {
        calls++;
        unknownLines++;
      }
      continue;
    }
    // A second half whose first half the log does not have.
    if (line.kind === "resumed" && READ_CALLS.has(line.syscall)) unknownLines++;
    if (line.kind !== "call" || !READ_CALLS.has(line.syscall)) continue;
    calls++;
    const offset = readOffset(line);
    if (line.fd === null || offset === null) {
      unknownLines++;
      continue;
    }
    if (line.result === null || !(line.result > 0)) {
      failed++;
      continue;
    }
    reads.push({ pid: line.pid ?? 0, file: line.path ?? `fd ${line.fd}`, offset, bytes: line.result });
  }
  return { reads, calls, failed, unknownLines };
}
