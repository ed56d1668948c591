/**
 * PG18's per-read pin check (GetAdditionalPinLimit, bufmgr.c) assumes the
 * backend holds at least REFCOUNT_ARRAY_ENTRIES = 8 pins whatever it really
 * holds, so with a pin limit of 21 no read exceeds 13 blocks. The case is what
 * a real PostgreSQL 18.4 did: a cold sequential scan of a 3000-block table with
 * shared_buffers 16 MB (2048 buffers) and max_connections 20 (21 pins), eic 16,
 * io_combine_limit 16, io_method sync, read 1, 2, 4, 8, then 13 blocks at a
 * time (tooling/conformance, fixtures/read-streams/pg18.json).
 */
import { describe, expect, it } from "vitest";
import { ReadStream, type ReadStreamEnv } from "./index.js";

describe("PG18 per-read pin limit", () => {
  it("never reads more than the pin limit minus the 8 pins assumed held", () => {
    const sizes: number[] = [];
    const env: ReadStreamEnv = {
      isBuffered: () => false,
      startRead: (io) => {
        sizes.push(io.blocks);
        return null;
      },
      waitRead: (_io, nowUs) => nowUs + 1,
    };
    let next = 0;
    const stream = new ReadStream(() => (next < 3000 ? next++ : null), {
      version: 18,
      effectiveIoConcurrency: 16,
      ioCombineLimit: 16,
      ioMethod: "sync",
      flags: { sequential: true },
      strategy: "bulkread",
      nBuffers: 2048,
      maxBackendsPlusAuxiliary: 94,
    });
    expect(stream.config.backendPinLimit).toBe(21);
    let now = 0;
    for (let s = stream.nextBuffer(now, env); s !== null; s = stream.nextBuffer(now, env)) {
      if (s.kind === "wait") {
        now = s.untilUs;
        stream.resume(now, env);
      }
      now++;
    }
    expect(sizes.slice(0, 7)).toEqual([1, 2, 4, 8, 13, 13, 13]);
    expect(Math.max(...sizes)).toBe(13);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(3000);
  });
});
