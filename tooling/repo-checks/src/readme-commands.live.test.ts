/**
 * The root README's commands run as written on a fresh clone.
 *
 * The test `git clone`s the repository's committed HEAD (uncommitted changes
 * are not in it) into a scratch directory, with no node_modules, reads the
 * commands from the README's "Quick start" and "Beyond reproduce" shell
 * blocks (readme-commands.ts), and runs each in the clone's root through
 * `sh -c`, in the README's order, as a user's shell would: the environment is
 * this process's without what npm, turbo and vitest add to it (npm_* and
 * TURBO_* variables, node_modules/.bin on PATH, colour and width settings).
 * The first command, `npm run reproduce`, runs before anything is installed,
 * so it must install the workspace itself (the README says it does).
 *
 * The only change to a command, the substitution below: `/path/to/big/file`
 * becomes a file of 64 MiB of random bytes that the test writes beside the
 * clone. 64 MiB keeps every read size calibrate measures (up to 4 MiB, which
 * needs a file of at least twice that) and its 64 MiB CPU-cost region, and
 * keeps calibrate as written at about a minute and a half alone.
 *
 * The one command not run: `npm test`. It runs the whole test suite, this
 * test included, so running it here would start this test again inside
 * itself; and it is the command CI runs on a fresh clone (.ci/run), so it is
 * already run as written there.
 *
 * Each command must exit 0, and its output must say it did its job (a few
 * checks each, listed with the command below). The scratch directory is
 * under /var/tmp when there is one (a disk-backed file system on the usual
 * Linux system), so `scan --cold` can empty the page cache before each run.
 * Without git, or outside a git checkout, the test is skipped with the
 * reason, except under SCANLAB_REQUIRE_LIVE=1 (CI), where it fails.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomFillSync } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { repoRoot } from "@scanlab/release-checks/workspace";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readmeCommands } from "./readme-commands.js";

/** The README's sections whose shell blocks are run, with the number of commands each holds. */
const SECTIONS = { "Quick start": 2, "Beyond reproduce": 5 } as const;

/** The placeholder the README uses for a user's big file, replaced by a file the test writes. */
const BIG_FILE_PLACEHOLDER = "/path/to/big/file";
const BIG_FILE_MIB = 64;

/** The command not run here (see the header): it runs this test, and CI runs it on a fresh clone. */
const NOT_RUN = "npm test";

const MIN = 60_000;

/** What one command gave. */
interface Run {
  command: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  hung: boolean;
}

/** What the checks of a command may look at. */
interface Scratch {
  clone: string;
  bigFile: string;
}

/** A README command the test knows, with its checks. */
interface Step {
  /** Recognises the command (after substitution). */
  match: RegExp;
  /** How long the command may take before it counts as hung, and why that long. */
  timeoutMs: number;
  check: (run: Run, scratch: Scratch) => void;
}

/** Whitespace collapsed, so checks do not depend on where the 80-column output wraps. */
const flat = (text: string) => text.replace(/\s+/g, " ");

