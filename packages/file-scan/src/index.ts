/** @packageDocumentation Scan real files in parallel the way PostgreSQL does (worker_threads, shared-memory block allocator), and report what the device did. */
export const PACKAGE_NAME = "@scanlab/file-scan";
