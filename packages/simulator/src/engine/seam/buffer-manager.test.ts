/**
 * The ring each version's scans get (apps/docs/src/reference/buffer-ring.md#ring-size-by-version):
 * the version mapping's ring column decides whether the ring grows with
 * io_combine_limit x effective_io_concurrency, the buffer manager sizes it.
 */
import { describe, expect, it } from "vitest";
import { PG_VERSIONS } from "../../scenario/pg-model.js";
import { bulkReadRingFor } from "./buffer-manager.js";

const defaults = { nbuffers: 16384, maxConnections: 100, ioCombineLimit: 16, effectiveIoConcurrency: 16 };

describe("bulkReadRingFor", () => {
  it("shared_buffers 128MB, PG18's defaults: 32 buffers up to 17, 94 from 18", () => {
    const sizes = Object.fromEntries(PG_VERSIONS.map((pg) => [pg, bulkReadRingFor(pg, defaults)]));
    expect(sizes).toEqual({
      "9.6": 32,
      "10": 32,
      "11": 32,
      "12": 32,
      "13": 32,
      "14": 32,
      "15": 32,
      "16": 32,
      "17": 32,
      "18": 94,
      "19": 94,
    });
  });

  it("hands max_connections, io_combine_limit and effective_io_concurrency on from 18 only", () => {
    expect(bulkReadRingFor("18", { ...defaults, maxConnections: 50 })).toBe(132); // 16384 / 124
    expect(bulkReadRingFor("18", { ...defaults, effectiveIoConcurrency: 1 })).toBe(48); // 32 + 16 x 1
    expect(bulkReadRingFor("17", { ...defaults, maxConnections: 50, effectiveIoConcurrency: 1 })).toBe(32);
  });
});
