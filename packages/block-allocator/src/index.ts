/**
 * @packageDocumentation Who scans which block next: PostgreSQL's parallel seq
 * scan block allocators (9.6 lock, 11 atomic, 2017 batching, Munro 2020 ramp,
 * 14+ chunked), with a run-level and a per-block API, in-process and
 * SharedArrayBuffer-backed (worker_threads). Browser-safe: no Node built-ins.
 */
export {
  allocateRoundRobin,
  type ChunkLevel,
  type ClaimRecord,
  pg14ChunkPlan,
  type RoundRobinOptions,
  summarizeChunkLevels,
} from "./chunk-plan.js";
export { AllocatorError, type AllocatorErrorCode } from "./errors.js";
export {
  type AttachOptions,
  attachSharedParallelScan,
  type BlockRun,
  createParallelScan,
  createSharedParallelScan,
  type OpsPerformed,
  type ParallelScan,
  type ParallelScanOptions,
  type Participant,
  type ScanHooks,
  type SharedOp,
  type SharedParallelScan,
} from "./parallel-scan.js";
export {
  PG14_MAX_CHUNK_BLOCKS,
  PG14_NCHUNKS,
  PG14_RAMPDOWN_CHUNKS,
  type Pg14Options,
  pg14ChunkSize,
  pg14RampDown,
} from "./pg14-chunks.js";
export {
  type AllocatorPolicy,
  BATCH_2017_BLOCKS_PER_CLAIM,
  checkNblocks,
  INVALID_BLOCK,
  MAX_NBLOCKS,
  MUNRO2020_MAX_CHUNK_BLOCKS,
  MUNRO2020_RAMPDOWN_CHUNKS,
  munroClaimBlocks,
  nextPowerOfTwo,
  type ResolvedPolicy,
  resolvePolicy,
} from "./policy.js";
export { BLOCK_BYTES, blocksFromSize } from "./relation-size.js";
export { SHARED_SCAN_BYTES } from "./shared-scan-state.js";
