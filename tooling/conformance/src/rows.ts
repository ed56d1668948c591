/** The rows of the conformance matrix, in report order. */

import { bitmapPrefetch } from "./bitmap-prefetch.js";
import { bulkreadRing } from "./bulkread-ring.js";
import { ioMethod } from "./io-method.js";
import type { CaseBase, Mechanism } from "./mechanism.js";
import { parallelClaims } from "./parallel-claims.js";
import { readStreams } from "./read-streams.js";
import { syncscanStarts } from "./syncscan-starts.js";

// biome-ignore lint/suspicious/noExplicitAny: rows differ in case and mutation types
export const ROWS: readonly Mechanism<CaseBase, any>[] = [
  parallelClaims,
  syncscanStarts,
  bitmapPrefetch,
  readStreams,
  ioMethod,
  bulkreadRing,
];
