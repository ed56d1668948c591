/**
 * DOC: importing `fio --output-format=json` results.
 *
 * fio writes one entry per job in `jobs` (per group with `group_reporting`,
 * per clone without it). For each entry that read something this takes:
 *
 * - the pattern from `rw` (`read` = sequential, `randread` = random; fio's
 *   default is `read`), the read size from `bs` (first value of a
 *   `read,write` pair; fio's default 4k; read as fio reads it: with its
 *   default `kb_base=1024`, k/m/g/t are powers of 1024 and the IEC forms
 *   KiB/MiB/... powers of 1000, the other way round with `kb_base=1000`; fio
 *   3.33 reads `bs=4KiB` as 4000 bytes. fio applies `kb_base` only to options
 *   parsed after it; the JSON does not keep that order, so a `kb_base` in the
 *   job's or the global options is taken to come before `bs`), and the queue
 *   depth from `iodepth` (default 1) times `numjobs` (default 1). Options come from the job's
 *   `job options`, falling back to the file's `global options`. Synchronous
 *   engines (`sync`, `psync`, `vsync`, `pvsync`, `pvsync2`) keep one read in
 *   flight per job whatever `iodepth` says;
 * - `read.iops`, `read.bw_bytes`, and `read.lat_ns.mean` (submission to
 *   completion; `clat_ns` when `lat_ns` is absent) in microseconds.
 *
 * Clones of one job reported separately (numjobs without group_reporting) are
 * added up into one point. Jobs that wrote, or read nothing, are skipped. The
 * points become a profile with `profileFromMeasurements` (`measured-profile.ts`).
 */
import { parseFioSize } from "@scanlab/core";
import { DeviceProfileError } from "./errors.js";
import { type MeasuredProfileOptions, profileFromMeasurements } from "./measured-profile.js";
import type { FlashProfile, ReadMeasurement } from "./profile-schema.js";

