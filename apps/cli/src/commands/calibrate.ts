/**
 * `scanlab calibrate PATH`: measure the device that holds PATH
 * (@scanlab/device-profiles `calibrate`: fio when installed, else Node's own
 * positioned reads) and the kernel's readahead on that file system
 * (@scanlab/readahead's kernel measurement: cold ramps and access patterns
 * against /proc/diskstats, with the `linux` model beside them), then write a
 * device profile that `--device FILE` accepts everywhere. The readahead
 * findings (read_ahead_kb, max_sectors_kb, kernel line) are printed as the
 * flags to pass to `simulate`, and recorded in the profile's note.
 */
import { existsSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { mibPerSFromBytesPerSecond, THROUGHPUT_UNIT } from "@scanlab/core";
import { type FlashProfile, modelAtPoints } from "@scanlab/device-profiles";
import { calibrate, readDeviceProfileFile, writeDeviceProfileFile } from "@scanlab/device-profiles/node";
import { measureAdviceCall } from "@scanlab/file-scan";
import { type KernelMeasurement, measureKernelReadahead } from "@scanlab/readahead/node";
import type { Ctx } from "../context.js";
import { progressOn } from "../context.js";
import { CliError, EXIT, isUserError } from "../errors.js";
import { jsonForm, printJson } from "../json-output.js";
import { parseChoice, parseIntFlag } from "../options.js";
import { fixed, gapPct, grouped } from "../output/format.js";
import { renderTable } from "../output/table.js";
import { checkOutputFile } from "../output-location.js";
import { linuxLine } from "./scan.js";
import { parseSeed } from "./scenario-input.js";

/** Bytes as KiB with thousands separators. */
function kib(bytes: number): string {
  return `${grouped(bytes / 1024)} KiB`;
}

/** Options of `calibrate`. */
export interface CalibrateFlags {
  out?: string;
  method?: string;
  phaseMs?: string;
  name?: string;
  readahead?: boolean;
  readaheadMib?: string;
  seed?: string;
  json?: boolean;
}

/** Runs `calibrate`. */
export async function calibrateCommand(ctx: Ctx, path: string, flags: CalibrateFlags): Promise<number> {
  const method =
    flags.method === undefined
      ? "auto"
      : parseChoice(flags.method, "method", ["auto", "fio", "node"] as const);
  const phaseMs =
    flags.phaseMs === undefined ? undefined : parseIntFlag(flags.phaseMs, "phase-ms", 100, 600_000);
  const fileMiB =
    flags.readaheadMib === undefined ? 256 : parseIntFlag(flags.readaheadMib, "readahead-mib", 16, 65536);
  const seed = parseSeed(flags.seed);
  if (flags.name !== undefined && !/^[a-z0-9][a-z0-9._-]*$/.test(flags.name)) {
    throw new CliError(
      "CLI_BAD_NAME",
      `--name "${flags.name}" is not a profile name: use lower-case letters, digits, '.', '_' and '-'.`,
    );
  }
  const out = flags.out === undefined ? null : resolve(flags.out);
  if (out !== null) {
    // The profile is written over --out: never over the file being measured (a link to it included).
    // Checked first, so the measured file is never opened for writing, not even by the probe below.
    if (existsSync(out) && existsSync(path)) {
      const [o, p] = [statSync(out), statSync(path)];
      if (o.dev === p.dev && o.ino === p.ino) {
        throw new CliError(
          "CLI_OUT_IS_INPUT",
          `--out ${flags.out} is the file being measured (${path}): writing the profile there would replace its data, so give another file name such as my-disk.json.`,
        );
      }
    }
    // Found out now, not after minutes of measuring (output-location.ts).
    checkOutputFile(flags.out!, "--out");
  }
  const log = (line: string) => {
    if (progressOn(ctx)) ctx.err(ctx.c.dim(line));
  };
  log(
    `calibrate: measuring reads of ${path} (${method === "auto" ? "fio if installed, else Node" : method}) ...`,
  );
  // SIGINT and SIGTERM stop the measurement at its next step: fio is stopped with it, the readahead test
  // file beside PATH is removed, and what was finished is printed (interrupt.ts).
  ctx.interrupt.catch();
  const { signal } = ctx.interrupt;
  let profile: FlashProfile;
  try {
    profile = await calibrate(path, {
      method,
      signal,
      ...(phaseMs === undefined ? {} : { phaseMs }),
      ...(flags.name === undefined ? {} : { name: flags.name }),
      ...(seed === undefined ? {} : { seed }),
    });
  } catch (e) {
    if (!ctx.interrupt.stopped) throw e;
    if (ctx.json)
      printJson(ctx, "calibrate", {
        profile: null,
        out: null,
        modelVsMeasured: [],
        cpu: null,
        kernelReadahead: null,
        kernelReadaheadSkipped: "interrupted before the device measurement finished",
        simulateFlags: null,
        interrupted: true,
      });
    else ctx.out(ctx.c.yellow("Interrupted before the device measurement finished: nothing was written."));
    return ctx.interrupt.exitCode;
  }

  let kernel: KernelMeasurement | null = null;
  let kernelSkipped: string | null = null;
  if (flags.readahead === false) {
    kernelSkipped = "skipped (--no-readahead)";
  } else {
    log(`calibrate: measuring the kernel's readahead with a ${fileMiB} MiB test file beside ${path} ...`);
    try {
      kernel = await measureKernelReadahead({ dir: dirname(resolve(path)), fileMiB, log, signal });
    } catch (e) {
      if (ctx.interrupt.stopped) kernelSkipped = "interrupted before it finished";
      else if (!isUserError(e)) throw e;
      else kernelSkipped = `not measured: ${e.message}`;
    }
  }
  // What advising an absent block costs a reader joins the CPU costs (file-scan's measureAdviceCall: it
  // needs the FFI binding file-scan has). Where advice cannot be given here, the simulator's default stays.
  let adviceSkipped: string | null = null;
  if (profile.cpu !== undefined && !ctx.interrupt.stopped) {
    log(`calibrate: timing posix_fadvise(WILLNEED) on blocks of ${path} ...`);
    const advice = await measureAdviceCall(path, undefined, undefined, signal);
    if (advice.ok)
      profile = {
        ...profile,
        cpu: {
          ...profile.cpu,
          fadviseUs: advice.fadviseUs,
          measuredWith: `${profile.cpu.measuredWith}; ${advice.measuredWith}`,
        },
      };
    else adviceSkipped = advice.reason;
  }
  const interrupted = ctx.interrupt.stopped;
  const written: FlashProfile = kernel
    ? {
        ...profile,
        note: `${profile.note} Kernel readahead measured by scanlab calibrate on ${kernel.measuredAt}: Linux ${kernel.machine.kernelRelease}, ${kernel.device.name} ${kernel.machine.fsType}, read_ahead_kb ${kernel.machine.readAheadKb}, max_sectors_kb ${kernel.machine.maxSectorsKb}.`.trim(),
      }
    : profile;
  if (out !== null) {
    writeDeviceProfileFile(out, written);
    readDeviceProfileFile(out); // what --device FILE will do: fail here, not later
  }
  const simulateFlags = kernel
    ? `--device ${flags.out ?? "<profile.json>"} --os ${linuxLine(kernel.machine.kernelRelease)} --read-ahead-kb ${kernel.machine.readAheadKb} --max-sectors-kb ${kernel.machine.maxSectorsKb}`
    : `--device ${flags.out ?? "<profile.json>"}`;

  const comparison = modelAtPoints(written).map((r) => ({
    pattern: r.point.pattern,
    blockBytes: r.point.blockBytes,
    queueDepth: r.point.queueDepth,
    measuredIops: r.point.iops,
    modelIops: r.modelIops,
    ratio: r.ratio,
  }));
  if (ctx.json) {
    printJson(ctx, "calibrate", {
      profile: written,
      out,
      modelVsMeasured: comparison,
      cpu: written.cpu ?? null,
      kernelReadahead: kernel === null ? null : jsonForm(kernel),
      kernelReadaheadSkipped: kernelSkipped,
      simulateFlags,
      interrupted,
    });
    return interrupted ? ctx.interrupt.exitCode : EXIT.ok;
  }
  const { c } = ctx;
  ctx.out(c.bold(`Device profile ${written.name}`) + c.dim(` (${written.measuredWith ?? written.basis})`));
  ctx.out(
    renderTable(
      ctx,
      // The profile's largest I/O is the device's max_sectors_kb when sysfs shows it, else the built-ins' 512 KiB
      // (assumed; the note says which). What the device was seen to do is printed under the readahead table.
      ["QD1 read latency", "sequential read", "random read IOPS", "at queue depth", "profile's largest I/O"],
      [
        [
          `${fixed(written.readLatencyQd1Us, 0)} us`,
          `${fixed(mibPerSFromBytesPerSecond(written.sequentialReadBytesPerSecond), 0)} ${THROUGHPUT_UNIT}`,
          grouped(written.randomReadIops),
          String(written.randomReadQueueDepth),
          `${(written.maxIoBytes / 1024).toFixed(0)} KiB${written.note.includes("assumed, the built-ins' figure") ? " (assumed)" : " (max_sectors_kb)"}`,
        ],
      ],
      Array(5).fill("right"),
    ),
  );
  const points = written.measurements ?? [];
  if (points.length > 0) {
    ctx.out(
      renderTable(
        ctx,
        [
          "pattern",
          "read size",
          "queue depth",
          "IOPS",
          THROUGHPUT_UNIT,
          "mean latency",
          "model IOPS",
          "model/measured",
        ],
        points.map((m, i) => [
          m.pattern,
          `${grouped(m.blockBytes / 1024)} KiB`,
          String(m.queueDepth),
          grouped(m.iops),
          fixed(mibPerSFromBytesPerSecond(m.bytesPerSecond), 0),
          `${fixed(m.meanLatencyUs, 0)} us`,
          grouped(comparison[i]!.modelIops),
          fixed(comparison[i]!.ratio, 2),
        ]),
        ["left", ...Array(7).fill("right")],
      ),
    );
    const q = written.queueModel;
    if (q !== undefined) {
      ctx.out(
        `  model (fitted, queue-fit.ts): ${q.units} units busy ${fixed(q.unitBusyUs, 1)} us per read, ${fixed(q.fixedLatencyUs, 1)} us fixed delay, ` +
          `data path ${fixed(q.commandUs, 1)} us per read + ${fixed(mibPerSFromBytesPerSecond(q.transferBytesPerSecond), 0)} ${THROUGHPUT_UNIT}, ${grouped(q.stripeBytes / 1024)} KiB pages`,
      );
      const ra = written.internalReadAhead;
      ctx.out(
        ra === undefined || ra === false
          ? "  no read-ahead for sequential streams: the points are better told without one"
          : `  read-ahead for sequential streams (fitted): after ${ra.triggerSequentialReads} contiguous reads, ${grouped(ra.bufferBytes / 1024)} KiB kept ahead, a hit ${fixed(ra.hitLatencyUs, 1)} us`,
      );
    }
  }
  ctx.out("");
  ctx.out(c.bold("CPU cost of a read from the page cache"));
  if (written.cpu === undefined) ctx.out("  not measured");
  else {
    const cpu = written.cpu;
    ctx.out(
      `  readSyscallUs ${fixed(cpu.readSyscallUs, 2)} us per read + copyBytesPerUs ${grouped(cpu.copyBytesPerUs)} bytes/us: an 8 kB read ${fixed(cpu.readSyscallUs + 8192 / cpu.copyBytesPerUs, 2)} us`,
    );
    for (const p of cpu.points ?? [])
      ctx.out(`  measured: ${grouped(p.blockBytes / 1024)} KiB in ${fixed(p.usPerRead, 2)} us`);
    ctx.out(
      cpu.fillUsPerPage === undefined
        ? "  fillUsPerPage not measured: a cold read costs the same CPU as a cached one in simulations"
        : `  fillUsPerPage ${fixed(cpu.fillUsPerPage, 2)} us per 4 KiB page a cold read brings into the page cache: an 8 kB block read cold costs ${fixed(2 * cpu.fillUsPerPage, 2)} us more`,
    );
    ctx.out(
      cpu.fadviseUs === undefined
        ? `  fadviseUs not measured (${adviceSkipped ?? "interrupted"}): simulations use the default per advice call`
        : `  fadviseUs ${fixed(cpu.fadviseUs, 2)} us of system time per 8 kB block advised with posix_fadvise(WILLNEED) and read when absent, beyond a cached one`,
    );
    ctx.out(c.dim(`  ${cpu.measuredWith}`));
  }
  ctx.out("");
  ctx.out(c.bold("Kernel readahead"));
  if (kernel === null) {
    ctx.out(`  ${kernelSkipped}`);
  } else {
    const m = kernel.machine;
    ctx.out(
      `  Linux ${m.kernelRelease} (${m.version}), ${kernel.device.name} ${m.fsType}: read_ahead_kb ${m.readAheadKb}, max_sectors_kb ${m.maxSectorsKb}, large folios ${m.largeFolios ? "yes" : "no"}`,
    );
    ctx.out(
      renderTable(
        ctx,
        ["pattern", "kernel requests", "kernel avg KiB", "model avg KiB", "gap", "other programs"],
        kernel.patterns.map((p) => [
          p.name,
          grouped(p.kernel.requests),
          fixed(p.kernel.avgKiB, 1),
          fixed(p.model.avgKiB, 1),
          p.kernel.disturbed ? c.yellow(`${gapPct(p.gap)}?`) : gapPct(p.gap),
          p.kernel.disturbed
            ? c.yellow(
                `disturbed: ${kib(p.kernel.backgroundBytes)}, ${grouped(p.kernel.foreignRequestsMin ?? 0)}-${grouped(p.kernel.foreignRequestsMax ?? 0)} requests`,
              )
            : p.kernel.backgroundBytes > 0
              ? `${kib(p.kernel.backgroundBytes)}, within 2%`
              : "none",
        ]),
      ),
    );
    const disturbed = kernel.patterns.filter((p) => p.kernel.disturbed).map((p) => p.name);
    if (disturbed.length > 0) {
      ctx.out(
        c.yellow(
          `  disturbed (${disturbed.join(", ")}): other programs read the device during every attempt, so these rows' request counts and gaps are not to be trusted; run calibrate again on a quieter machine.`,
        ),
      );
    }
    const big = kernel.largestRequest;
    ctx.out(
      big === null || big === undefined
        ? "  largest request seen: unknown (no undisturbed run)"
        : `  largest request seen: at least ${grouped(big.atLeastBytes / 1024)} KiB (${big.pattern}), at most max_sectors_kb ${grouped(big.ceilingBytes / 1024)} KiB; an estimate from /proc/diskstats, which counts requests and sectors: the largest request is at least the run's average (sectors x 512 / its own requests)`,
    );
    for (const r of kernel.ramps) {
      ctx.out(
        `  cold ramp from block ${r.startBlock}: model and kernel ${r.identical ? c.green("identical") : c.yellow("differ")}`,
      );
    }
  }
  ctx.out("");
  ctx.out(out === null ? "Not saved: add --out FILE to write the profile." : `Profile written to ${out}.`);
  ctx.out(`Simulate this machine with: scanlab simulate ${simulateFlags} ...`);
  if (interrupted) ctx.out(c.yellow("Interrupted: the kernel readahead was not measured."));
  return interrupted ? ctx.interrupt.exitCode : EXIT.ok;
}
