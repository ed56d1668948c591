#!/usr/bin/env node
// Print PostgreSQL 14+'s parallel seq scan chunk plan for a table size, using
// the built @scanlab/block-allocator package (`npm run build` first).
//
//   node scripts/chunk-plan.mjs                  the examples of apps/docs/src/reference/parallel-block-allocation.md#worked-examples
//                                                (100,000 and 10,000,000 blocks) and the 800 GB
//                                                table of apps/docs/src/reference/experiments.md#t3-synchronized-scans-on-an-800-gb-table, capped and uncapped
//   node scripts/chunk-plan.mjs 100GB 5000       any sizes: a block count or B/kB/MB/GB/TB (powers of 1024)
//   options: --max-chunk-blocks=N|none  --nchunks=N  --rampdown-chunks=N
//
// A user error (bad size or option) prints one sentence and exits with status 2.
import { BLOCK_BYTES, blocksFromSize, pg14ChunkPlan, pg14ChunkSize } from "@scanlab/block-allocator";

const DEFAULT_SIZES = [
  {
    size: "100000",
    note: "apps/docs/src/reference/parallel-block-allocation.md#worked-examples, first example",
  },
  {
    size: "10000000",
    note: "apps/docs/src/reference/parallel-block-allocation.md#worked-examples, second example",
  },
  {
    size: "800GB",
    note: "apps/docs/src/reference/experiments.md#t3-synchronized-scans-on-an-800-gb-table, capped as in PG14+",
  },
  {
    size: "800GB",
    note: "apps/docs/src/reference/experiments.md#t3-synchronized-scans-on-an-800-gb-table, the uncapped v2 patch (65,536-block chunks)",
    options: { maxChunkBlocks: null },
  },
];

function usageError(message) {
  console.error(`chunk-plan: ${message}`);
  process.exit(2);
}

function parseArgs(argv) {
  const options = {};
  const sizes = [];
  for (const arg of argv) {
    const m = /^--([a-z-]+)=(.*)$/.exec(arg);
    if (m === null) {
      if (arg.startsWith("--"))
        usageError(
          `unknown option ${arg}; use --max-chunk-blocks=N|none, --nchunks=N or --rampdown-chunks=N.`,
        );
      sizes.push({ size: arg });
      continue;
    }
    const [, name, value] = m;
    const number = Number(value);
    if (name === "max-chunk-blocks") options.maxChunkBlocks = value === "none" ? null : number;
    else if (name === "nchunks") options.nchunks = number;
    else if (name === "rampdown-chunks") options.rampdownChunks = number;
    else
      usageError(
        `unknown option --${name}; use --max-chunk-blocks=N|none, --nchunks=N or --rampdown-chunks=N.`,
      );
  }
  return { sizes: sizes.length > 0 ? sizes.map((s) => ({ ...s, options })) : DEFAULT_SIZES, options };
}

function human(bytes) {
  const units = ["B", "kB", "MB", "GB", "TB"];
  let i = 0;
  let v = bytes;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${Number.isInteger(v) ? v : v.toFixed(1)} ${units[i]}`;
}

const n = (x) => x.toLocaleString("en-US");

function printPlan({ size, note, options = {} }) {
  const nblocks = blocksFromSize(size);
  const nchunks = options.nchunks ?? 2048;
  const cap = options.maxChunkBlocks === undefined ? 8192 : options.maxChunkBlocks;
  const first = pg14ChunkSize(nblocks, options);
  console.log(`\n${n(nblocks)} blocks (${human(nblocks * BLOCK_BYTES)})${note ? `: ${note}` : ""}`);
  console.log(
    `  first chunk ${n(first)} blocks (${human(first * BLOCK_BYTES)}): next power of two of max(${n(nblocks)} div ${nchunks}, 1), ` +
      `${cap === null ? "uncapped" : `capped at ${n(cap)}`}`,
  );
  const plan = pg14ChunkPlan(nblocks, options);
  if (plan.length === 0) {
    console.log("  (empty relation: no chunks)");
    return;
  }
  console.log(`  ${"chunk blocks".padStart(12)}  ${"first counter".padStart(14)}  ${"chunks".padStart(8)}`);
  for (const level of plan) {
    console.log(
      `  ${n(level.chunkBlocks).padStart(12)}  ${n(level.firstCounter).padStart(14)}  ${n(level.chunks).padStart(8)}`,
    );
  }
}

try {
  const { sizes } = parseArgs(process.argv.slice(2));
  // check every size and option before printing anything
  for (const s of sizes) pg14ChunkSize(blocksFromSize(s.size), s.options);
  console.log(
    "PostgreSQL 14+ parallel seq scan: chunk sizes one participant claims (apps/docs/src/reference/parallel-block-allocation.md#chunked-allocation, apps/docs/src/reference/parallel-block-allocation.md#worked-examples).\n" +
      "Counter value c is block (c + start block) mod nblocks; the counter value nblocks means done.",
  );
  for (const s of sizes) printPlan(s);
} catch (e) {
  if (e?.userError) usageError(e.message);
  throw e;
}
