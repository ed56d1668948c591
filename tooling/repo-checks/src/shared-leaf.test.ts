/**
 * The shared-leaf rule on small sources: each shape of copy that existed
 * before `@scanlab/core` is caught, and the look-alikes that are not copies
 * (hashes, checksums, other byte counts, subclasses of ScanlabError) pass.
 */
import { describe, expect, it } from "vitest";
import { findLeafCopies, type LeafCopyKind } from "./shared-leaf.js";

const kinds = (text: string): LeafCopyKind[] => findLeafCopies([{ path: "x.ts", text }]).map((c) => c.kind);

describe("findLeafCopies catches", () => {
  it("an error class extending Error", () => {
    expect(kinds("export class FooError extends Error {\n}")).toEqual(["error-class"]);
    expect(kinds("class Bad extends RangeError {}")).toEqual(["error-class"]);
  });

  it("mulberry32, xorshift32, sfc32 and splitmix copies", () => {
    expect(kinds("a = (a + 0x6d2b79f5) >>> 0;")).toEqual(["prng"]);
    expect(kinds("x ^= x << 13;\n    x ^= x >>> 17;\n    x ^= x << 5;")).toEqual(["prng"]);
    expect(kinds("c = (c << 21) | (c >>> 11);")).toEqual(["prng"]);
    expect(kinds("const s = (state + 0x9E3779B9) | 0;")).toEqual(["prng"]);
    expect(kinds("let s = (seed ^ 0x9e3779b9) >>> 0;")).toEqual(["prng"]);
    expect(kinds("export function mulberry32(seed: number) {}")).toEqual(["prng"]);
  });

  it("a block size bound to 8192", () => {
    expect(kinds("export const BLOCK_BYTES = 8192;")).toEqual(["block-size"]);
    expect(kinds("export const BLCKSZ_BYTES: number = 8 * 1024;")).toEqual(["block-size"]);
    expect(kinds("function f(blockBytes = 8192) {}")).toEqual(["block-size"]);
  });

  it("size and duration parsers", () => {
    expect(kinds("const m = /^\\s*([0-9]+(?:\\.[0-9]+)?)\\s*([a-zA-Z]*)\\s*$/.exec(v);")).toEqual([
      "size-parser",
    ]);
    expect(kinds("const m = /^(\\d+)(kB|MB)?$/.exec(v.trim());")).toEqual(["size-parser"]);
    expect(kinds("const m = /^\\s*(\\d+(?:\\.\\d+)?)\\s*([kmgt]?)(i?b?)\\s*$/i.exec(t);")).toEqual([
      "size-parser",
    ]);
    expect(kinds("const U = { b: 1, kb: 1024 };")).toEqual(["size-parser"]);
  });
});

describe("findLeafCopies lets through", () => {
  it("subclasses of ScanlabError and other classes", () => {
    expect(kinds("export class FooError extends ScanlabError {}\nclass A extends B {}")).toEqual([]);
  });

  it("hash mixers and rotations that are not generators", () => {
    expect(kinds("x = (x << 13) | (x >>> 19);\nh ^= h >>> 13;\nh = Math.imul(h, 0x85ebca6b);")).toEqual([]);
    expect(kinds("for (const seed of [0, 1, 0x9e3779b9]) {}")).toEqual([]);
  });

  it("8192 as a byte count that is not a block size, and 81920", () => {
    expect(
      kinds(
        "const readBytes = 8192;\nconst BLOCK_BYTES_MAX = 81920;\nconst MAX_CHUNK_BLOCKS = 8192;\nlimit: 8192,",
      ),
    ).toEqual([]);
    expect(
      kinds(" * PostgreSQL's default block size, BLCKSZ = 8192 bytes.\n// blockBytes = 8192 in the old copy"),
    ).toEqual([]);
  });

  it("regular expressions that read no unit", () => {
    expect(kinds("const m = /leader-pid=(\\d+)/.exec(r);\nconst n = /^(\\d+)$/.test(v);")).toEqual([]);
  });

  it("reports the line of each copy", () => {
    const [c] = findLeafCopies([{ path: "p.ts", text: "// one\n// two\nconst PAGE_BYTES = 8192;\n" }]);
    expect(c).toMatchObject({ path: "p.ts", line: 3, kind: "block-size" });
  });
});
