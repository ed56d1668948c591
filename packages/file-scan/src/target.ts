/**
 * What is being scanned: one file, or a PostgreSQL relation spread over
 * segment files, numbered as one block space.
 *
 * PostgreSQL's storage manager (src/backend/storage/smgr/md.c) keeps a
 * relation's main fork in files named after its relfilenumber: `16384`, then
 * `16384.1`, `16384.2`, ... Each segment holds RELSEG_SIZE blocks (131072
 * blocks of 8 kB = 1 GB, the `--with-segsize=1` default in pg_config.h), and
 * block b lives in segment b div RELSEG_SIZE at byte (b mod RELSEG_SIZE) x
 * BLCKSZ. mdnblocks counts blocks by walking the segments: a full segment
 * means "look at the next one", the first segment that is not full (or does
 * not exist) ends the relation. We walk the same way, so a relation whose size
 * is an exact multiple of 1 GB ends at its last full segment, and stray files
 * after a short segment are ignored, as PostgreSQL ignores them. A segment
 * larger than the segment size is not something PostgreSQL writes; it is
 * reported as an error rather than guessed at (a server built with another
 * `--with-segsize` needs the `segmentBlocks` option).
 *
 * Like PostgreSQL's phs_nblocks (apps/docs/src/reference/parallel-block-allocation.md#shared-scan-state), the size is sampled once,
 * here, before the scan: a file that grows during the scan is scanned up to
 * its old size, one that shrinks produces short reads (verdict.ts).
 *
 * A file whose size is not a whole number of blocks keeps its partial last
 * block: it is read (with a shorter read) and reported as such
 * (`lastBlockBytes`). PostgreSQL never writes such a relation; ordinary files
 * have them all the time.
 *
 * Target kinds are checked here, on the main thread, before any worker
 * starts, so a bad path gives one clear sentence rather than a worker crash.
 */
import { closeSync, constants, existsSync, openSync, type Stats, statSync } from "node:fs";
import { basename, resolve } from "node:path";
import { errorClause, MaxBlockNumber, RELSEG_SIZE } from "@scanlab/core";
import { errnoCode, FileScanError } from "./errors.js";

/** RELSEG_SIZE: blocks per relation segment file, 131072 x 8 kB = 1 GB (pg_config.h, configure --with-segsize=1 default). */
export const RELSEG_BLOCKS: number = RELSEG_SIZE;

/** The largest number of blocks a scan can address: block numbers are uint32 and 0xFFFFFFFF is InvalidBlockNumber (apps/docs/src/reference/parallel-block-allocation.md#shared-scan-state). */
export const MAX_SCAN_BLOCKS: number = MaxBlockNumber + 1;

/** One file of the target (a plain file is a target of one segment). */
export interface Segment {
  /** Absolute path. */
  readonly path: string;
  /** Its size in bytes when the scan started. */
  readonly bytes: number;
  /** First block of the target that lives in this file. */
  readonly firstBlock: number;
  /** Blocks in this file (the last may be partial). */
  readonly blocks: number;
}

/** The resolved target of a scan. */
export interface ScanTarget {
  /** `"file"` for one file, `"relation"` for a PostgreSQL relation's segment files. */
  readonly kind: "file" | "relation";
  /** Absolute path of the file (or first segment) the caller named. */
  readonly path: string;
  /** The files, in block order. */
  readonly segments: readonly Segment[];
  /** Blocks per segment file (only relevant for relations; for a file, its own block count). */
  readonly segmentBlocks: number;
  /** Total size in bytes. */
  readonly bytes: number;
  /** Block size in bytes. */
  readonly blockBytes: number;
  /** Total blocks, counting a partial last block as one (phs_nblocks). */
  readonly nblocks: number;
  /** Bytes in the last block: blockBytes, or fewer when the size is not a multiple of the block size. */
  readonly lastBlockBytes: number;
  /** Device number of the first file, as a bigint (`stat(path, { bigint: true }).dev`). */
  readonly dev: bigint;
  /** Inode number of the first file, as a bigint. */
  readonly ino: bigint;
}

/** How {@link resolveTarget} should read the path. */
export interface ResolveTargetOptions {
  /** Block size in bytes. */
  blockBytes: number;
  /** true: a relation's first segment; false: one file; "auto": a relation when the name is all digits and `<name>.1` exists. */
  relation: boolean | "auto";
  /** Blocks per segment (RELSEG_SIZE) for relations. */
  segmentBlocks: number;
}

function describeKind(st: Stats): string {
  if (st.isBlockDevice()) return "a block device";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isFIFO()) return "a FIFO";
  if (st.isSocket()) return "a socket";
  return "not a regular file";
}

