/**
 * DOC: the device as the lab's tables see it.
 *
 * Problem. A profile from `scanlab calibrate` measures the device through one
 * file, at one moment. On a virtual disk the same device can serve two files
 * at rates apart by several times: the host keeps recently written data in
 * its own page cache and reads ahead of sequential streams, out of the
 * guest's sight and control. The lab's tables were written minutes before
 * their cells run, and calibrate's file may be hours old; a random 8 kB read
 * of one and of the other need not cost the same.
 *
 * Insight. The lab can measure the device through the very files it
 * predicts: once the tables are built, fio reads one of them, read-only and
 * with O_DIRECT (the guest's cache is bypassed, the host's is whatever it
 * is), with calibrate's own job list: random 8 kB reads at queue depths 1 to
 * 64 and sequential reads of 8 kB to 4 MiB. The flash queue is fitted to
 * those points (`queue-fit.ts` of @scanlab/device-profiles), exactly as
 * calibrate fits its own, and the cells of that server are predicted on it.
 *
 * Choices.
 * - The file probed is the first bitmap table's heap: most cells read a
 *   bitmap table, and its pages are as recent as every other table's.
 * - Short jobs of 500 ms, in three rounds with the median kept per point
 *   (about 30 s): a probe that runs long sees a device that has moved on by
 *   the time the cells run, and a single round can catch one job in a
 *   stall of the host's. One sequential 8 kB point measured at a third of
 *   its neighbours' rate then shapes the whole fitted queue, and every cell
 *   that reads in 8 kB steps is predicted twice as slow.
 * - Only the device comes from the probe. The CPU costs, kernel figures and
 *   anything else of the user's profile stay as they are.
 * - The points are kept in the report, and a replay fits them again with its
 *   own model, as it predicts the cells again.
 * - Without fio there is no probe, and the cells are predicted on the
 *   user's profile as it is; the report says so.
 *
 * Interface: {@link probeTableDevice} measures; `probedDevice`
 * (probed-device.ts) builds the device a cell is predicted on.
 */
import { calibrate, fioVersion } from "@scanlab/device-profiles/node";
import type { TableDeviceProbe } from "./probed-device.js";

/** Milliseconds of each fio job of the probe (our choice: see the file header). */
export const PROBE_PHASE_MS = 500;

/** Rounds of the probe's job list; each point is the median of its rounds (see the file header). */
export const PROBE_ROUNDS = 3;

/**
 * Measures the device through `file` with fio, read-only. Null when fio is
 * not installed.
 */
export async function probeTableDevice(
  pg: number,
  table: string,
  file: string,
  signal?: AbortSignal,
): Promise<TableDeviceProbe | null> {
  if (fioVersion() === undefined) return null;
  const p = await calibrate(file, {
    method: "fio",
    cpu: false,
    rounds: PROBE_ROUNDS,
    phaseMs: PROBE_PHASE_MS,
    name: `lab-probe-pg${pg}`,
    ...(signal === undefined ? {} : { signal }),
  });
  return {
    pg,
    table,
    file,
    measuredWith: p.measuredWith ?? `fio on ${file}`,
    points: p.measurements ?? [],
    maxIoBytes: p.maxIoBytes,
  };
}
