/**
 * Worked examples: a line of each shape strace(1) writes (the options that
 * shape it named in each case, the lines as strace 6.1 printed them) and what
 * it gives.
 */
import { describe, expect, it } from "vitest";
import { parseStraceLine, parseStraceOutput, type StraceCall } from "./strace.js";

/** A call record with the fields a case does not name left at "nothing printed". */
function call(fields: Partial<StraceCall> & Pick<StraceCall, "syscall" | "args">): StraceCall {
  return {
    kind: "call",
    pid: null,
    time: null,
    fd: null,
    path: null,
    result: 0,
    error: null,
    durationS: null,
    ...fields,
  };
}

describe("parseStraceLine: a whole call", () => {
  it("no options: name, arguments, result", () => {
    expect(parseStraceLine('pread64(5, "\\0\\0"..., 8192, 0) = 8192')).toEqual(
      call({ syscall: "pread64", args: ["5", '"\\0\\0"...', "8192", "0"], fd: 5, result: 8192 }),
    );
  });

  it("-y: the descriptor's path, as printed (a comma stays in it, `>` is escaped in octal)", () => {
    expect(parseStraceLine('pread64(3</tmp/data, file\\76x>, "\\267b"..., 8192, 1099511627776) = 0')).toEqual(
      call({
        syscall: "pread64",
        args: ["3</tmp/data, file\\76x>", '"\\267b"...', "8192", "1099511627776"],
        fd: 3,
        path: "/tmp/data, file\\76x",
        result: 0,
      }),
    );
  });

  it("-yy: a device's numbers and a socket's addresses are part of the path", () => {
    expect(parseStraceLine('pread64(3</dev/zero<char 1:5>>, "\\0"..., 8192, 0) = 8192')).toMatchObject({
      fd: 3,
      path: "/dev/zero<char 1:5>",
      args: ["3</dev/zero<char 1:5>>", '"\\0"...', "8192", "0"],
    });
    expect(
      parseStraceLine('sendto(4<TCP:[127.0.0.1:46226->127.0.0.1:42579]>, "x,y", 3, 0, NULL, 0) = 3'),
    ).toMatchObject({
      fd: 4,
      path: "TCP:[127.0.0.1:46226->127.0.0.1:42579]",
      args: ["4<TCP:[127.0.0.1:46226->127.0.0.1:42579]>", '"x,y"', "3", "0", "NULL", "0"],
      result: 3,
    });
  });

  it("preadv: one argument per argument, the array of buffers whole", () => {
    expect(
      parseStraceLine(
        'preadv(5</d/16384>, [{iov_base=""..., iov_len=8192}, {iov_base=""..., iov_len=8192}], 2, 16384) = 16384',
      ),
    ).toEqual(
      call({
        syscall: "preadv",
        args: [
          "5</d/16384>",
          '[{iov_base=""..., iov_len=8192}, {iov_base=""..., iov_len=8192}]',
          "2",
          "16384",
        ],
        fd: 5,
        path: "/d/16384",
        result: 16384,
      }),
    );
  });

  it("a failed call: result -1 and the errno name; `?` where the call did not return a value", () => {
    expect(
      parseStraceLine("pread64(999, 0x7ffe27b4cdc0, 8192, 0)   = -1 EBADF (Bad file descriptor)"),
    ).toEqual(
      call({
        syscall: "pread64",
        args: ["999", "0x7ffe27b4cdc0", "8192", "0"],
        fd: 999,
        result: -1,
        error: "EBADF",
      }),
    );
    expect(
      parseStraceLine("read(0, 0x7ffff72cf5cf, 1)              = ? ERESTARTSYS (To be restarted)"),
    ).toMatchObject({ result: null, error: "ERESTARTSYS" });
    expect(parseStraceLine("exit_group(0)                           = ?")).toMatchObject({
      syscall: "exit_group",
      args: ["0"],
      result: null,
    });
  });

  it("results strace decodes: a hexadecimal value, flags, a returned descriptor's path", () => {
    expect(parseStraceLine("fcntl(3, F_GETFL) = 0x8002 (flags O_RDWR|O_LARGEFILE)")).toMatchObject({
      result: 0x8002,
      error: null,
    });
    expect(parseStraceLine('openat(AT_FDCWD</tmp>, "x", O_RDONLY) = 3</tmp/x>')).toEqual(
      call({ syscall: "openat", args: ["AT_FDCWD</tmp>", '"x"', "O_RDONLY"], result: 3 }),
    );
  });

  it("-T: the seconds spent in the call", () => {
    expect(parseStraceLine("fadvise64(3</d/1>, 40960, 8192, POSIX_FADV_WILLNEED) = 0 <0.000009>")).toEqual(
      call({
        syscall: "fadvise64",
        args: ["3</d/1>", "40960", "8192", "POSIX_FADV_WILLNEED"],
        fd: 3,
        path: "/d/1",
        durationS: 0.000009,
      }),
    );
  });
});

