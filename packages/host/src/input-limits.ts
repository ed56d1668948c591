/**
 * How large each kind of input file may be, in one place.
 *
 * The problem: every file a user names is read whole into memory (a scenario,
 * a profile, a trace) or imported (a work module). A file that is far larger
 * than any real input of its kind is a mistake (the wrong path, a disk image,
 * a log instead of a scenario), and reading it first and failing later costs
 * minutes and gigabytes. So each kind has a ceiling, checked on the file's
 * size before a byte is read, with the reason for its size beside it.
 *
 * The insight: the kinds differ by orders of magnitude. A scenario or a
 * device profile is a hand-sized JSON object (kilobytes); a trace records one
 * line per read system call and grows with the table it traced. One limit for
 * all would either refuse real traces or let a 200 MB "scenario" through.
 */

/** The kinds of file a user can hand to scanlab. */
export type InputKind = "scenario" | "device-profile" | "trace" | "work-module" | "fio-json" | "lab-report";

/** The limit of one kind of input, with its reason. */
export interface InputLimit {
  /** What the file is called in messages ("scenario file"). */
  readonly noun: string;
  /** Largest size accepted, in bytes. */
  readonly maxBytes: number;
  /** Why this size. */
  readonly why: string;
  /** What to do with a file above the limit (the end of the refusal's sentence). */
  readonly advice: string;
}

const MiB = 2 ** 20;

/** The documented ceiling of every kind of input file. */
export const INPUT_LIMITS: Readonly<Record<InputKind, InputLimit>> = Object.freeze({
  scenario: {
    noun: "scenario file",
    maxBytes: 1 * MiB,
    why: "a scenario is one machine, a few tables and queries: the largest of the built-in experiments' 416 row scenarios is under 2 kB as pretty-printed JSON, and even one with an inline device profile and hundreds of queries stays far below 1 MiB",
    advice: "check that this is the scenario you meant",
  },
  "device-profile": {
    noun: "device profile",
    maxBytes: 1 * MiB,
    why: "a profile is a few datasheet figures and their sources (1 to 3 kB); a measured profile adds a few dozen measured points",
    advice: "check that this is the profile you meant (scanlab calibrate --out writes one)",
  },
  "fio-json": {
    noun: "fio JSON file",
    maxBytes: 64 * MiB,
    why: "fio writes 5 to 10 kB of JSON per job, and up to a few hundred kB with --output-format=json+ latency bins: 64 MiB holds hundreds of jobs",
    advice: "check that this is fio's --output-format=json output, or split the jobs into several runs",
  },
  "lab-report": {
    noun: "lab report",
    maxBytes: 32 * MiB,
    why: "a lab report keeps every run of every cell, about 3 kB a cell as scanlab writes it: the full cell set of all seven PostgreSQL versions the lab runs is about 2.5 MB",
    advice: "check that this is the file scanlab lab --json wrote",
  },
  trace: {
    noun: "trace",
    maxBytes: 256 * MiB,
    why: "an strace line of one pread64 is about 90 bytes, so 256 MiB holds some 3 million reads (a 20 GB table read block by block); the trace is parsed in memory at about seven bytes per byte of trace, so a larger one should be narrowed first (grep the relation's path, or trace a shorter scan)",
    advice: "keep only the lines you need (grep the relation's path) or trace a shorter scan",
  },
  "work-module": {
    noun: "work module",
    maxBytes: 16 * MiB,
    why: "a per-block work module is one JavaScript function and what it imports; a bundled module with its dependencies is a few MB",
    advice: "check that this is the module you meant, or bundle less into it",
  },
});
