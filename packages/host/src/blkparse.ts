/**
 * Reading blkparse's default text output (`blktrace -d /dev/X -o - | blkparse -i -`):
 *
 *     8,0    3        1     0.000000000  4185  Q  RA 2048 + 256 [postgres]
 *     dev    cpu  seq       time         pid  act rwbs sector + sectors [process]
 *
 * Sectors are 512 bytes. Per process, the reads it *queued* (`Q`, attributed
 * to the process that submitted them) are its requests; the device's own
 * view is the requests *issued* to the driver (`D`), after the block layer
 * merged neighbours, attributed to whichever process happened to issue them.
 * Writes, other actions, blkparse's per-CPU summary and message lines are
 * ignored.
 */
import type { TraceRead } from "./trace-read.js";

/** What one blkparse output gave. */
export interface BlkparseParse {
  /** Reads queued (Q), per submitting process. */
  queued: TraceRead[];
  /** Reads issued to the device (D). */
  issued: TraceRead[];
  /** Process names by pid (from Q events). */
  names: Map<number, string>;
  /** Event lines understood. */
  events: number;
}

const SECTOR_BYTES = 512;
const EVENT =
  /^\s*(\d+),(\d+)\s+(\d+)\s+(\d+)\s+(\d+\.\d+)\s+(\d+)\s+([A-Z]{1,2})\s+([A-Z]+)\s+(\d+)\s+\+\s+(\d+)\s+\[(.*)\]\s*$/;

/** Whether a text looks like blkparse output. */
export function looksLikeBlkparse(text: string): boolean {
  return text.split(/\r?\n/, 200).some((l) => EVENT.test(l));
}

/** Parses blkparse text output. */
export function parseBlkparse(text: string): BlkparseParse {
  const queued: TraceRead[] = [];
  const issued: TraceRead[] = [];
  const names = new Map<number, string>();
  let events = 0;
  for (const line of text.split(/\r?\n/)) {
    const m = EVENT.exec(line);
    if (!m) continue;
    events++;
    const action = m[7]!;
    const rwbs = m[8]!;
    if (!rwbs.includes("R")) continue;
    const pid = Number(m[6]);
    const read: TraceRead = {
      pid,
      file: `${m[1]},${m[2]}`,
      offset: Number(m[9]) * SECTOR_BYTES,
      bytes: Number(m[10]) * SECTOR_BYTES,
    };
    if (read.bytes === 0) continue;
    if (action === "Q") {
      queued.push(read);
      if (!names.has(pid)) names.set(pid, m[11]!);
    } else if (action === "D") {
      issued.push(read);
    }
  }
  return { queued, issued, names, events };
}
