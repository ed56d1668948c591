/**
 * The `scanlab` command line: commander 14 commands with examples in every
 * `--help`, `--json` everywhere, and one place (run.ts) that turns errors
 * into exit codes.
 *
 * Start-up loads only what the invoked command needs. Every command's code
 * (and the model packages behind it) is imported when its action runs, and
 * the options whose help text comes from the simulator (the scenario flags
 * and the work budget) are added only to the command being run or asked
 * about, so `scanlab --version` and `scanlab --help` load commander and
 * nothing of the simulator.
 */
import { Command, Option } from "commander";
import type { Ctx } from "./context.js";
import { wrapCommand } from "./output/wrap.js";
import { VERSION } from "./version.js";

function examples(lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => (l.startsWith("#") ? `  ${l}` : wrapCommand(`  $ ${l}`, 80, 5))).join("\n")}\n`;
}

const json = () => new Option("--json", "print one JSON document on stdout (machine output)");
const seed = () => new Option("--seed <N>", "seed of every random choice (same seed, same output)");
const jobs = () => new Option("--jobs <N>", "simulations at once (default: the machine's cores)");

/** The subcommand `argv` runs or asks help for (`scanlab help sweep` asks for sweep), or null. */
export function invokedCommand(argv: readonly string[]): string | null {
  const words = argv.filter((a) => !a.startsWith("-"));
  if (words[0] === "help") return words[1] ?? null;
  return words[0] ?? null;
}

/** The width help is wrapped to: 80 columns, or the terminal's when it is narrower. */
function helpColumns(): number {
  const columns = process.stdout.isTTY ? process.stdout.columns : undefined;
  return Math.min(columns !== undefined && columns > 0 ? columns : 80, 80);
}

/** What the simulator-backed options need: loaded only for the command being run. */
interface HeavyOptions {
  overBudget: () => Option;
  addScenarioFlags: (cmd: Command) => Command;
}

async function loadHeavyOptions(): Promise<HeavyOptions> {
  const [{ MEMORY_BUDGET_BYTES, WORK_BUDGET_STEPS }, { addScenarioFlags }] = await Promise.all([
    import("@scanlab/simulator"),
    import("./commands/scenario-input.js"),
  ]);
  return {
    overBudget: () =>
      new Option(
        "--over-budget",
        `run even when the estimated work (${WORK_BUDGET_STEPS / 1e6} million steps) or memory (${MEMORY_BUDGET_BYTES / 1024 ** 3} GiB) is over scanlab's budget; progress is shown and Ctrl-C keeps what finished`,
      ),
    addScenarioFlags,
  };
}

/**
 * Builds the program for `argv`; `ctxFor` makes the context once the
 * command's options are known, `done` receives its exit code.
 */
