/**
 * Reading strace(1)'s output: one parser for every line shape strace writes.
 *
 * A line is an optional prefix, then a system call, its halves, or a note:
 *
 *     [pid  4242] 10:00:00.123456 pread64(5</data/base/5/16384>, "\0\0"..., 8192, 0) = 8192 <0.000021>
 *     prefix: -f  timestamp: -tt  call: name, arguments (-y path), " = " result        -T duration
 *
 * - Process id (strace(1) `-f`): `[pid N] ` where strace writes to a terminal
 *   or standard error, `N ` (left-aligned, space-padded) with `-o FILE`; `-Y`
 *   (`--decode-pids=comm`) adds the command name, `[pid N<postgres>] `. With
 *   `-ff` (`--output-separately`) each process writes its own `FILE.pid` and
 *   the lines carry no id: the caller gives it.
 * - Timestamp: `-t` wall-clock time `10:00:00`, `-tt` with microseconds
 *   `10:00:00.123456`, `-ttt` seconds since the epoch `1700000000.123456`,
 *   `-r` seconds since the previous call began, right-aligned in six places
 *   before the point (`     0.000123`);
 *   `--timestamps=...,precision:ms|us|ns` and `-r`'s precisions only change
 *   the digits after the point. `-ttt` and `-r` look alike (a `-ttt` time is
 *   above 10^9). A time printed in whole seconds (`precision:s` of
 *   `--timestamps=format:unix` or of `-r`) has no point to tell it from a pid
 *   and is not read as a time.
 * - Call: `name(ARGS) = RESULT`, where a failed call adds its errno name and
 *   text (`= -1 EINTR (Interrupted system call)`), some calls add a decoding
 *   of the result (`= 0x8002 (flags O_RDWR)`), `-T` adds the time spent in the
 *   call (`<0.000021>`), and `?` stands for a result strace could not learn
 *   (the process died in the call). With `-y` (`--decode-fds`) a descriptor
 *   argument is followed by its path in angle brackets, `5</data/base/5/16384>`,
 *   in which strace escapes `<`, `>` and unprintable bytes in octal
 *   (`data\76x` for `data>x`); `-yy` adds details of sockets and devices
 *   (`3<TCP:[127.0.0.1:5432->127.0.0.1:40000]>`, `4</dev/sda<block 8:0>>`).
 * - Halves: when another process's line comes between a call's entry and its
 *   return, strace ends the first line with `<unfinished ...>` and prints the
 *   rest later as `<... NAME resumed>REST` (strace(1), DESCRIPTION). With
 *   `-ff` only a process that dies inside a call leaves an unfinished line.
 * - Notes: signals (`--- SIGUSR1 {si_signo=SIGUSR1, ...} ---`), exits
 *   (`+++ exited with 0 +++`, `+++ killed by SIGKILL +++`) and strace's own
 *   messages (`strace: Process 4242 attached`).
 *
 * Design choices:
 * - A call's arguments are split at the commas between arguments, not at
 *   those inside strings (quoted, with backslash escapes), arrays,
 *   structures, parentheses or `-y` paths, so `args` has one entry per
 *   argument even for `preadv`'s array of buffers. The call's end is found by
 *   reading through its arguments, so a line whose strings or brackets do
 *   not close (one cut or edited by hand) is `unknown`.
 * - Nothing is dropped: a line that is not understood comes back as
 *   `unknown` (with the call's name when it began like a call), so a reader
 *   can count what it did not understand.
 * - Joining halves is the log reader's work ({@link parseStraceOutput}), per
 *   process: a line alone ({@link parseStraceLine}) says what it is.
 */

/** When strace says a line happened. */
export interface StraceTimestamp {
  /**
   * `clock`: the time of day (`-t`, `-tt`); `seconds`: a count of seconds,
   * since the epoch (`-ttt`) or since the previous call began (`-r`).
   */
  form: "clock" | "seconds";
  /** Seconds: since midnight for `clock`, the printed number for `seconds`. */
  seconds: number;
}

/** What every line has besides its content. */
export interface StraceLineBase {
  /** Process (thread) id: from the line's `-f` prefix, else the one given (the `-ff` file's), else null. */
  pid: number | null;
  /** The line's timestamp, or null when strace printed none. */
  time: StraceTimestamp | null;
}

