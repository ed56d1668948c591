/**
 * `scanlab trace import FILE`: what a real scan looked like from below. Reads
 * an `strace -f -e pread64` log of a PostgreSQL scan (per process: reads,
 * request sizes, runs of consecutive reads) or blkparse text output (per
 * process: queued read requests; for the device: issued requests after
 * merging), with the shape each process's reads had: one run, block by block
 * (PG 11-13 parallel workers striding, apps/docs/src/reference/experiments.md#t1-freebsd-ufs-striding-and-64-block-chunks), or runs of N blocks
 * (PG14+ chunks).
 */
import { BLCKSZ } from "@scanlab/core";
import { looksLikeBlkparse, parseBlkparse } from "@scanlab/host";
import type { Ctx } from "../context.js";
import { CliError, EXIT } from "../errors.js";
import { readUserFile } from "../input-file.js";
import { printJson } from "../json-output.js";
import { parseChoice } from "../options.js";
import { fixed, grouped } from "../output/format.js";
import { renderTable } from "../output/table.js";
import { type ProcessReads, summariseReads } from "../trace/read-runs.js";
import { looksLikeStrace, parseStraceLog } from "../trace/strace-log.js";

/** BLCKSZ: the runs are described in PostgreSQL blocks. */
const BLOCK_BYTES = BLCKSZ;

/** Options of `trace import`. */
export interface TraceFlags {
  format?: string;
  path?: string;
  json?: boolean;
}

/** The shape of one process's reads in words. */
export function runShape(p: ProcessReads): string {
  if (p.runs === 1) return "one sequential run";
  const blocks = p.meanRunBytes / BLOCK_BYTES;
  if (blocks < 1.5) return "block by block (striding)";
  return `runs of ~${blocks >= 10 ? blocks.toFixed(0) : blocks.toFixed(1)} blocks`;
}

function topSizes(p: ProcessReads): string {
  return Object.entries(p.requestSizes)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(
      ([size, n]) => `${Number(size) % 1024 === 0 ? `${Number(size) / 1024}k` : `${size}B`} x${grouped(n)}`,
    )
    .join(", ");
}

function processTable(ctx: Ctx, procs: ProcessReads[], withName: boolean): string {
  const head = [
    "pid",
    ...(withName ? ["process"] : []),
    "reads",
    "MB",
    "mean request kB",
    "request sizes",
    "runs",
    "mean run kB",
    "longest run kB",
    "shape",
  ];
  return renderTable(
    ctx,
    head,
    procs.map((p) => [
      String(p.pid),
      ...(withName ? [p.name ?? ""] : []),
      grouped(p.reads),
      fixed(p.bytes / 1e6, 1),
      fixed(p.meanRequestBytes / 1024, 1),
      topSizes(p),
      grouped(p.runs),
      fixed(p.meanRunBytes / 1024, 1),
      fixed(p.longestRunBytes / 1024, 0),
      runShape(p),
    ]),
    head.map((h) => (["process", "request sizes", "shape"].includes(h) ? "left" : "right")),
  );
}

/** Runs `trace import`. */
export async function traceImportCommand(ctx: Ctx, file: string, flags: TraceFlags): Promise<number> {
  const format =
    flags.format === undefined
      ? "auto"
      : parseChoice(flags.format, "format", ["auto", "strace", "blkparse"] as const);
  const text = readUserFile(file, "trace");
  const kind =
    format !== "auto"
      ? format
      : looksLikeStrace(text)
        ? "strace"
        : looksLikeBlkparse(text)
          ? "blkparse"
          : null;
  if (kind === null && text.startsWith("\u001f\ufffd")) {
    // gzip's magic bytes 1f 8b (8b is no UTF-8 on its own): a compressed log, such as the test fixtures.
    throw new CliError(
      "CLI_BAD_TRACE",
      `The trace ${file} is gzip-compressed: decompress it first (gunzip -k ${file}) and import the result.`,
    );
  }
  if (kind === null) {
    throw new CliError(
      "CLI_BAD_TRACE",
      `The trace ${file} is neither an strace log of pread64/preadv calls nor blkparse output: record one with strace -f -e trace=pread64 -o FILE -p PID, or blkparse -i TRACE.`,
    );
  }
  if (kind === "strace") {
    const parsed = parseStraceLog(text);
    let reads = parsed.reads;
    if (flags.path !== undefined) {
      const needle = flags.path;
      if (!reads.some((r) => r.file.includes("/"))) {
        throw new CliError(
          "CLI_CONFLICT",
          `--path needs file paths in the trace, and ${file} has none: record it with strace -y.`,
        );
      }
      reads = reads.filter((r) => r.file.includes(needle));
    }
    if (reads.length === 0) {
      throw new CliError(
        "CLI_EMPTY_TRACE",
        `The trace ${file} holds no successful pread64/preadv calls${flags.path ? ` on files matching "${flags.path}"` : ""}: record it with strace -f -e trace=pread64 -o FILE -p PID.`,
      );
    }
    const procs = summariseReads(reads);
    if (ctx.json) {
      printJson(ctx, "trace import", {
        format: "strace",
        file,
        calls: parsed.calls,
        failed: parsed.failed,
        unknownLines: parsed.unknownLines,
        processes: procs,
      });
      return EXIT.ok;
    }
    ctx.out(
      ctx.c.bold(
        `strace log ${file}: ${grouped(reads.length)} reads by ${procs.length} process(es)` +
          `${parsed.failed ? `, ${parsed.failed} failed calls left out` : ""}${parsed.unknownLines ? `, ${parsed.unknownLines} lines not understood` : ""}`,
      ),
    );
    ctx.out(processTable(ctx, procs, false));
    return EXIT.ok;
  }
  const parsed = parseBlkparse(text);
  if (parsed.queued.length === 0 && parsed.issued.length === 0) {
    throw new CliError(
      "CLI_EMPTY_TRACE",
      `The blkparse output ${file} holds no read events (Q or D with R in RWBS).`,
    );
  }
  const procs = summariseReads(parsed.queued, parsed.names);
  const issuedBytes = parsed.issued.reduce((a, r) => a + r.bytes, 0);
  const device = {
    requests: parsed.issued.length,
    bytes: issuedBytes,
    meanRequestBytes: parsed.issued.length > 0 ? issuedBytes / parsed.issued.length : 0,
  };
  if (ctx.json) {
    printJson(ctx, "trace import", {
      format: "blkparse",
      file,
      events: parsed.events,
      processes: procs,
      device,
    });
    return EXIT.ok;
  }
  ctx.out(
    ctx.c.bold(
      `blkparse output ${file}: ${grouped(parsed.queued.length)} read requests queued by ${procs.length} process(es)`,
    ),
  );
  if (procs.length > 0) ctx.out(processTable(ctx, procs, true));
  ctx.out(
    `Device: ${grouped(device.requests)} read requests issued (after merging), average ${fixed(device.meanRequestBytes / 1024, 1)} kB.`,
  );
  return EXIT.ok;
}
