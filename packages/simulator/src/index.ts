/** @packageDocumentation The scanlab discrete-event simulator: parallel scans, shared buffers, OS readahead and devices, with the pgsql-hackers experiments as built-in scenarios. */
export const PACKAGE_NAME = "@scanlab/simulator";
