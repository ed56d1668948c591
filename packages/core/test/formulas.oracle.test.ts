/**
 * The buffer-manager and readahead formulas against the copies they replaced,
 * kept here verbatim as oracles, over grids covering every branch.
 */
import { describe, expect, it } from "vitest";
import { bulkReadRingBuffers, largeScanThresholdBlocks } from "../src/buffer-strategy.js";
import { linuxInitRaSize, linuxNextRaSize } from "../src/readahead-window.js";

// simulator/src/engine/pg/shared-buffers.ts (now @scanlab/buffer-manager's bulkReadRingSize)
const BULKREAD_RING_BUFFERS_PRE18 = 32;
const PG18_EXTRA_PROCS = 74;
function simulatorRing(options: {
  pg: string;
  nbuffers: number;
  maxConnections: number;
  ioCombineLimit: number;
  effectiveIoConcurrency: number;
}): number {
  const cap = Math.max(1, Math.floor(options.nbuffers / 8));
  if (Number(options.pg) < 18) return Math.min(BULKREAD_RING_BUFFERS_PRE18, cap);
  const pinLimit = Math.max(1, Math.floor(options.nbuffers / (options.maxConnections + PG18_EXTRA_PROCS)));
  const wanted = BULKREAD_RING_BUFFERS_PRE18 + options.ioCombineLimit * options.effectiveIoConcurrency;
  const upper = Math.max(BULKREAD_RING_BUFFERS_PRE18, pinLimit);
  return Math.min(wanted, upper, cap);
}

// bitmap-prefetch/src/read-stream-limits.ts (bulkReadRingBuffers, backendPinLimit for PG18+)
function bitmapRing(version: 17 | 18, nBuffers: number, procs: number, icl: number, eic: number): number {
  const blockKb = 8192 / 1024;
  let ringKb = 256;
  if (version !== 17) {
    const ringMaxKb = Math.max(ringKb, Math.floor(nBuffers / procs) * blockKb);
    ringKb += blockKb * eic * icl;
    if (ringKb > ringMaxKb) ringKb = ringMaxKb;
  }
  return Math.min(Math.floor(nBuffers / 8), Math.floor(ringKb / blockKb));
}

// readahead/src/linux.ts (linuxInitRaSize, linuxNextRaSize) and
// bitmap-prefetch/src/adaptive-cost-model.ts (linuxInitWindowPages, linuxNextWindowPages): identical bodies.
function oldInit(req: number, max: number): number {
  let n = 1;
  while (n < req) n *= 2;
  if (n <= max / 32) return n * 4;
  if (n <= max / 4) return n * 2;
  return max;
}
function oldNext(cur: number, max: number): number {
  if (cur < max / 16) return 4 * cur;
  if (cur <= max / 2) return 2 * cur;
  return max;
}

// shared_buffers from the GUC minimum (16) through 128MB, 1GB, 8GB to the GUC maximum (INT_MAX / 2).
const NBUFFERS = [16, 17, 23, 24, 100, 255, 256, 257, 1000, 4096, 16384, 131072, 1048576, 2 ** 30 - 1];
const CONNECTIONS = [1, 5, 10, 100, 500, 10000];
const ICL = [1, 2, 16, 32, 64, 128];
const EIC = [0, 1, 2, 16, 64, 200, 1000];

describe("BAS_BULKREAD ring size", () => {
  it("matches the simulator's copy for every PostgreSQL version and setting in the grid", () => {
    let cases = 0;
    for (const pg of ["9.6", "11", "13", "14", "17", "18"])
      for (const nbuffers of NBUFFERS)
        for (const maxConnections of CONNECTIONS)
          for (const ioCombineLimit of ICL)
            for (const effectiveIoConcurrency of EIC) {
              const old = simulatorRing({
                pg,
                nbuffers,
                maxConnections,
                ioCombineLimit,
                effectiveIoConcurrency,
              });
              const ours = bulkReadRingBuffers(
                Number(pg) < 18
                  ? { nBuffers: nbuffers }
                  : {
                      nBuffers: nbuffers,
                      pinLimit: Math.floor(nbuffers / (maxConnections + PG18_EXTRA_PROCS)),
                      ioCombineLimit,
                      effectiveIoConcurrency,
                    },
              );
              expect(
                ours,
                `${pg} ${nbuffers} ${maxConnections} ${ioCombineLimit} ${effectiveIoConcurrency}`,
              ).toBe(old);
              cases++;
            }
    expect(cases).toBe(6 * NBUFFERS.length * CONNECTIONS.length * ICL.length * EIC.length);
  });

  it("matches bitmap-prefetch's copy for PG17 and PG18+ in the grid", () => {
    for (const version of [17, 18] as const)
      for (const nBuffers of NBUFFERS)
        for (const procs of [1, 100, 174, 1000, 1_000_000])
          for (const icl of ICL)
            for (const eic of EIC) {
              const ours = bulkReadRingBuffers(
                version === 17
                  ? { nBuffers }
                  : {
                      nBuffers,
                      pinLimit: Math.floor(nBuffers / procs),
                      ioCombineLimit: icl,
                      effectiveIoConcurrency: eic,
                    },
              );
              expect(ours, `${version} ${nBuffers} ${procs} ${icl} ${eic}`).toBe(
                bitmapRing(version, nBuffers, procs, icl, eic),
              );
            }
  });
});

describe("large-scan threshold", () => {
  it("is NBuffers / 4 rounded down, as the simulator and syncscan computed it", () => {
    for (const n of [...NBUFFERS, 0, 1, 3, 4, 5]) expect(largeScanThresholdBlocks(n)).toBe(Math.floor(n / 4));
  });
});

describe("Linux readahead windows", () => {
  const MAX = [1, 2, 4, 8, 16, 31, 32, 33, 64, 128, 256, 512, 2048, 4096];
  it("get_init_ra_size matches the old copies for req 0..600 and every max in the grid", () => {
    for (const max of MAX)
      for (let req = 0; req <= 600; req++) expect(linuxInitRaSize(req, max)).toBe(oldInit(req, max));
  });
  it("get_next_ra_size matches the old copies for cur 0..5000 and every max in the grid", () => {
    for (const max of MAX)
      for (let cur = 0; cur <= 5000; cur++) expect(linuxNextRaSize(cur, max)).toBe(oldNext(cur, max));
  });
});
