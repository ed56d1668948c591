/**
 * Test helper: run a scenario with the real models, the OS port wrapped to
 * log what the scans asked of the OS (every read, every piece of advice,
 * every open), in blocks of table 0's first segment.
 */

import { type SimulationResult, simulateWith } from "../src/engine/loop/simulate.js";
import { PAGES_PER_BLOCK } from "../src/engine/pg/machine.js";
import { realModels } from "../src/engine/seam/adapters.js";
import type { ModelFactories, OsOpenFile, OsPort } from "../src/engine/seam/ports.js";
import { resolveScenario } from "../src/scenario/resolve.js";
import type { ScenarioInput } from "../src/scenario/schema.js";

/** What the scans asked of the OS. */
export interface OsLog {
  /** Every read(): first block and length in blocks. */
  reads: { block: number; blocks: number }[];
  /** Blocks read, one entry per block per read() (a read of n blocks adds n entries). */
  readBlocks: number[];
  /** Blocks advised (WILLNEED), one entry per block per call. */
  advisedBlocks: number[];
  /** posix_fadvise(WILLNEED) calls. */
  adviceCalls: number;
  /** open() calls (one per process or I/O worker per segment). */
  opens: number;
}

function blocksOf(page: number, pages: number): number[] {
  const out: number[] = [];
  for (let p = page; p < page + pages; p += PAGES_PER_BLOCK) out.push(p / PAGES_PER_BLOCK);
  return out;
}

/** The real models with a logging OS port. */
export function spyingModels(): { models: ModelFactories; log: OsLog } {
  const log: OsLog = { reads: [], readBlocks: [], advisedBlocks: [], adviceCalls: 0, opens: 0 };
  const models: ModelFactories = {
    ...realModels,
    buildOs(resolved) {
      const built = realModels.buildOs(resolved);
      const p = built.port;
      // Every call goes to the real port (a class instance: its methods are delegated, not spread).
      const port: OsPort = {
        open(file: number) {
          log.opens++;
          return p.open(file);
        },
        read(of: OsOpenFile, page: number, pages: number, nowUs: number) {
          log.reads.push({ block: page / PAGES_PER_BLOCK, blocks: pages / PAGES_PER_BLOCK });
          log.readBlocks.push(...blocksOf(page, pages));
          return p.read(of, page, pages, nowUs);
        },
        willneed(of: OsOpenFile, page: number, pages: number, nowUs: number) {
          log.adviceCalls++;
          log.advisedBlocks.push(...blocksOf(page, pages));
          p.willneed(of, page, pages, nowUs);
        },
        quietRun: (of, page, maxPages, pagesPerRead, nowUs) =>
          p.quietRun(of, page, maxPages, pagesPerRead, nowUs),
        skipQuiet: (of, page, pages, pagesPerRead, nowUs, counted) =>
          p.skipQuiet(of, page, pages, pagesPerRead, nowUs, counted),
        cacheRun: (file, page, maxPages, nowUs) => p.cacheRun(file, page, maxPages, nowUs),
        get submittedPages() {
          return p.submittedPages;
        },
        cachedReadsAreQuiet: p.cachedReadsAreQuiet,
        touch: (file, page, pages, readPages) => p.touch(file, page, pages, readPages),
        isResident: (file, page) => p.isResident(file, page),
        warm: (file, pages) => p.warm(file, pages),
        ...(p.warp === undefined ? {} : { warp: p.warp }),
      };
      return {
        port,
        stats: () => built.stats(),
        confidence: built.confidence,
        adaptive: () => built.adaptive(),
      };
    },
  };
  return { models, log };
}

/** Simulates `s` with the logging OS port. */
export function runSpied(s: ScenarioInput): { r: SimulationResult; log: OsLog } {
  const { models, log } = spyingModels();
  return { r: simulateWith(resolveScenario(s), models), log };
}