const SYNC_ENGINES = new Set(["sync", "psync", "vsync", "pvsync", "pvsync2"]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Reads the read points out of fio JSON output.
 *
 * @param json the parsed JSON (`JSON.parse` of fio's stdout)
 * @param source the file it came from, named in errors
 * @throws DeviceProfileError (code FIO_JSON_INVALID) naming the file when it has no usable read job
 *
 * @example
 * ```ts
 * import { fioReadMeasurements } from "@scanlab/device-profiles";
 * const points = fioReadMeasurements({
 *   jobs: [{ jobname: "r", "job options": { rw: "randread", bs: "4k", iodepth: "1" },
 *            read: { iops: 18000, bw_bytes: 73728000, total_ios: 54000, lat_ns: { mean: 54700 } } }],
 * }, "example.json");
 * console.log(points[0]); // { pattern: "random", blockBytes: 4096, queueDepth: 1, iops: 18000, ... }
 * ```
 */
export function fioReadMeasurements(json: unknown, source = "(no file)"): ReadMeasurement[] {
  const fail = (what: string): never => {
    throw new DeviceProfileError("FIO_JSON_INVALID", `fio output ${source}: ${what}.`, { source });
  };
  if (!isRecord(json) || !Array.isArray(json.jobs))
    fail('it has no "jobs" array (was it written with --output-format=json?)');
  const globals = isRecord((json as Record<string, unknown>)["global options"])
    ? ((json as Record<string, unknown>)["global options"] as Record<string, unknown>)
    : {};
  const groups = new Map<string, { m: ReadMeasurement; ios: number; clones: number; depthEach: number }>();
  for (const job of (json as { jobs: unknown[] }).jobs) {
    if (!isRecord(job)) continue;
    const opts = isRecord(job["job options"]) ? (job["job options"] as Record<string, unknown>) : {};
    const option = (key: string): string | undefined => {
      const v = opts[key] ?? globals[key];
      return v === undefined ? undefined : String(v);
    };
    const rw = option("rw") ?? option("readwrite") ?? "read";
    if (rw !== "read" && rw !== "randread") continue;
    const read = job.read;
    if (!isRecord(read)) continue;
    const iops = Number(read.iops);
    const bw = Number(read.bw_bytes);
    const ios = Number(read.total_ios ?? 1);
    if (!(iops > 0) || !(bw > 0)) continue;
    const lat = isRecord(read.lat_ns) ? read.lat_ns : isRecord(read.clat_ns) ? read.clat_ns : undefined;
    const latencyUs = lat !== undefined ? Number(lat.mean) / 1000 : Number.NaN;
    const blockBytes = parseFioSize(
      (option("bs") ?? option("blocksize") ?? "4k").split(",")[0]!,
      Number(option("kb_base") ?? 1024),
    );
    if (!(blockBytes > 0))
      fail(`job "${String(job.jobname)}" has a block size fio's JSON does not make readable`);
    const engine = option("ioengine") ?? "psync";
    const depthEach = SYNC_ENGINES.has(engine) ? 1 : Math.max(1, Number(option("iodepth") ?? 1));
    const numjobs = Math.max(1, Number(option("numjobs") ?? 1));
    const grouped = (option("group_reporting") ?? "0") !== "0";
    const key = `${String(job.jobname)}\u0000${String(job.groupid)}`;
    const m: ReadMeasurement = {
      pattern: rw === "read" ? "sequential" : "random",
      blockBytes,
      queueDepth: depthEach * (grouped ? numjobs : 1),
      iops,
      bytesPerSecond: bw,
      meanLatencyUs: Number.isFinite(latencyUs) ? latencyUs : 0,
    };
    const previous = groups.get(key);
    if (previous === undefined || grouped) {
      groups.set(key, { m, ios, clones: 1, depthEach });
    } else {
      // A clone of the same job reported on its own: add it up.
      const totalIos = previous.ios + ios;
      groups.set(key, {
        m: {
          ...previous.m,
          queueDepth: previous.m.queueDepth + depthEach,
          iops: previous.m.iops + iops,
          bytesPerSecond: previous.m.bytesPerSecond + bw,
          meanLatencyUs: (previous.m.meanLatencyUs * previous.ios + m.meanLatencyUs * ios) / totalIos,
        },
        ios: totalIos,
        clones: previous.clones + 1,
        depthEach,
      });
    }
  }
  const points = [...groups.values()].map((g) => g.m);
  if (points.length === 0) fail("it holds no sequential or random read results (rw=read or rw=randread)");
  return points;
}

/**
 * Imports fio JSON output (sequential and random reads at several block sizes
 * and queue depths) into a flash profile.
 *
 * @param json the parsed JSON
 * @param options labels; `measuredWith` defaults to "fio <version> (<source>)"
 * @param source the file it came from, named in errors
 *
 * @example
 * ```ts
 * import { importFioJson } from "@scanlab/device-profiles";
 * // fio's parsed --output-format=json output; from a file, importFioJsonFile
 * // of "@scanlab/device-profiles/node" reads it with the guarded reader.
 * declare const json: unknown;
 * const profile = importFioJson(json, { name: "my-disk" }, "fio-result.json");
 * console.log(profile.readLatencyQd1Us, profile.randomReadIops);
 * ```
 */
export function importFioJson(
  json: unknown,
  options: Partial<MeasuredProfileOptions> = {},
  source = "(no file)",
): FlashProfile {
  const points = fioReadMeasurements(json, source);
  const version = isRecord(json) ? String(json["fio version"] ?? "fio") : "fio";
  const globals = isRecord(json) && isRecord(json["global options"]) ? json["global options"] : {};
  const engine = globals.ioengine !== undefined ? ` ioengine=${String(globals.ioengine)}` : "";
  const direct = globals.direct !== undefined ? ` direct=${String(globals.direct)}` : "";
  return profileFromMeasurements(points, {
    ...options,
    measuredWith: options.measuredWith ?? `${version}${engine}${direct} (${source})`,
  });
}
