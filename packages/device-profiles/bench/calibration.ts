/**
 * `npm run bench`, second part: how honest a calibrated profile is, on this
 * machine. It writes a scratch file, runs `calibrate` (fio) on it, then an
 * independent fio run in the same session (another random seed, the second
 * half of the file, its own job list), and prints per point: measured, the
 * profile's model, and their ratio, twice:
 *
 * - the profile's own points: the fitted model should land within 0.90-1.10;
 * - the independent fio figures: within 0.85-1.15, each beside the range of
 *   its rounds and its ratio to calibrate's own measurement of the point, so
 *   that a miss the device's own drift explains is told from the model's.
 *
 * A bench, not a test: it reports the ratios and how many are inside the bars,
 * and never fails on them. Without fio it says so and stops. The scratch file
 * goes to SCANLAB_BENCH_DIR, else beside this package (a real file system;
 * a tmpfs /tmp cannot be read with O_DIRECT).
 */
import { spawnSync } from "node:child_process";
import { randomFillSync } from "node:crypto";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import {
  fioReadMeasurements,
  type ModelComparison,
  modelAtPoints,
  type ReadMeasurement,
} from "../src/index.js";
import { calibrate, fioVersion, medianPoints, SEQUENTIAL_DEEP_QD, SEQUENTIAL_SIZES } from "../src/node.js";

const FILE_BYTES = 1024 * 1024 * 1024;
const ROUNDS = 3;
const PHASE_MS = 1000;

const pointKey = (m: ReadMeasurement) => `${m.pattern} ${m.blockBytes} ${m.queueDepth}`;

/**
 * Prints model against measurement per point. With `rounds` (every round of
 * the measurement) and `earlier` (the same points measured by calibrate),
 * each row also shows how far the device itself moved: the rounds' range, and
 * this median over calibrate's. A model cannot sit closer to a point than the
 * device sits to itself.
 */
function table(
  title: string,
  rows: ModelComparison[],
  low: number,
  high: number,
  rounds?: readonly ReadMeasurement[],
  earlier?: readonly ReadMeasurement[],
): void {
  console.log(`\n${title} (bar ${low.toFixed(2)}-${high.toFixed(2)})`);
  const device = rounds !== undefined && earlier !== undefined;
  console.log(
    `pattern     read size  QD   measured IOPS   model IOPS   model/measured${device ? "   rounds min-max   vs calibrate" : ""}`,
  );
  let inside = 0;
  let moved = 0;
  for (const r of rows) {
    const ok = r.ratio >= low && r.ratio <= high;
    if (ok) inside++;
    let extra = "";
    if (device) {
      const same = rounds.filter((m) => pointKey(m) === pointKey(r.point)).map((m) => m.iops);
      const before = earlier.find((m) => pointKey(m) === pointKey(r.point));
      const drift = before === undefined ? Number.NaN : r.point.iops / before.iops;
      if (!(drift >= low && drift <= high)) moved++;
      const range = `${Math.round(Math.min(...same)).toLocaleString("en")}-${Math.round(Math.max(...same)).toLocaleString("en")}`;
      extra = `${range.padStart(17)} ${drift.toFixed(2).padStart(14)}`;
    }
    console.log(
      `${r.point.pattern.padEnd(10)} ${`${r.point.blockBytes / 1024} KiB`.padStart(10)} ${String(r.point.queueDepth).padStart(3)} ` +
        `${Math.round(r.point.iops).toLocaleString("en").padStart(14)} ${Math.round(r.modelIops).toLocaleString("en").padStart(12)} ` +
        `${r.ratio.toFixed(2).padStart(16)}${extra}${ok ? "" : "  outside"}`,
    );
  }
  console.log(`${inside} of ${rows.length} within ${low.toFixed(2)}-${high.toFixed(2)}`);
  if (device) {
    console.log(
      `the device itself: ${rows.length - moved} of ${rows.length} points measured again within ${low.toFixed(2)}-${high.toFixed(2)} of calibrate's own measurement`,
    );
  }
}

