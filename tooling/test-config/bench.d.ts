/** Calls `fn` (which returns the operations it did) until `minMs` have passed. */
export declare function time(fn: () => number, minMs?: number): { opsPerSec: number; ops: number };
/** A rate with its unit: `1.2 M/s`, `340 k/s`. */
export declare function formatRate(x: number): string;
/** Rows of (name, rate, note), printed with aligned columns. */
export declare class RateTable {
  rows: Array<[string, string, string]>;
  row(name: string, opsPerSec: number, note?: string): void;
  print(): void;
}