const STEPS: Step[] = [
  {
    match: /^npm run reproduce$/,
    // npm ci from the registry, then turbo builds the CLI and every package under it from nothing, then
    // every target runs: two to four minutes alone on a 2-core machine, many times that when the machine
    // is busy with other tests; the timeout only catches a hang.
    timeoutMs: 60 * MIN,
    check: (r, { clone }) => {
      expect(r.stderr).toContain("scanlab: installing dependencies (npm ci)");
      // A fresh clone has no turbo cache: turbo built the CLI and every package under it here, from nothing.
      expect(flat(r.stderr)).toMatch(/Tasks: (\d+) successful, \1 total Cached: 0 cached/);
      expect(existsSync(join(clone, "node_modules", ".package-lock.json"))).toBe(true);
      expect(existsSync(join(clone, "apps", "cli", "dist", "bin.js"))).toBe(true);
      const summary =
        /Summary: (\d+) of (\d+) statements hold; (\d+) of (\d+) ratios within tolerance \((\d+) of (\d+) targets\)/.exec(
          flat(r.stdout),
        );
      expect(summary, "the statements summary").not.toBeNull();
      const [hold, statements, within, ratios, done, targets] = summary!.slice(1).map(Number) as number[];
      expect(statements).toBeGreaterThan(0);
      expect(hold).toBeLessThanOrEqual(statements!);
      expect(ratios).toBeGreaterThan(0);
      expect(within).toBeLessThanOrEqual(ratios!);
      expect(done).toBe(targets);
      // Each target's report starts with its id and title on a line of its own.
      expect(r.stdout.match(/^T\d+ {2}\S/gm)?.length).toBe(targets);
    },
  },
  {
    match: /^npm run scanlab -- simulate /,
    // turbo finds the build done (cached) and the simulation warps: seconds alone.
    timeoutMs: 15 * MIN,
    check: (r) => {
      const out = flat(r.stdout);
      expect(out).toContain("intel-ssd-320-120gb");
      expect(out).toContain("linux-5.4");
      expect(out).toContain("table t: 100 GiB");
      expect(out).toContain("4 workers");
      const row = /│ scan │ 1 \/ 1 │ ([\d.]+) (s|ms|min|h) │ ([\d.]+) │/.exec(out);
      expect(row, "the scan's row with its mean time and MiB/s").not.toBeNull();
      expect(Number(row![1])).toBeGreaterThan(0);
      expect(Number(row![3])).toBeGreaterThan(0);
    },
  },
  {
    match: /^npm run scanlab -- sweep /,
    // A grid of five small bitmap-scan simulations: seconds alone.
    timeoutMs: 15 * MIN,
    check: (r) => {
      const out = flat(r.stdout);
      const rows = [...out.matchAll(/│ (\d+) │ ([\d.]+) (?:s|ms) │ (\d+)% │/g)];
      expect(rows.map((m) => m[1])).toEqual(["0", "1", "4", "16", "64"]);
      expect(rows[0]![3]).toBe("100");
      for (const m of rows) expect(Number(m[2])).toBeGreaterThan(0);
    },
  },
  {
    match: /^npm run scanlab -- scan /,
    // Two cold scans of the 64 MiB file, the cache emptied before each: seconds alone.
    timeoutMs: 15 * MIN,
    check: (r, { bigFile }) => {
      const out = flat(r.stdout);
      expect(out).toContain(`File ${bigFile}:`);
      expect(out).toContain(`${((BIG_FILE_MIB * 1024 * 1024) / 8192).toLocaleString("en-US")} blocks`);
      expect(out).toContain("2 worker(s)");
      // --cold empties the page cache before each run; where the file system keeps the pages (tmpfs),
      // scan says so and reports the runs as warm.
      const cache = /after eviction [\d.]+% of the file was still resident/.test(out) ? "warm" : "cold";
      for (const policy of ["pg11", "pg14"]) {
        expect(out).toMatch(new RegExp(`│ ${policy} │ ${cache} │ [\\d.]+ (?:ms|s) │ \\d+ │`));
        expect(out, `${policy} read every block once`).toContain(`│ ${policy} │ yes │`);
      }
    },
  },
  {
    match: /^npm run scanlab -- calibrate .* --out my-disk\.json$/,
    // fio's three rounds of every job, the CPU costs, and the kernel's readahead on a 256 MiB test file:
    // about a minute and a half alone, and disk-bound, so slower still when other tests read the disk.
    timeoutMs: 30 * MIN,
    check: (r, { clone }) => {
      // npm runs the script in the clone's root, so the relative --out lands there.
      const written = join(clone, "my-disk.json");
      expect(flat(r.stdout)).toContain(`Profile written to ${written}.`);
      const profile = JSON.parse(readFileSync(written, "utf8")) as { name?: unknown; basis?: unknown };
      expect(typeof profile.name).toBe("string");
      expect(profile.basis).toBe("measurement");
      expect(flat(r.stdout)).toContain("Kernel readahead");
    },
  },
  {
    match: /^npm run scanlab -- advise --device my-disk\.json /,
    // Four small sweeps of a scaled-down table: seconds alone.
    timeoutMs: 15 * MIN,
    check: (r, { clone }) => {
      const { name } = JSON.parse(readFileSync(join(clone, "my-disk.json"), "utf8")) as { name: string };
      const out = flat(r.stdout);
      expect(out).toContain(`Advice for a seqscan of 200GB on linux-6.10, ${name}, PostgreSQL 17`);
      for (const setting of ["max_parallel_workers_per_gather", "effective_io_concurrency", "read_ahead_kb"])
        expect(out).toMatch(new RegExp(`│ ${setting}[^│]* │ \\d+ \\(\\d[^)]*\\) │`));
      expect(out).toContain("shows it: scanlab sweep --os linux-6.10 --device my-disk.json");
    },
  },
];

/** The environment of a user's shell: this one without what npm, turbo and vitest set for this test run. */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(npm_|TURBO_|VITEST)/i.test(k)) continue;
    if (["INIT_CWD", "NODE_ENV", "COLUMNS", "NO_COLOR", "FORCE_COLOR"].includes(k)) continue;
    env[k] = v;
  }
  env.PATH = (process.env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => !dir.split(/[\\/]/).includes("node_modules"))
    .join(delimiter);
  return env;
}

const running = new Set<ChildProcess>();