/** A completed system call: one whole line, or the two halves of one joined. */
export interface StraceCall extends StraceLineBase {
  /** A whole call. */
  kind: "call";
  /** System call name, e.g. `pread64`. */
  syscall: string;
  /** Every argument as strace printed it, the first included, e.g. `["5</d/16384>", '""...', "8192", "0"]`. */
  args: string[];
  /**
   * The first argument read as a file descriptor: a number (`5`), with `-y`
   * followed by its path (`5</path>`); null when it is not a number. Which
   * calls take a descriptor there is the caller's to know.
   */
  fd: number | null;
  /** The path `-y` printed with that descriptor, as printed (octal escapes kept), else null. */
  path: string | null;
  /** Return value (negative when the call failed), or null for `?` (the call did not return a value strace saw). */
  result: number | null;
  /** The errno name of a failed call, e.g. `EINTR`, else null. */
  error: string | null;
  /** Seconds spent in the call (`-T`), else null. */
  durationS: number | null;
}

/** The first half of a call another line interrupted: `pread64(5</d/16384>,  <unfinished ...>`. */
export interface StraceUnfinished extends StraceLineBase {
  /** A first half. */
  kind: "unfinished";
  /** System call name. */
  syscall: string;
  /** What was printed after `NAME(`, up to `<unfinished ...>`. */
  text: string;
}

/** The second half of a call: `<... pread64 resumed>"\0"..., 8192, 0) = 8192`. */
export interface StraceResumed extends StraceLineBase {
  /** A second half. */
  kind: "resumed";
  /** System call name. */
  syscall: string;
  /** What was printed after `resumed>` (one space after it dropped). */
  text: string;
}

/** A line that is not a call or part of one, or that was not understood. */
export interface StraceNote extends StraceLineBase {
  /**
   * `signal` (`--- SIG... ---`), `exit` (`+++ exited with 0 +++`), `message`
   * (`strace: ...`), or `unknown`: anything else, such as a call cut short
   * (`<detached ...>`, a terminal line broken by a message) or text that is
   * not strace's.
   */
  kind: "signal" | "exit" | "message" | "unknown";
  /** For `unknown`: the call's name when the line began like a call (`NAME(`), else null. */
  syscall: string | null;
  /** The line after its prefix. */
  text: string;
}

/** One line of strace output, or a call joined from two. */
export type StraceLine = StraceCall | StraceUnfinished | StraceResumed | StraceNote;

const PREFIX =
  /^(?:\[pid\s+(\d+)(?:<[^>]*>)?\]\s+|(\d+)(?:<[^>]*>)?\s+)?(?:\s*(?:(\d{2}):(\d{2}):(\d{2}(?:\.\d+)?)|(\d+\.\d+))\s+)?/;
