/** @packageDocumentation How long an I/O takes: storage device profiles from datasheets, a queueing device model, fio import and calibration. */
export const PACKAGE_NAME = "@scanlab/device-profiles";
