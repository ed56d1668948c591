/**
 * `--allocator` values: PostgreSQL's parallel seq scan block allocators
 * (@scanlab/block-allocator), written as on the command line:
 *
 * - `pg96`: 9.6-10, one block per call under a spinlock (ee7ca559fc);
 * - `pg11`: 11-13, one block per atomic fetch-add (3cda10f41b);
 * - `batch` or `batch:N`: the 2017 batching patch, N blocks per grab (default 10, apps/docs/src/reference/experiments.md#t4-allocator-lock-contention-at-72-processes);
 * - `munro2020` or `munro2020:N`: Thomas Munro's 2020 prototype, ranges up to N blocks (default 64, T1);
 * - `pg14`, `pg14:CAP` or `pg14:none`: 14+, chunks of nblocks/2048 rounded up to a
 *   power of two, capped at CAP blocks (default 8192; `none` = the uncapped v2 patch of T2/T3).
 */
import {
  type AllocatorPolicy,
  BATCH_2017_BLOCKS_PER_CLAIM,
  MUNRO2020_MAX_CHUNK_BLOCKS,
  PG14_MAX_CHUNK_BLOCKS,
} from "@scanlab/block-allocator";
import { CliError } from "./errors.js";
import { parseIntFlag } from "./options.js";

/** The allocator kinds accepted on the command line. */
export const ALLOCATOR_KINDS = ["pg96", "pg11", "batch", "munro2020", "pg14"] as const;

/** Parses `pg96`, `pg11`, `batch[:N]`, `munro2020[:N]`, `pg14[:CAP|none]`. */
export function parseAllocator(raw: string, flag = "allocator"): AllocatorPolicy {
  const [kindRaw, param, extra] = raw.trim().toLowerCase().split(":");
  const kind = kindRaw ?? "";
  const bad = () =>
    new CliError(
      "CLI_UNKNOWN_ALLOCATOR",
      `--${flag} "${raw}" is not known: use pg96, pg11, batch[:N], munro2020[:N] or pg14[:CAP|none].`,
    );
  if (extra !== undefined) throw bad();
  switch (kind) {
    case "pg96":
    case "pg11":
      if (param !== undefined) throw bad();
      return { kind };
    case "batch":
      return {
        kind,
        blocksPerClaim:
          param === undefined ? BATCH_2017_BLOCKS_PER_CLAIM : parseIntFlag(param, flag, 1, 1 << 30),
      };
    case "munro2020":
      return param === undefined ? { kind } : { kind, maxChunkBlocks: parseIntFlag(param, flag, 1, 1 << 30) };
    case "pg14":
      if (param === undefined) return { kind };
      return { kind, maxChunkBlocks: param === "none" ? null : parseIntFlag(param, flag, 1, 1 << 30) };
    default:
      throw bad();
  }
}

/** Writes a policy back the way `--allocator` takes it. */
export function formatAllocator(p: AllocatorPolicy): string {
  switch (p.kind) {
    case "batch":
      return `batch:${p.blocksPerClaim}`;
    case "munro2020":
      return p.maxChunkBlocks === undefined || p.maxChunkBlocks === MUNRO2020_MAX_CHUNK_BLOCKS
        ? "munro2020"
        : `munro2020:${p.maxChunkBlocks}`;
    case "pg14":
      if (p.maxChunkBlocks === undefined || p.maxChunkBlocks === PG14_MAX_CHUNK_BLOCKS) return "pg14";
      return `pg14:${p.maxChunkBlocks === null ? "none" : p.maxChunkBlocks}`;
    default:
      return p.kind;
  }
}
