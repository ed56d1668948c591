/**
 * Speed of the pieces the simulator leans on (run with `npm run bench`).
 * Ratios, not absolute times, are what matter on a shared machine: the table
 * prints each operation's rate and the fast path's gain side by side.
 *
 * Target (from the simulator's needs): one sequential reader over a
 * 100 M-page file (400 GB) in well under a second with quietRun, with
 * Linux's largest windows (read_ahead_kb 8192); with the default 128 KiB the
 * model must still decide once per 128 KiB window, the floor of any honest
 * fast path.
 */
import { mulberry32 } from "@scanlab/core";
import {
  freebsdUfsReadahead,
  linuxReadahead,
  type OpenFile,
  PageCache,
  type ReadaheadModel,
  windowsReadahead,
} from "../src/index.js";

function time<T>(fn: () => T): { ms: number; value: T } {
  const t0 = performance.now();
  const value = fn();
  return { ms: performance.now() - t0, value };
}

const rows: [string, string, string][] = [];
const rate = (n: number, ms: number) => `${((n / ms) * 1000).toExponential(2)} /s`;

// ---- page cache
{
  const N = 1 << 21; // 2 M pages
  const cache = new PageCache({ capacityPages: 1 << 20 });
  const ins = time(() => {
    for (let p = 0; p < N; p += 32) cache.insert(1, p, 32, 0, p);
  });
  rows.push([
    "cache.insert 32-page windows, evicting (1 M-page cache)",
    rate(N / 32, ins.ms),
    `${cache.stats().extents} extents`,
  ]);
  const tch = time(() => {
    for (let p = N / 2; p < N; p += 2) cache.touch(1, p, 2);
  });
  rows.push(["cache.touch 2 pages (LRU refresh)", rate(N / 4, tch.ms), `${cache.stats().extents} extents`]);
  const q = time(() => {
    let s = 0;
    for (let p = N / 2; p < N; p += 64) s += cache.nextMissing(1, p, 64) + cache.residentRunBelow(1, p, 32);
    return s;
  });
  rows.push(["cache.nextMissing + residentRunBelow", rate(N / 64, q.ms), ""]);
  const rnd = mulberry32(1);
  const random = new PageCache({ capacityPages: 200_000 });
  const ri = time(() => {
    for (let i = 0; i < 300_000; i++) random.insert(2, Math.floor(rnd.nextFloat() * 1e8) * 2, 2, 0, i);
  });
  rows.push([
    "cache.insert random 8 kB, evicting (200 k-page cache)",
    rate(300_000, ri.ms),
    `${random.stats().extents} extents`,
  ]);
}

// ---- models: a sequential reader, read() for every block vs quietRun + skipQuiet
function sequential(make: (c: PageCache) => ReadaheadModel, pages: number, fast: boolean) {
  const cache = new PageCache();
  const model = make(cache);
  const of: OpenFile = model.open(1, { sizePages: pages });
  let t = 0;
  let reads = 0;
  let quiet = 0;
  const submit = () => t + 100;
  for (let p = 0; p < pages; ) {
    if (fast) {
      const q = model.quietRun(of, p, pages - p, 2, t);
      if (q.pages > 0) {
        model.skipQuiet(of, p, q.pages, 2, t);
        p += q.pages;
        quiet++;
        t = Math.max(t, q.readyAtUs) + q.pages;
        continue;
      }
    }
    let out = model.read(of, p, 2, t, submit);
    while (out.pending !== null) out = model.resume(out.pending, out.readyAtUs, submit);
    reads++;
    t = Math.max(t, out.readyAtUs) + 2;
    p += 2;
  }
  return { reads, quiet };
}

const models: [string, (c: PageCache) => ReadaheadModel][] = [
  ["linux >=6.10, read_ahead_kb 8192", (c) => linuxReadahead(c, { readAheadKb: 8192, maxSectorsKb: 4096 })],
  ["linux >=6.10, read_ahead_kb 128", (c) => linuxReadahead(c)],
  ["linux <=6.9, read_ahead_kb 128", (c) => linuxReadahead(c, { version: "<=6.9" })],
  ["freebsd-ufs >=13", (c) => freebsdUfsReadahead(c)],
  ["windows", (c) => windowsReadahead(c)],
];
for (const [name, make] of models) {
  const slowPages = 1 << 21; // 2 M pages read block by block
  const slow = time(() => sequential(make, slowPages, false));
  const bigPages = 100_000_000;
  const fast = time(() => sequential(make, bigPages, true));
  const slowPerPage = slow.ms / slowPages;
  const fastPerPage = fast.ms / bigPages;
  rows.push([
    `${name}: read() per 8 kB block`,
    rate(slow.value.reads, slow.ms),
    `${((slowPerPage * bigPages) / 1000).toFixed(1)} s per 100 M pages`,
  ]);
  rows.push([
    `${name}: quietRun, 100 M pages`,
    `${(fast.ms / 1000).toFixed(2)} s`,
    `${fast.value.reads} reads + ${fast.value.quiet} quiet runs; x${(slowPerPage / fastPerPage).toFixed(0)} faster`,
  ]);
}

const w = Math.max(...rows.map((r) => r[0].length));
console.log(`${"operation".padEnd(w)}  ${"rate / time".padStart(14)}  note`);
for (const [a, b, c] of rows) console.log(`${a.padEnd(w)}  ${b.padStart(14)}  ${c}`);
