/** One read as a trace records it: a call of strace's, or a request blkparse saw. */
export interface TraceRead {
  /** Process id (0 when the trace has none). */
  pid: number;
  /** The file: a path when the trace has one (strace -y), `fd N` without, or the device (`8,0`) for blkparse. */
  file: string;
  /** Byte offset. */
  offset: number;
  /** Bytes transferred. */
  bytes: number;
}
