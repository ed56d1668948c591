/** @packageDocumentation Who scans which block next: PostgreSQL's parallel seq scan block allocators (9.6 lock, 11 atomic, batch, Munro 2020, 14+ chunked), in-process and SharedArrayBuffer-backed. */
export const PACKAGE_NAME = "@scanlab/block-allocator";