describe("parseStraceLine: prefixes", () => {
  const line = "lseek(5, 81920, SEEK_SET) = 81920";

  it("-f: `[pid N] ` on a terminal, `N ` with -o; -ff: the pid given (the file's suffix)", () => {
    expect(parseStraceLine(`[pid  4242] ${line}`)).toMatchObject({ pid: 4242, time: null });
    expect(parseStraceLine(`4242  ${line}`)).toMatchObject({ pid: 4242, time: null });
    expect(parseStraceLine(line, 4243)).toMatchObject({ pid: 4243 });
    expect(parseStraceLine(`4242 ${line}`, 4243)).toMatchObject({ pid: 4242 });
    expect(parseStraceLine(line)).toMatchObject({ pid: null });
  });

  it("-Y: the command name after the pid", () => {
    expect(parseStraceLine(`[pid  2728<postgres>] ${line}`)).toMatchObject({ pid: 2728, syscall: "lseek" });
    expect(parseStraceLine(`2737<postgres> ${line}`)).toMatchObject({ pid: 2737, syscall: "lseek" });
  });

  it("-t and -tt: the time of day, in seconds since midnight", () => {
    expect(parseStraceLine(`10:00:01 ${line}`)).toMatchObject({ time: { form: "clock", seconds: 36001 } });
    expect(parseStraceLine(`4243 10:00:01.123456 ${line}`)).toMatchObject({
      pid: 4243,
      time: { form: "clock", seconds: 36001.123456 },
    });
  });

  it("-ttt (any precision) and -r after a pid: seconds as printed", () => {
    expect(parseStraceLine(`1796238393.082876829 ${line}`)).toMatchObject({
      pid: null,
      // --timestamps=unix,ns: a double holds a time of the epoch to about 0.2 microseconds.
      time: { form: "seconds", seconds: 1796238393.082877 },
    });
    expect(parseStraceLine(`15107      0.000096 ${line}`)).toMatchObject({
      pid: 15107,
      time: { form: "seconds", seconds: 0.000096 },
    });
    // -r pads the seconds to six places, so a line without -f begins with spaces.
    expect(parseStraceLine(`     0.000163 ${line}`)).toMatchObject({
      pid: null,
      time: { form: "seconds", seconds: 0.000163 },
      syscall: "lseek",
    });
  });
});

describe("parseStraceLine: halves and notes", () => {
  it("the first half of a call another process interrupted, and its second half", () => {
    expect(parseStraceLine("[pid 13913] pread64(3</d/16384>,  <unfinished ...>")).toEqual({
      kind: "unfinished",
      pid: 13913,
      time: null,
      syscall: "pread64",
      text: "3</d/16384>,",
    });
    expect(parseStraceLine('[pid 13913] <... pread64 resumed>"GUK"..., 8192, 40960) = 8192')).toEqual({
      kind: "resumed",
      pid: 13913,
      time: null,
      syscall: "pread64",
      text: '"GUK"..., 8192, 40960) = 8192',
    });
  });

  it("signals, exits and strace's messages", () => {
    expect(parseStraceLine("7 --- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_USER} ---")).toMatchObject({
      kind: "signal",
      pid: 7,
    });
    expect(parseStraceLine("7 +++ exited with 0 +++")).toMatchObject({
      kind: "exit",
      text: "+++ exited with 0 +++",
    });
    expect(parseStraceLine("strace: Process 13915 attached")).toMatchObject({ kind: "message", pid: null });
  });

  it("what is not understood: a call cut short keeps its name; blank lines are nothing", () => {
    expect(parseStraceLine("[pid 13913] pread64(3</d/16384>, strace: Process 13915 attached")).toMatchObject({
      kind: "unknown",
      pid: 13913,
      syscall: "pread64",
    });
    expect(
      parseStraceLine("  8,0    0        1     0.000000000  4185  Q   R 2048 + 256 [postgres]"),
    ).toMatchObject({
      kind: "unknown",
      syscall: null,
    });
    expect(parseStraceLine("   \r")).toBeNull();
  });
});

describe("parseStraceOutput", () => {
  const outputOf = (text: string, pid?: number) => [...parseStraceOutput(text, { pid })];

  it("joins a process's halves at the second half's place, with the first half's time", () => {
    const lines = outputOf(
      [
        "101 10:00:00 pread64(5</d/16384>,  <unfinished ...>",
        '102 10:00:01 pread64(5</d/16384>, ""..., 8192, 8192) = 8192',
        '101 10:00:02 <... pread64 resumed>""..., 8192, 0) = 8192 <0.000021>',
      ].join("\n"),
    );
    expect(lines.map((l) => l.kind)).toEqual(["unfinished", "call", "call"]);
    expect(lines[2]).toEqual(
      call({
        pid: 101,
        time: { form: "clock", seconds: 36000 },
        syscall: "pread64",
        args: ["5</d/16384>", '""...', "8192", "0"],
        fd: 5,
        path: "/d/16384",
        result: 8192,
        durationS: 0.000021,
      }),
    );
  });

  it("joins the shape of strace(1)'s own example (a space after `resumed>`, a decoded result)", () => {
    const lines = outputOf(
      [
        "[pid 28772] select(4, [3], NULL, NULL, NULL <unfinished ...>",
        "[pid 28779] clock_gettime(CLOCK_REALTIME, {tv_sec=1130322148, tv_nsec=3977000}) = 0",
        "[pid 28772] <... select resumed> )      = 1 (in [3])",
      ].join("\n"),
    );
    expect(lines[2]).toEqual(
      call({ pid: 28772, syscall: "select", args: ["4", "[3]", "NULL", "NULL", "NULL"], fd: 4, result: 1 }),
    );
  });

  it("leaves a second half without its first, and of another call, as it is", () => {
    const lines = outputOf(
      [
        "7 lseek(5,  <unfinished ...>",
        '7 <... pread64 resumed>""..., 8192, 0) = 8192',
        '8 <... read resumed>"", 1) = 0',
      ].join("\n"),
    );
    expect(lines.map((l) => [l.kind, l.pid])).toEqual([
      ["unfinished", 7],
      ["resumed", 7],
      ["resumed", 8],
    ]);
  });

  it("-ff: the pid given for a file's lines, blank lines left out", () => {
    const lines = outputOf('1.5 read(5, "", 1) = 0\n\n+++ exited with 0 +++\n', 4242);
    expect(lines.map((l) => [l.kind, l.pid])).toEqual([
      ["call", 4242],
      ["exit", 4242],
    ]);
  });
});