/** Runs `sh -c command` in `cwd`; after `timeoutMs` its whole process group is killed and the run reported as hung. */
function run(command: string, cwd: string, timeoutMs: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn("sh", ["-c", command], {
      cwd,
      env: userEnv(),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true, // its own process group: npm, turbo and node under it are stopped with it
    });
    running.add(child);
    let stdout = "";
    let stderr = "";
    let hung = false;
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => {
      hung = true;
      killGroup(child);
    }, timeoutMs);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ command, code, signal, stdout, stderr, hung });
    });
  });
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** The end of a run's output, for the message of a failed check. */
function tail(r: Run): string {
  const last = (s: string) => s.trimEnd().split("\n").slice(-40).join("\n");
  return `\`${r.command}\` exit ${r.code ?? r.signal}${r.hung ? " (killed: hung)" : ""}\n--- stdout (end)\n${last(r.stdout)}\n--- stderr (end)\n${last(r.stderr)}`;
}

const requireLive = process.env.SCANLAB_REQUIRE_LIVE === "1";

/** The committed README (the one the clone will have), or why the test cannot run. */
function committedReadme(): { text: string; head: string } | { missing: string } {
  try {
    const head = execFileSync("git", ["-C", repoRoot, "rev-parse", "HEAD"], {
      encoding: "utf8",
      stdio: "pipe",
    }).trim();
    const text = execFileSync("git", ["-C", repoRoot, "show", `${head}:README.md`], {
      encoding: "utf8",
      stdio: "pipe",
    });
    return { text, head };
  } catch (e) {
    return {
      missing: `${repoRoot} is not a git checkout with a commit, or git is not installed (${String(e).split("\n")[0]})`,
    };
  }
}

const readme = committedReadme();
const missing = "missing" in readme ? readme.missing : undefined;
if (missing && !requireLive) console.warn(`README commands test skipped: ${missing}`);
const commands = "text" in readme ? readmeCommands(readme.text, Object.keys(SECTIONS)) : [];

describe.skipIf(missing !== undefined && !requireLive)(
  "the README's commands, as written, on a fresh clone",
  () => {
    // A disk-backed file system, so `scan --cold` can empty the page cache (tmpfs pages stay resident).
    const base = existsSync("/var/tmp") ? "/var/tmp" : tmpdir();
    let scratch: Scratch;
    let dir: string;

    beforeAll(() => {
      if (missing) throw new Error(`SCANLAB_REQUIRE_LIVE=1 but ${missing}`);
      dir = mkdtempSync(join(base, "scanlab-readme-"));
      const clone = join(dir, "scanlab");
      execFileSync("git", ["clone", "--quiet", "--no-checkout", repoRoot, clone], { stdio: "pipe" });
      execFileSync(
        "git",
        ["-C", clone, "checkout", "--quiet", "--detach", (readme as { head: string }).head],
        {
          stdio: "pipe",
        },
      );
      const bigFile = join(dir, "big.file");
      const data = Buffer.alloc(BIG_FILE_MIB * 1024 * 1024);
      randomFillSync(data);
      writeFileSync(bigFile, data);
      scratch = { clone, bigFile };
    });

    afterAll(() => {
      for (const child of running) killGroup(child);
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    it("the README holds the commands this test knows, section by section", () => {
      for (const [section, count] of Object.entries(SECTIONS))
        expect(
          commands.filter((c) => c.section === section).map((c) => c.command),
          `the shell commands under "## ${section}" (a change of the README's shape must update this test)`,
        ).toHaveLength(count);
      expect(commands.filter((c) => c.command.includes(BIG_FILE_PLACEHOLDER)).length).toBeGreaterThan(0);
      // The only command not run is `npm test` (see the header); every other one has its checks below.
      expect(
        commands.filter((c) => !STEPS.some((s) => s.match.test(c.command))).map((c) => c.command),
      ).toEqual([NOT_RUN]);
    });

    it("the clone has no node_modules before the first command", () => {
      expect(existsSync(join(scratch.clone, "README.md"))).toBe(true);
      expect(existsSync(join(scratch.clone, "node_modules"))).toBe(false);
    });

    for (const { section, command: written } of commands) {
      if (written === NOT_RUN) continue;
      const step = STEPS.find((s) => s.match.test(written));
      it.skipIf(step === undefined)(
        `${section}: ${written}`,
        async () => {
          // The substitution (see the header); the command is otherwise run as written.
          const command = written.replaceAll(BIG_FILE_PLACEHOLDER, scratch.bigFile);
          // Killed a minute before the test's timeout, so a hang reports the command's output.
          const r = await run(command, scratch.clone, step!.timeoutMs - MIN);
          expect(r.code, tail(r)).toBe(0);
          expect(r.stderr, "no stack trace").not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
          try {
            step!.check(r, scratch);
          } catch (e) {
            (e as Error).message += `\n${tail(r)}`;
            throw e;
          }
        },
        step?.timeoutMs,
      );
    }
  },
);
