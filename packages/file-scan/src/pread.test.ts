/**
 * The worker's read call: libc's pread through koffi on Linux, giving what
 * fs.readSync gives, bytes, end of file and errors alike; elsewhere
 * fs.readSync itself, with the reason in one sentence.
 */
import { closeSync, openSync, readSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { makeTempDir } from "../test/files.js";
import { loadPread } from "./pread.js";

const platform = Object.getOwnPropertyDescriptor(process, "platform")!;
afterEach(() => Object.defineProperty(process, "platform", platform));

const tmp = makeTempDir("scanlab-pread-");
afterAll(() => tmp.remove());
// 20,000 bytes: two whole 8 kB blocks and 3,616 bytes of a third.
const file = join(tmp.dir, "data");
writeFileSync(
  file,
  Uint8Array.from({ length: 20000 }, (_, i) => i % 251),
);

/** Runs `fn` with the data file open for reading, and closes it. */
function withData<T>(fn: (fd: number) => T): T {
  const fd = openSync(file, "r");
  try {
    return fn(fd);
  } finally {
    closeSync(fd);
  }
}

describe("loadPread", () => {
  it.runIf(process.platform === "linux")(
    "binds libc's pread: the bytes fs.readSync reads, a short read at end of file, 0 past it",
    () => {
      const p = loadPread();
      expect(p.fallback).toBeNull();
      withData((fd) => {
        const mine = new Uint8Array(8192);
        const node = new Uint8Array(8192);
        expect(p.read(fd, mine, 8192, 8192)).toBe(8192);
        readSync(fd, node, 0, 8192, 8192);
        expect(mine).toEqual(node);
        expect(mine[0]).toBe(8192 % 251);
        expect(p.read(fd, mine, 8192, 16384)).toBe(20000 - 16384);
        expect(p.read(fd, mine, 8192, 40000)).toBe(0);
      });
    },
  );

  it.runIf(process.platform === "linux")(
    "fills a view at its own offset in its buffer, as the read stream's slots are views of one allocation",
    () => {
      const p = loadPread();
      withData((fd) => {
        const storage = new ArrayBuffer(3 * 8192);
        const all = new Uint8Array(storage);
        const slot = new Uint8Array(storage, 8192, 8192);
        expect(p.read(fd, slot, 8192, 0)).toBe(8192);
        expect(all.subarray(0, 8192).every((b) => b === 0)).toBe(true);
        expect([...all.subarray(8192, 8195)]).toEqual([0, 1, 2]);
        expect(all.subarray(16384).every((b) => b === 0)).toBe(true);
        // A refill reads into the rest of a slot: a subarray, offset again.
        expect(p.read(fd, slot.subarray(100), 10, 8192)).toBe(10);
        expect(all[8192 + 99]).toBe(99);
        expect(all[8192 + 100]).toBe(8192 % 251);
      });
    },
  );

  it.runIf(process.platform === "linux")(
    "raises a failed read as fs does (EBADF for a closed descriptor), and refuses a read past its buffer",
    () => {
      const p = loadPread();
      const fd = openSync(file, "r");
      const buffer = new Uint8Array(4096);
      expect(() => p.read(fd, buffer, 8192, 0)).toThrow(RangeError);
      closeSync(fd);
      let mine: unknown;
      let node: unknown;
      try {
        p.read(fd, buffer, 4096, 0);
      } catch (error) {
        mine = error;
      }
      try {
        readSync(fd, buffer, 0, 4096, 0);
      } catch (error) {
        node = error;
      }
      expect(mine).toBeInstanceOf(Error);
      expect((mine as Error).message).toBe((node as Error).message);
      expect(mine).toMatchObject({
        code: "EBADF",
        errno: (node as { errno: number }).errno,
        syscall: "read",
      });
    },
  );

  it("elsewhere reads through fs.readSync, and says why in one sentence", () => {
    Object.defineProperty(process, "platform", { ...platform, value: "darwin" });
    const p = loadPread();
    expect(p.fallback).toBe(
      "The workers read through Node's fs.readSync, not libc's pread: this is darwin, not Linux.",
    );
    withData((fd) => {
      const buffer = new Uint8Array(8192);
      expect(p.read(fd, buffer, 8192, 16384)).toBe(20000 - 16384);
      expect(buffer[0]).toBe(16384 % 251);
    });
  });
});