export async function buildProgram(
  ctxFor: (json: boolean) => Ctx,
  done: (code: number) => void,
  argv: readonly string[] = [],
): Promise<Command> {
  const invoked = invokedCommand(argv);
  const heavy = ["simulate", "sweep", "advise"].includes(invoked ?? "") ? await loadHeavyOptions() : null;
  // Commands that are not run get no simulator-backed options: they only appear in the command list.
  const addScenarioFlags = (cmd: Command): Command => (heavy === null ? cmd : heavy.addScenarioFlags(cmd));
  const overBudget = (): Option => heavy?.overBudget() ?? new Option("--over-budget");
  const program = new Command("scanlab")
    // Help fits 80 columns (or a narrower terminal); subcommands inherit this.
    .configureHelp({ helpWidth: helpColumns(), minWidthToWrap: 24 })
    .description(
      "A laboratory for table-scan I/O: reproduce the pgsql-hackers scan experiments, simulate and sweep scans, scan real files, calibrate a device, and get settings advice.",
    )
    .version(VERSION, "-V, --version", "print the version")
    .option("--debug", "print stack traces on errors")
    .helpOption("-h, --help", "show help")
    .showSuggestionAfterError(true)
    .addHelpText(
      "after",
      examples([
        "scanlab reproduce                 # every published experiment, simulated",
        "scanlab simulate --table-size 100GB --workers 4 --device intel-ssd-320-120gb",
        "scanlab sweep --device raid0-6x-intel-s3600-100gb --workload bitmap --dataset sequential --vary effective-io-concurrency=0,1,4,16",
        "scanlab scan /data/big.file --workers 4 --cold --compare pg11,pg14",
        "scanlab advise --device intel-ssd-320-120gb --os linux-5.4 --table-size 100GB",
      ]),
    );

  program
    .command("reproduce")
    .summary("run the built-in reproductions of the published experiments")
    .description(
      'Run the built-in reproduction targets: per target its assumptions, the calibration of its one unknown, published vs simulated figures with the ratio, the ratio checks and the "must reproduce" statements.',
    )
    .argument("[targets...]", "target ids (T1 T2 T3 T4 T5 T7) or all", [])
    .option("--report <DIR>", "write SVG charts and one self-contained report.html into DIR")
    .option("--png", "with --report, also write each chart as PNG (needs @resvg/resvg-js)")
    .option(
      "--no-calibration",
      "skip calibration: run every row with the scenario's default unknowns (faster)",
    )
    .option("--rows <IDS>", "only these rows of a single target (comma-separated), for a quick look")
    .option("--strict", "exit 1 when a statement does not hold or a ratio is outside its tolerance")
    .addOption(jobs())
    .addOption(seed())
    .addOption(json())
    .addHelpText(
      "after",
      examples([
        "scanlab reproduce",
        "scanlab reproduce T1 T3 --report out/",
        "scanlab reproduce T7 --no-calibration --json > t7.json",
        "scanlab reproduce T1 --rows serial,stride-1 --no-calibration",
      ]),
    )
    .action(async (targets: string[], opts) =>
      done(
        await (await import("./commands/reproduce.js")).reproduceCommand(ctxFor(!!opts.json), targets, opts),
      ),
    );

  addScenarioFlags(
    program
      .command("simulate")
      .summary("simulate one scenario, from a file or from PostgreSQL-named flags")
      .description(
        "Simulate one scenario: from a scenario file, from flags named after PostgreSQL settings, or a file with flags over it (table flags apply to every table, query flags to every query).",
      )
      .argument("[scenario]", "scenario JSON file (see the README for the format)"),
  )
    .option("--print-scenario", "print the scenario (file + flags) as JSON and stop; save it to re-run it")
    .option(
      "--exact",
      "simulate every block: no warp over the steady middle of long scans (slower; the warp's answer is within a few tenths of a percent)",
    )
    .addOption(overBudget())
    .addOption(seed())
    .addOption(json())
    .addHelpText(
      "after",
      examples([
        "scanlab simulate --table-size 100GB --workers 4 --allocator pg14 --os linux-5.4 --device intel-ssd-320-120gb",
        "scanlab simulate --table-size 800GB --clients 6 --workers 10 --synchronize-seqscans off --ram 64GB",
        "scanlab simulate --workload bitmap --dataset sequential --selectivity 10% --effective-io-concurrency 1",
        "scanlab simulate my-scenario.json --synchronize-seqscans off --json",
        "scanlab simulate --table-size 10GB --print-scenario > s.json",
      ]),
    )
    .action(async (file: string | undefined, opts) =>
      done(await (await import("./commands/simulate.js")).simulateCommand(ctxFor(!!opts.json), file, opts)),
    );

  addScenarioFlags(
    program
      .command("sweep")
      .summary("simulate a scenario over one or two varied settings (the 2022 eic benchmark's table)")
      .description(
        "Simulate a scenario at every value of one or two settings, in parallel worker threads, and print time and % of a baseline column (the first value, or --baseline); --report adds a chart. NAME is any scenario flag of `scanlab simulate` (without the dashes).",
      )
      .argument("[scenario]", "scenario JSON file (optional; flags alone work too)"),
  )
    .option(
      "--vary <NAME=V1,V2,...>",
      "a setting and its values (give once or twice)",
      (v: string, prev: string[]) => [...prev, v],
      [] as string[],
    )
    .option("--baseline <VALUE>", "the column the percentages are of (default: the first value)")
    .option("--report <DIR>", "write the chart (SVG), sweep.html and sweep.json into DIR")
    .option("--png", "with --report, also write the chart as PNG (needs @resvg/resvg-js)")
    .option(
      "--queue <URL>",
      "run the cells on a job queue served by `scanlab worker` processes instead of local threads: a URL redis://HOST:PORT/DB, or rediss:// for TLS, with USER:PASSWORD@ before the host when it needs them",
    )
    .option(
      "--sweep-id <ID>",
      "with --queue, the sweep's id (default: derived from its cells); the same id again reuses the finished cells",
    )
    .addOption(jobs())
    .addOption(overBudget())
    .addOption(seed())
    .addOption(json())
    .addHelpText(
      "after",
      examples([
        "# the 2022 eic benchmark (T7 b): one SSD and a RAID0, near-sequential pages",
        "scanlab sweep --workload bitmap --dataset sequential --selectivity 17% --table-size 4GB --ram 1GB --vary effective-io-concurrency=0,1,2,4,8,16,32,64 --vary device=intel-ssd-320-120gb,raid0-6x-intel-s3600-100gb",
        "scanlab sweep --table-size 20GB --vary workers=0,1,2,4,8 --vary allocator=pg11,pg14 --report out/",
        "scanlab sweep t.json --vary read-ahead-kb=128,512,2048 --json",
        "# on a job queue, with `scanlab worker --queue URL` running on other machines",
        "scanlab sweep t.json --vary workers=0,1,2,4 --vary read-ahead-kb=128,512,2048 --queue redis://queue.example:6379/0 --sweep-id ra-1",
      ]),
    )
    .action(async (file: string | undefined, opts) =>
      done(await (await import("./commands/sweep.js")).sweepCommand(ctxFor(!!opts.json), file, opts)),
    );

  program
    .command("worker")
    .summary("run sweep cells from a job queue until stopped (SIGINT or SIGTERM)")
    .description(
      "Serve a job queue (BullMQ on Redis) that `scanlab sweep --queue` puts cells on: run each cell, a scenario checked like a scenario file, on a thread, and store its result on the queue. Start any number of workers on any number of machines, all with the same scanlab version. Stops on SIGINT or SIGTERM after finishing its running cells (exit 0); a second signal quits at once, and the queue hands those cells to another worker.",
    )
    .requiredOption("--queue <URL>", "the queue: redis://[user:password@]host:port/db, or rediss:// for TLS")
    .addOption(jobs())
    .addHelpText(
      "after",
      examples([
        "scanlab worker --queue redis://queue.example:6379/0",
        "scanlab worker --queue rediss://scanlab:$QUEUE_PASSWORD@queue.example:6380/0 --jobs 2",
      ]),
    )
    .action(async (opts) =>
      done(await (await import("./commands/worker.js")).workerCommand(ctxFor(false), opts)),
    );

  program
    .command("scan")
    .summary("scan a real file with worker threads and PostgreSQL's allocators")
    .description(
      "Scan a real file (or a PostgreSQL relation's segment files) with worker threads taking blocks from PostgreSQL's allocator in shared memory; report MiB/s, device reads and their average size, cold or warm.",
    )
    .argument("<path>", "file, or a relation's first segment file")
    .option("--workers <N>", "worker threads (every one scans; default 1)")
    .option("--allocator <KIND>", "pg96, pg11, batch[:N], munro2020[:N], pg14[:CAP|none] (default pg14)")
    .option("--compare <KINDS>", "run these allocators back to back (comma-separated), e.g. pg11,pg14")
    .option("--cold", "drop the file from the page cache before each run")
    .option(
      "--device <NAME|FILE>",
      "device profile for the simulator's prediction beside each run (scanlab calibrate)",
    )
    .option("--block-size <SIZE>", "block size (default 8kB, PostgreSQL's BLCKSZ)")
    .option("--work <KIND>", "per-block work: none, checksum, count-bytes (default none)")
    .option(
      "--work-module <FILE>",
      "per-block work of your own: an ES module whose default export gets (bytes, block)",
    )
    .option(
      "--pg <VERSION>",
      "read as this PostgreSQL version does (default 14): 17 and later read through read streams",
    )
    .option(
      "--io-combine-limit <N|SIZE>",
      "PG17+: blocks per combined preadv, or a size such as 128kB (default 16; 1 reads one block per pread)",
    )
    .option(
      "--effective-io-concurrency <N>",
      "PG17+: advise (posix_fadvise WILLNEED) reads that do not continue the previous one, this many in flight",
    )
    .option(
      "--pattern <ORDER>",
      "prefetch reader instead of a scan: forward, backward or random, one block per read",
    )
    .option(
      "--advise-distance <D>",
      "with --pattern: advise the block D reads ahead; printed beside the same reader without advice",
    )
    .addOption(seed())
    .addOption(json())
    .addHelpText(
      "after",
      examples([
        "scanlab scan /data/big.file --workers 4 --cold",
        "# PG17's reads: 128 kB preadv per worker; then advice at the jumps",
        "scanlab scan /data/big.file --workers 2 --cold --pg 17",
        "scanlab scan /data/big.file --cold --pg 17 --effective-io-concurrency 16",
        "# the classic prefetch experiment: advise the next block, beside no advice",
        "scanlab scan /data/big.file --cold --pattern forward --advise-distance 1",
        "# the 2020 FreeBSD experiment (T1) here: striding, 64-block ranges, PG14",
        "scanlab scan /data/big.file --workers 2 --cold --compare pg11,munro2020,pg14 --device my-disk.json",
        "scanlab scan /var/lib/postgresql/15/main/base/5/16384 --workers 3 --json",
      ]),
    )
    .action(async (path: string, opts) =>
      done(await (await import("./commands/scan.js")).scanCommand(ctxFor(!!opts.json), path, opts)),
    );

  program
    .command("calibrate")
    .summary("measure the device and the kernel's readahead; write a device profile")
    .description(
      "Measure the device holding PATH (fio when installed, else Node reads) and the kernel's readahead on that file system, and write a device profile that --device FILE accepts.",
    )
    .argument("<path>", "an existing file of at least 1 MiB on the device to measure (bigger is better)")
    .option("--out <FILE>", "write the profile here")
    .option("--method <NAME>", "auto, fio or node (default auto)")
    .option("--phase-ms <MS>", "duration of each measurement phase")
    .option("--name <NAME>", "profile name (default calibrated-<file name>)")
    .option("--no-readahead", "skip the kernel readahead measurement")
    .option("--readahead-mib <MIB>", "size of the readahead test file written beside PATH (default 256)")
    .addOption(seed())
    .addOption(json())
    .addHelpText(
      "after",
      examples([
        "scanlab calibrate /data/big.file --out my-disk.json",
        "scanlab simulate --device my-disk.json --table-size 50GB --workers 4",
        "scanlab calibrate /data/big.file --method node --no-readahead --json",
      ]),
    )
    .action(async (path: string, opts) =>
      done(await (await import("./commands/calibrate.js")).calibrateCommand(ctxFor(!!opts.json), path, opts)),
    );

  program
    .command("lab")
    .summary("run real PostgreSQL scans here and show them beside the simulator's prediction")
    .description(
      "Start a throwaway PostgreSQL cluster per version (as a non-root user, unix socket only), create the lab's tables, run each cell (seq scans serial and parallel, synchronized scans, read_ahead_kb, bitmap heap scans on the 2022 data sets at several eic, PG18 io_method and io_combine_limit) cold and warm at least 3 times, and print the medians beside the simulator's prediction of the same cell, with whether each comparison points the same way. Everything it made is removed at the end, also after Ctrl-C.",
    )
    .option("--pg <VERSIONS>", "PostgreSQL major(s), comma-separated: 11, 13-18 (default 15)")
    .option("--quick", "the small cell set: small tables, a few cells per mechanism (minutes)")
    .option("--runs <N>", "runs per cell, median kept (default 3, at least 3)")
    .option(
      "--cells <TEXT,...>",
      'only the cells whose id contains one of these texts (e.g. "seq narrow warm,bitmap_random cold"), and the fit cells of their PostgreSQL versions, which always run unless --no-fit; only the tables these scan are made',
    )
    .option(
      "--profile <FILE>",
      "device profile for the predictions (scanlab calibrate --out), else the simulate default",
    )
    .option(
      "--work-dir <DIR>",
      "directory the clusters are made in; its device is the one measured (default the temp dir)",
    )
    .option(
      "--no-fit",
      "predict with the simulator's default CPU costs instead of fitting them from the warm fit cells",
    )
    .option(
      "--no-probe",
      "predict on --profile's device as it is, instead of on the device as fio measured it through a table's file",
    )
    .option("--json [FILE]", "write the JSON document to FILE, or print it on stdout instead of the tables")
    .option("--report <FILE>", "write a self-contained HTML page with a measured-vs-predicted chart")
    .option(
      "--replay <FILE>",
      "predict the runs of an earlier --json document again (this simulator, --profile's device model): no PostgreSQL",
    )
    .addHelpText(
      "after",
      examples([
        "scanlab lab --pg 15 --quick",
        "scanlab calibrate /data/big.file --out my-disk.json && scanlab lab --pg 17,18 --profile my-disk.json --report lab.html",
        "scanlab lab --pg 15 --quick --json lab.json",
        'scanlab lab --pg 15,18 --quick --cells "seq narrow"',
        "scanlab lab --replay lab.json --profile other-disk.json",
      ]),
    )
    .action(async (opts) =>
      done(await (await import("./commands/lab.js")).labCommand(ctxFor(opts.json === true), opts)),
    );

  program
    .command("advise")
    .summary("recommend eic, parallel workers, read_ahead_kb and the chunk cap, with simulated gains")
    .description(
      "Recommend effective_io_concurrency, parallel workers, read_ahead_kb and (PG14+) whether the chunk cap matters, each with its simulated gain against the defaults and the command that shows it.",
    )
    .requiredOption("--device <NAME|FILE>", "built-in profile or profile file")
    .requiredOption(
      "--os <NAME>",
      "linux-M.N (4.20 to 6.18, e.g. linux-6.1), freebsd-11 to freebsd-14, windows",
    )
    .requiredOption("--table-size <SIZE>", "size of the table, e.g. 100GB")
    .option("--workload <KIND>", "seqscan or bitmap (default seqscan)")
    .option("--pg <VERSION>", "14, 17 or 18 (default 17)")
    .option("--cores <N>", "CPU cores (default 8)")
    .option("--ram <SIZE>", "memory (default 16GB)")
    .option("--shared-buffers <SIZE>", "shared_buffers (default 128MB)")
    .option("--cache <cold|warm>", "where the table starts (default cold)")
    .option("--tuples-per-page <N>", "heap tuples per page (default 226)")
    .option("--dataset <NAME>", "bitmap pages: random, random-8, random-32, sequential (default random)")
    .option("--selectivity <FRACTION>", "bitmap: share of pages read (default 5%)")
    .option("--clients <N>", "concurrent identical queries (default 1)")
    .option("--sim-size <SIZE>", "simulate tables larger than this scaled down (default 1GB)")
    .option(
      "--queue <URL>",
      "run the simulations on a job queue served by `scanlab worker` processes instead of local threads: a URL redis://HOST:PORT/DB, or rediss:// for TLS",
    )
    .addOption(jobs())
    .addOption(overBudget())
    .addOption(seed())
    .addOption(json())
    .addHelpText(
      "after",
      examples([
        "scanlab advise --device intel-ssd-320-120gb --os linux-5.4 --table-size 100GB",
        "scanlab advise --device raid0-6x-intel-s3600-100gb --os linux-5.4 --table-size 38GB --workload bitmap --dataset sequential --pg 18",
        "scanlab advise --device my-disk.json --os linux-6.10 --table-size 800GB --clients 6 --json",
      ]),
    )
    .action(async (opts) =>
      done(await (await import("./commands/advise.js")).adviseCommand(ctxFor(!!opts.json), opts)),
    );

  program
    .command("profiles")
    .summary("list the built-in device profiles, or show one")
    .description(
      "List the built-in device profiles with what the device model makes of them, or show one with its sources.",
    )
    .argument("[action]", "list (default) or show")
    .argument("[name]", "profile name or profile file (for show)")
    .option("--out <FILE>", "show: write the profile to FILE, a starting point for a profile of your own")
    .addOption(json())
    .addHelpText(
      "after",
      examples([
        "scanlab profiles",
        "scanlab profiles show intel-ssd-320-120gb",
        "scanlab profiles show hdd-7200rpm --out my-disk.json   # a starting point for your own profile",
      ]),
    )
    .action(async (action: string | undefined, name: string | undefined, opts) =>
      done(
        await (await import("./commands/profiles.js")).profilesCommand(
          ctxFor(!!opts.json),
          action,
          name,
          opts,
        ),
      ),
    );

  const trace = program
    .command("trace")
    .summary("read traces of real scans (strace pread64 logs, blkparse output)")
    .description("Read traces of real scans.")
    .addHelpText(
      "after",
      examples(["scanlab trace import scan.strace", "scanlab trace import scan.blk --json"]),
    );
  trace
    .command("import")
    .summary("per-process runs and request sizes from an strace log or blkparse output")
    .description(
      "Read an `strace -f -e pread64` log of a PostgreSQL scan (preadv too; -y paths, -t timestamps and unfinished/resumed calls understood) or blkparse text output, and report per-process reads, request sizes and runs of consecutive reads.",
    )
    .argument("<file>", "the trace")
    .option("--format <NAME>", "auto, strace or blkparse (default auto)")
    .option(
      "--path <TEXT>",
      "strace -y logs: only reads of files whose path contains TEXT (e.g. the relfilenode)",
    )
    .addOption(json())
    .addHelpText(
      "after",
      examples([
        "strace -f -y -e trace=pread64 -o scan.strace -p $(head -1 $PGDATA/postmaster.pid)",
        "scanlab trace import scan.strace --path base/5/16384",
        "blktrace -d /dev/nvme0n1 -o - | blkparse -i - > scan.blk; scanlab trace import scan.blk --json",
      ]),
    )
    .action(async (file: string, opts) =>
      done(await (await import("./commands/trace.js")).traceImportCommand(ctxFor(!!opts.json), file, opts)),
    );

  return program;
}
