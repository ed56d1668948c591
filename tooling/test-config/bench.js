// Micro-benchmark helpers shared by the packages' `npm run bench` scripts:
// time a step until a minimum wall time has passed, and print rows of
// operations per second in aligned columns.

/** Calls `fn` (which returns the operations it did) until `minMs` have passed. */
export function time(fn, minMs = 300) {
  let ops = 0;
  const start = performance.now();
  let elapsed = 0;
  do {
    ops += fn();
    elapsed = performance.now() - start;
  } while (elapsed < minMs);
  return { opsPerSec: (ops / elapsed) * 1000, ops };
}

/** A rate with its unit: `1.2 M/s`, `340 k/s`. */
export function formatRate(x) {
  if (x >= 1e9) return `${(x / 1e9).toFixed(0)} G/s`;
  if (x >= 1e6) return `${(x / 1e6).toFixed(1)} M/s`;
  if (x >= 1e3) return `${(x / 1e3).toFixed(0)} k/s`;
  return `${x.toFixed(0)}/s`;
}

/** Rows of (name, rate, note), printed with aligned columns. */
export class RateTable {
  rows = [];
  row(name, opsPerSec, note = "") {
    this.rows.push([name, formatRate(opsPerSec), note]);
  }
  print() {
    const w0 = Math.max(...this.rows.map((r) => r[0].length));
    const w1 = Math.max(...this.rows.map((r) => r[1].length));
    for (const [a, b, c] of this.rows) console.log(`${a.padEnd(w0)}  ${b.padStart(w1)}  ${c}`);
  }
}
