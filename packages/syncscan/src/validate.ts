/**
 * Parameter checks shared by every entry point. Each failure is a
 * {@link SyncScanError} with one sentence naming the parameter and its value.
 * Internal: not exported from the package.
 */
import { MAX_BLOCK_NUMBER, MAX_SYNC_SCAN_NELEM } from "./constants.js";
import { SyncScanError } from "./errors.js";

/** Largest integer that fits an Int32 header word (report interval bound). */
const INT32_MAX = 0x7fffffff;

export function checkNelem(nelem: number): number {
  if (!Number.isInteger(nelem) || nelem < 2 || nelem > MAX_SYNC_SCAN_NELEM) {
    throw new SyncScanError(
      "SYNCSCAN_BAD_NELEM",
      `nelem must be an integer from 2 to ${MAX_SYNC_SCAN_NELEM} (the LRU list needs more than one slot), got ${String(nelem)}.`,
    );
  }
  return nelem;
}

export function checkReportInterval(blocks: number): number {
  if (!Number.isInteger(blocks) || blocks < 1 || blocks > INT32_MAX) {
    throw new SyncScanError(
      "SYNCSCAN_BAD_REPORT_INTERVAL",
      `reportIntervalBlocks must be a positive integer, got ${String(blocks)}.`,
    );
  }
  return blocks;
}

export function checkNblocks(nblocks: number): number {
  if (!Number.isInteger(nblocks) || nblocks < 0 || nblocks > MAX_BLOCK_NUMBER + 1) {
    throw new SyncScanError(
      "SYNCSCAN_BAD_NBLOCKS",
      `nblocks must be an integer from 0 to ${MAX_BLOCK_NUMBER + 1}, got ${String(nblocks)}.`,
    );
  }
  return nblocks;
}

export function checkBlock(block: number, name = "block"): number {
  if (!Number.isInteger(block) || block < 0 || block > MAX_BLOCK_NUMBER) {
    throw new SyncScanError(
      "SYNCSCAN_BAD_BLOCK",
      `${name} must be a block number from 0 to ${MAX_BLOCK_NUMBER}, got ${String(block)}.`,
    );
  }
  return block;
}

export function checkBlockInTable(block: number, nblocks: number, name = "block"): number {
  checkBlock(block, name);
  if (block >= nblocks) {
    throw new SyncScanError(
      "SYNCSCAN_BAD_BLOCK",
      `${name} ${block} is outside a table of ${nblocks} blocks.`,
    );
  }
  return block;
}

export function checkBlockCount(blocks: number, name = "blocks"): number {
  if (!Number.isSafeInteger(blocks) || blocks < 0) {
    throw new SyncScanError(
      "SYNCSCAN_BAD_BLOCK_COUNT",
      `${name} must be a non-negative integer, got ${String(blocks)}.`,
    );
  }
  return blocks;
}

export function checkKey(key: number): number {
  if (!Number.isSafeInteger(key) || key < 0) {
    throw new SyncScanError(
      "SYNCSCAN_BAD_KEY",
      `A syncscan key must be an integer from 0 to 2^53-1 (see fileIdentityKey / relFileLocatorKey), got ${String(key)}.`,
    );
  }
  return key;
}

export function checkNbuffers(nbuffers: number): number {
  if (!Number.isSafeInteger(nbuffers) || nbuffers < 1) {
    throw new SyncScanError(
      "SYNCSCAN_BAD_NBUFFERS",
      `nbuffers (shared_buffers in blocks) must be a positive integer, got ${String(nbuffers)}.`,
    );
  }
  return nbuffers;
}

export function checkLookahead(blocks: number): number {
  if (!Number.isSafeInteger(blocks) || blocks < 0) {
    throw new SyncScanError(
      "SYNCSCAN_BAD_LOOKAHEAD",
      `lookaheadBlocks must be a non-negative integer, got ${String(blocks)}.`,
    );
  }
  return blocks;
}