const version = fioVersion();
if (version === undefined) {
  console.log("\ncalibration bench: fio is not installed (Debian package fio): skipped.");
} else {
  const dir = mkdtempSync(
    join(process.env.SCANLAB_BENCH_DIR ?? join(import.meta.dirname, ".."), "scanlab-bench-"),
  );
  const file = join(dir, "scratch.data");
  try {
    // Random bytes: a virtual disk cannot serve them from a zero-page shortcut.
    const fd = openSync(file, "w");
    const chunk = Buffer.allocUnsafe(1024 * 1024);
    for (let o = 0; o < FILE_BYTES; o += chunk.length) writeSync(fd, randomFillSync(chunk));
    closeSync(fd);
    spawnSync("sync");
    console.log(`\ncalibration bench: ${version}, scratch file ${file} (${FILE_BYTES / 1024 ** 3} GiB)`);
    const t0 = performance.now();
    const profile = await calibrate(file, { method: "fio", phaseMs: PHASE_MS, rounds: ROUNDS, seed: 1 });
    console.log(`calibrate: ${((performance.now() - t0) / 1000).toFixed(0)} s, ${profile.measuredWith}`);
    const q = profile.queueModel!;
    console.log(
      `fitted model: ${q.units} units x ${q.unitBusyUs.toFixed(1)} us, fixed ${q.fixedLatencyUs.toFixed(1)} us, ` +
        `data path ${q.commandUs.toFixed(1)} us + ${(q.transferBytesPerSecond / 1e6).toFixed(0)} MB/s`,
    );
    if (profile.cpu !== undefined)
      console.log(
        `cpu: readSyscallUs ${profile.cpu.readSyscallUs.toFixed(2)}, copyBytesPerUs ${Math.round(profile.cpu.copyBytesPerUs)}`,
      );

    // The independent run: its own job list, another seed, the second half of the file.
    const engine = /ioengine=(\w+)/.exec(profile.measuredWith ?? "")?.[1] ?? "libaio";
    const direct = /direct=([01])/.exec(profile.measuredWith ?? "")?.[1] ?? "1";
    const jobs: string[] = [];
    for (let r = 1; r <= ROUNDS; r++) {
      for (const qd of [1, 4, 16, 64])
        jobs.push(`--name=rand-qd${qd}-r${r}`, "--rw=randread", "--bs=8k", `--iodepth=${qd}`, "--stonewall");
      for (const b of SEQUENTIAL_SIZES)
        for (const qd of [1, SEQUENTIAL_DEEP_QD])
          jobs.push(
            `--name=seq-${b}-qd${qd}-r${r}`,
            "--rw=read",
            `--bs=${b}`,
            `--iodepth=${qd}`,
            "--stonewall",
          );
    }
    const t1 = performance.now();
    const run = spawnSync(
      "fio",
      [
        "--output-format=json",
        `--filename=${file}`,
        "--readonly",
        `--direct=${direct}`,
        `--ioengine=${engine}`,
        `--offset=${FILE_BYTES / 2}`,
        `--size=${FILE_BYTES / 2}`,
        `--runtime=${PHASE_MS}ms`,
        "--time_based",
        "--group_reporting=1",
        "--randseed=90210",
        ...jobs,
      ],
      { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
    );
    if (run.status !== 0) throw new Error(`independent fio run failed: ${run.stderr.split("\n")[0]}`);
    const independentRounds = fioReadMeasurements(
      JSON.parse(run.stdout.slice(run.stdout.indexOf("{"))),
      "independent fio run",
    );
    const independent: ReadMeasurement[] = medianPoints(independentRounds);
    console.log(
      `independent fio run: ${((performance.now() - t1) / 1000).toFixed(0)} s, ioengine=${engine} direct=${direct}, seed 90210, second half of the file, median of ${ROUNDS}`,
    );
    table("the profile's own points: measured by calibrate vs its model", modelAtPoints(profile), 0.9, 1.1);
    table(
      "independent fio figures vs the profile's model",
      modelAtPoints(profile, independent),
      0.85,
      1.15,
      independentRounds,
      profile.measurements ?? [],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