/** stat() a path the user named, turning the usual failures into sentences. */
function statFile(path: string, what: string): Stats {
  let st: Stats;
  try {
    st = statSync(path);
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw new FileScanError("FILESCAN_NOT_FOUND", `${what} ${path} does not exist.`);
    }
    if (code === "EACCES" || code === "EPERM") {
      throw new FileScanError(
        "FILESCAN_PERMISSION_DENIED",
        `${what} ${path} cannot be reached: permission denied on a directory of its path.`,
      );
    }
    if (code === "ELOOP") {
      throw new FileScanError(
        "FILESCAN_NOT_FOUND",
        `${what} ${path} cannot be resolved: too many levels of symbolic links (a symbolic-link loop).`,
      );
    }
    if (code === "ENAMETOOLONG") {
      throw new FileScanError(
        "FILESCAN_NOT_FOUND",
        `${what} path ${path.slice(0, 80)}... is longer than the system allows, so no such file can exist.`,
      );
    }
    throw new FileScanError(
      "FILESCAN_READ_FAILED",
      `${what} ${path} cannot be examined (${errorClause(error)}).`,
    );
  }
  if (st.isDirectory()) {
    throw new FileScanError(
      "FILESCAN_IS_DIRECTORY",
      `${what} ${path} is a directory; give the path of a file (or a relation's first segment).`,
    );
  }
  if (!st.isFile()) {
    throw new FileScanError(
      "FILESCAN_NOT_A_FILE",
      `${what} ${path} is ${describeKind(st)}; only regular files can be scanned.`,
    );
  }
  return st;
}

/** Opens read-only and closes again, so permission problems show up before any worker starts. */
function checkReadable(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY);
  } catch (error) {
    const code = errnoCode(error);
    if (code === "EACCES" || code === "EPERM") {
      throw new FileScanError(
        "FILESCAN_PERMISSION_DENIED",
        `${path} cannot be opened for reading: permission denied.`,
      );
    }
    if (code === "ENOENT") throw new FileScanError("FILESCAN_NOT_FOUND", `${path} does not exist.`);
    throw new FileScanError(
      "FILESCAN_READ_FAILED",
      `${path} cannot be opened for reading (${errorClause(error)}).`,
    );
  }
  closeSync(fd);
}

/** True when `path` looks like a relation's first segment with more segments next to it. */
function looksLikeRelation(path: string): boolean {
  return /^\d+$/.test(basename(path)) && existsSync(`${path}.1`);
}

/**
 * Resolves what to scan: one file, or a relation's segment files walked the
 * way md.c's mdnblocks does.
 *
 * @throws {@link FileScanError} for a missing path, a directory, a non-regular
 *   file, an unreadable file, an empty target, a segment larger than the
 *   segment size, a later segment named instead of the first, or a target of
 *   more than 2^32 - 1 blocks.
 */
export function resolveTarget(target: string, options: ResolveTargetOptions): ScanTarget {
  const path = resolve(target);
  const { blockBytes, segmentBlocks } = options;
  const relation = options.relation === "auto" ? looksLikeRelation(path) : options.relation;
  if (relation && /^\d+\.\d+$/.test(basename(path))) {
    throw new FileScanError(
      "FILESCAN_BAD_SEGMENT",
      `${path} is a later segment of a relation; give the path of its first segment (${path.replace(/\.\d+$/, "")}).`,
    );
  }
  const first = statFile(path, relation ? "relation segment" : "file");
  checkReadable(path);
  const ids = statSync(path, { bigint: true });

  const segments: Segment[] = [];
  const segmentBytes = segmentBlocks * blockBytes;
  let firstBlock = 0;
  let bytes = 0;
  if (!relation) {
    const blocks = Math.ceil(first.size / blockBytes);
    segments.push({ path, bytes: first.size, firstBlock: 0, blocks });
    bytes = first.size;
    firstBlock = blocks;
  } else {
    for (let i = 0; ; i++) {
      const segPath = i === 0 ? path : `${path}.${i}`;
      let st: Stats;
      if (i === 0) st = first;
      else {
        if (!existsSync(segPath)) break; // the previous segment was full and is the last one
        st = statFile(segPath, "relation segment");
        checkReadable(segPath);
      }
      if (st.size > segmentBytes) {
        throw new FileScanError(
          "FILESCAN_BAD_SEGMENT",
          `relation segment ${segPath} holds ${st.size} bytes, more than the segment size of ${segmentBytes} bytes (${segmentBlocks} blocks); pass segmentBlocks if the server was built with another --with-segsize.`,
        );
      }
      const blocks = Math.ceil(st.size / blockBytes);
      if (blocks > 0 || i === 0) segments.push({ path: segPath, bytes: st.size, firstBlock, blocks });
      firstBlock += blocks;
      bytes += st.size;
      if (st.size < segmentBytes) break; // md.c: the first segment that is not full ends the relation
    }
  }

  if (bytes === 0) {
    throw new FileScanError("FILESCAN_EMPTY", `${path} is empty (0 bytes): there is nothing to scan.`);
  }
  const nblocks = firstBlock;
  if (nblocks > MAX_SCAN_BLOCKS) {
    throw new FileScanError(
      "FILESCAN_TOO_LARGE",
      `${path} holds ${nblocks} blocks of ${blockBytes} bytes, more than the 4294967295 a block number can address; use a larger block size.`,
    );
  }
  const tail = bytes - (nblocks - 1) * blockBytes;
  // In a relation only the last segment can end in a partial block (all earlier ones are full).
  return {
    kind: relation ? "relation" : "file",
    path,
    segments,
    segmentBlocks: relation ? segmentBlocks : nblocks,
    bytes,
    blockBytes,
    nblocks,
    lastBlockBytes: tail,
    dev: ids.dev,
    ino: ids.ino,
  };
}
