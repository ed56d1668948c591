/** @packageDocumentation Where a new scan of a table should start: PostgreSQL's synchronized-scan location tracker (20-slot LRU, 16-block reports), in-process and SharedArrayBuffer-backed. */
export const PACKAGE_NAME = "@scanlab/syncscan";