const CALL_NAME = /^[a-z0-9_]+\(/;
const UNFINISHED = "<unfinished ...>";
const RESUMED = /^<\.\.\.\s+([a-z0-9_]+)\s+resumed>\s?/;
/** The return value, after the arguments' closing parenthesis. */
const RESULT = /^\s*=\s*(\?|0x[0-9a-fA-F]+|-?\d+)/;
/** After the result (and the path `-y` printed with a descriptor it returns): `[ ERRNO (text)][ (decoding)...][ <seconds>]`. */
const AFTER_RESULT =
  /^(?:\s+([A-Z][A-Z0-9_]*)(?=\s+\())?(?:\s+\((?:[^()]|\([^()]*\))*\))*(?:\s+<(\d+(?:\.\d+)?)>)?\s*$/;
const FD = /^(\d+)(?:<([\s\S]*)>)?$/;

/**
 * Parses one line of strace output (any of the shapes in this module's
 * description). `pid` is the process the line belongs to when the line does
 * not say (a `-ff` file's suffix). Null for a blank line.
 *
 * @example
 * ```ts
 * import { parseStraceLine } from "@scanlab/host";
 * const line = parseStraceLine('4242 1700000000.5 pread64(5</d/16384>, ""..., 8192, 16384) = 8192');
 * // { kind: "call", pid: 4242, time: { form: "seconds", seconds: 1700000000.5 }, syscall: "pread64",
 * //   args: ["5</d/16384>", '""...', "8192", "16384"], fd: 5, path: "/d/16384", result: 8192, error: null, durationS: null }
 * ```
 */
export function parseStraceLine(line: string, pid?: number): StraceLine | null {
  const trimmed = line.trimEnd();
  if (trimmed === "") return null;
  const p = PREFIX.exec(trimmed)!;
  const linePid = p[1] ?? p[2];
  const time: StraceTimestamp | null =
    p[3] !== undefined
      ? { form: "clock", seconds: Number(p[3]) * 3600 + Number(p[4]) * 60 + Number(p[5]) }
      : p[6] !== undefined
        ? { form: "seconds", seconds: Number(p[6]) }
        : null;
  return lineOf(
    linePid !== undefined ? Number(linePid) : (pid ?? null),
    time,
    p[0].length === 0 ? trimmed : trimmed.slice(p[0].length),
  );
}

/** What the text after a line's prefix is. */
function lineOf(pid: number | null, time: StraceTimestamp | null, text: string): StraceLine {
  const first = text.charCodeAt(0);
  if (first === 45 /* - */ && text.startsWith("---")) return note("signal", pid, time, text);
  if (first === 43 /* + */ && text.startsWith("+++")) return note("exit", pid, time, text);
  if (first === LT) {
    const resumed = RESUMED.exec(text);
    if (resumed)
      return { kind: "resumed", pid, time, syscall: resumed[1]!, text: text.slice(resumed[0].length) };
    return note("unknown", pid, time, text);
  }
  if (text.startsWith("strace: ")) return note("message", pid, time, text);
  const name = CALL_NAME.exec(text);
  if (!name) return note("unknown", pid, time, text);
  const syscall = name[0].slice(0, -1);
  const rest = text.slice(name[0].length);
  if (rest.endsWith(UNFINISHED)) {
    return { kind: "unfinished", pid, time, syscall, text: rest.slice(0, -UNFINISHED.length).trimEnd() };
  }
  return callOf(pid, time, syscall, rest) ?? note("unknown", pid, time, text, syscall);
}

/** A line that is not a call or a half of one (or a call not understood, with its name). */
function note(
  kind: StraceNote["kind"],
  pid: number | null,
  time: StraceTimestamp | null,
  text: string,
  syscall: string | null = null,
): StraceNote {
  return { kind, pid, time, syscall, text };
}

/** Options of {@link parseStraceOutput}. */
export interface StraceOutputOptions {
  /** The process every line belongs to unless it says otherwise (the `-ff` file's suffix). */
  pid?: number;
}

/**
 * Parses strace output line by line, in order, joining each process's
 * halves: a `<... NAME resumed>` line that follows an `<unfinished ...>` line
 * of the same process and call comes back as the whole call (with the first
 * half's timestamp), in the second half's place. The first half comes back
 * too, as `unfinished`; a second half without a first stays `resumed`.
 * Blank lines are left out. The lines are produced one at a time as they
 * are read, so a large log is never held twice.
 *
 * @example
 * ```ts
 * import { parseStraceOutput } from "@scanlab/host";
 * const log = [
 *   "101 pread64(5</d/16384>,  <unfinished ...>",
 *   '102 pread64(5</d/16384>, ""..., 8192, 8192) = 8192',
 *   '101 <... pread64 resumed>""..., 8192, 0) = 8192',
 * ].join("\n");
 * const calls = [...parseStraceOutput(log)].filter((l) => l.kind === "call");
 * // pid 102 at offset 8192, then pid 101 at offset 0
 * ```
 */
export function* parseStraceOutput(
  text: string,
  options: StraceOutputOptions = {},
): Generator<StraceLine, void, undefined> {
  const pending = new Map<number | null, StraceUnfinished>();
  for (let from = 0; from < text.length; ) {
    const newline = text.indexOf("\n", from);
    const end = newline === -1 ? text.length : newline;
    const line = parseStraceLine(text.slice(from, end), options.pid);
    from = end + 1;
    if (line === null) continue;
    if (line.kind === "unfinished") {
      pending.set(line.pid, line);
    } else if (line.kind === "resumed") {
      const head = pending.get(line.pid);
      if (head !== undefined && head.syscall === line.syscall) {
        pending.delete(line.pid);
        const joined = head.text + line.text;
        yield callOf(head.pid, head.time, head.syscall, joined) ??
          note("unknown", head.pid, head.time, `${head.syscall}(${joined}`, head.syscall);
        continue;
      }
    }
    yield line;
  }
}

/** A call from the text after `NAME(`, or null when it does not end like one. */
function callOf(
  pid: number | null,
  time: StraceTimestamp | null,
  syscall: string,
  rest: string,
): StraceCall | null {
  const split = splitArguments(rest);
  if (split === null) return null;
  const outcome = rest.slice(split.end + 1);
  const result = RESULT.exec(outcome);
  if (!result) return null;
  let after = result[0].length;
  if (outcome[after] === "<") {
    const close = pathEnd(outcome, after);
    if (close === -1) return null;
    after = close + 1;
  }
  const tail = AFTER_RESULT.exec(outcome.slice(after));
  if (!tail) return null;
  const { args } = split;
  const fd = args.length > 0 ? FD.exec(args[0]!) : null;
  return {
    kind: "call",
    pid,
    time,
    syscall,
    args,
    fd: fd ? Number(fd[1]) : null,
    path: fd?.[2] ?? null,
    result: result[1] === "?" ? null : Number(result[1]),
    error: tail[1] ?? null,
    durationS: tail[2] === undefined ? null : Number(tail[2]),
  };
}

/** Whether the character code is a letter, digit or `_` (what ends a descriptor or `AT_FDCWD`). */
function isWordCode(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

/** A path without escapes, nesting or brackets, the common case, matched at once. */
const SIMPLE_PATH = /<[^<>\\[]*>/y;
const BACKSLASH = 92;
const QUOTE = 34;
const LT = 60;
const GT = 62;

/** Where the string that opens at `text[open]` (`"`) closes, past backslash escapes; -1 when it does not. */
function stringEnd(text: string, open: number): number {
  for (let i = text.indexOf('"', open + 1); i !== -1; i = text.indexOf('"', i + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(i - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return i;
  }
  return -1;
}

/**
 * Where the `-y` path that opens at `text[open]` (`<`) closes: the matching
 * `>`, past escapes, `-yy`'s nested `<...>` (`/dev/sda<block 8:0>`) and
 * bracketed socket addresses (`TCP:[a:1->b:2]`). -1 when it does not close.
 */
function pathEnd(text: string, open: number): number {
  SIMPLE_PATH.lastIndex = open;
  if (SIMPLE_PATH.test(text)) return SIMPLE_PATH.lastIndex - 1;
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === LT && (i === open || isWordCode(text.charCodeAt(i - 1)))) depth++;
    else if (c === GT && --depth === 0) return i;
    else if (c === 91 /* [ */ && text.charCodeAt(i - 1) === 58 /* : */) {
      const close = text.indexOf("]", i);
      if (close === -1) return -1;
      i = close;
    }
  }
  return -1;
}

/**
 * Splits the text after `NAME(` into arguments, up to the parenthesis that
 * closes the call: commas inside strings, `[...]`, `{...}`, `(...)` and `-y`
 * paths (`<...>` right after a descriptor or `AT_FDCWD`) do not split. Null
 * when the call is not closed.
 */
function splitArguments(text: string): { args: string[]; end: number } | null {
  const args: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) {
      i++;
    } else if (c === QUOTE) {
      i = stringEnd(text, i);
      if (i === -1) return null;
    } else if (c === LT && isWordCode(text.charCodeAt(i - 1)) && text.charCodeAt(i + 1) !== LT) {
      // `1<<CAP_CHOWN` (capability sets) is an operator, not a path.
      const close = pathEnd(text, i);
      if (close !== -1) i = close;
    } else if (c === 40 /* ( */ || c === 91 /* [ */ || c === 123 /* { */) {
      depth++;
    } else if (c === 41 /* ) */ || c === 93 /* ] */ || c === 125 /* } */) {
      if (depth > 0) depth--;
      else if (c === 41) {
        const last = text.slice(from, i).trim();
        if (last !== "" || args.length > 0) args.push(last);
        return { args, end: i };
      }
    } else if (c === 44 /* , */ && depth === 0) {
      args.push(text.slice(from, i).trim());
      from = i + 1;
    }
  }
  return null;
}
