/**
 * The device a probed server's cells are predicted on: the flash queue
 * fitted to what `device-probe.ts` measured through a table's file, with the
 * CPU costs of the user's profile. No I/O here: the points are data.
 */
import { type FlashProfile, profileFromMeasurements, type ReadMeasurement } from "@scanlab/device-profiles";

/** What the lab measured of the device through one table's heap file. */
export interface TableDeviceProbe {
  /** The server whose cells are predicted on it. */
  readonly pg: number;
  /** The table read. */
  readonly table: string;
  /** Its heap file. */
  readonly file: string;
  /** How it was measured (fio version, engine, duration, time). */
  readonly measuredWith: string;
  /** The measured points. */
  readonly points: readonly ReadMeasurement[];
  /** The profile's largest I/O (max_sectors_kb), when it was read. */
  readonly maxIoBytes?: number;
}

/**
 * The device a cell of the probe's server is predicted on: the flash queue
 * fitted to the probe's points, with the CPU costs of `device` (a profile
 * object) kept. A built-in profile's name keeps nothing: its CPU figures are
 * the simulator's defaults either way.
 */
export function probedDevice(
  device: string | Record<string, unknown>,
  probe: TableDeviceProbe,
): Record<string, unknown> {
  const fitted: FlashProfile = profileFromMeasurements(probe.points, {
    name: `lab-probe-pg${probe.pg}`,
    title: `Device as the lab's table ${probe.table} saw it (fio)`,
    measuredWith: probe.measuredWith,
    ...(probe.maxIoBytes === undefined
      ? {}
      : { maxIoBytes: probe.maxIoBytes, maxIoSource: "max_sectors_kb of the device, read by the probe" }),
  });
  const cpu = typeof device === "string" ? undefined : device.cpu;
  return { ...fitted, ...(cpu === undefined ? {} : { cpu }) };
}
