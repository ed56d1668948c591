/**
 * `@scanlab/readahead/harness`: a small, self-contained scan simulator for
 * testing the readahead models, and the prediction tables it reproduces
 * (apps/docs/src/reference/readahead-predictions.md#simulation-assumptions).
 *
 * Problem: the models answer one read at a time; judging them needs whole
 * scans (N processes, a shared block counter, CPU per block, a device), and a
 * scan loop on the main entry would look like a second simulator beside
 * `@scanlab/simulator`.
 *
 * Design choice: the harness is test-grade (a fixed device, one seeded PRNG
 * per process for CPU jitter, no shared buffers) and lives on its own subpath,
 * so the main entry holds only the models and the page cache. It is
 * browser-safe like the main entry.
 *
 * @packageDocumentation
 */
export {
  KNOWN_DIVERGENCES,
  type KnownDivergence,
  PREDICTION_TABLES,
  type PredictionRow,
  reproducePredictionTables,
} from "./prediction-tables.js";
export {
  type HarnessDevice,
  type HarnessIo,
  type ScanHarnessOptions,
  type ScanPattern,
  type ScanResult,
  simulateScan,
} from "./scan-harness.js";
