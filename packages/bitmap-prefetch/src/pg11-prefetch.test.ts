/**
 * PostgreSQL 11's bitmap heap scan (before 12's table AM rewrite): the
 * tuple-fetch iteration that finds a page exhausted raises prefetch_target but
 * does not prefetch, so the next page is read before the advice that iteration
 * would have issued. Captured on a real PostgreSQL 11.22 (tooling/conformance,
 * fixtures/bitmap-prefetch/pg11.json): with effective_io_concurrency 64
 * (prefetch_maximum 304 as spindles) on pages of 27 matching rows, the first
 * page's advice runs out at the end of its iterations, and the second page is
 * read before any further advice.
 */
import { describe, expect, it } from "vitest";
import { BitmapHeapScanPrefetcher, HeapBitmap } from "./index.js";

function events(prefetchOnExhaustedIteration: boolean): string[] {
  const bitmap = HeapBitmap.fromPages(
    1000,
    [...Array(40).keys()].map((i) => i * 10),
    { tuples: 2 },
  );
  const scan = new BitmapHeapScanPrefetcher(bitmap, {
    effectiveIoConcurrency: 64,
    eicFormula: "pg84",
    prefetchOnExhaustedIteration,
  });
  const out: string[] = [];
  const env = { isBuffered: () => false };
  for (let step = scan.nextPage(env); step !== null; step = scan.nextPage(env)) {
    out.push(`r${step.page}`, ...step.advice.map((a) => `a${a.firstBlock}`));
  }
  return out;
}

describe("prefetchOnExhaustedIteration", () => {
  it("up to 11 the iteration that ends a page issues no advice; 12+ it does", () => {
    // page 0: its read ramps the target from -1 to 0 (no advice); each further iteration adds 1:
    // 1 (advise 10), then 2 on the iteration that finds the page exhausted (advise 20, 12+ only);
    // page 10's read doubles the target to 4 and catches up.
    expect(events(true).slice(0, 7)).toEqual(["r0", "a10", "a20", "r10", "a30", "a40", "a50"]);
    expect(events(false).slice(0, 7)).toEqual(["r0", "a10", "r10", "a20", "a30", "a40", "a50"]);
    // the same pages are read and advised either way; only the order differs
    expect(events(false).filter((e) => e.startsWith("r"))).toEqual(
      events(true).filter((e) => e.startsWith("r")),
    );
  });
});
