import { describe, expect, it } from "vitest";
import { SyncScanError } from "./errors.js";
import { fileIdentityKey, nameKey, relFileLocatorKey } from "./keys.js";
import { InProcessSyncScanTracker } from "./tracker.js";

describe("keys: file identity -> integer 0..2^53-1", () => {
  it("is deterministic and a safe integer the tracker accepts", () => {
    const loc = { spcOid: 1663, dbOid: 5, relNumber: 16384 };
    const k = relFileLocatorKey(loc);
    expect(relFileLocatorKey({ ...loc })).toBe(k);
    expect(Number.isSafeInteger(k) && k >= 0).toBe(true);
    const t = new InProcessSyncScanTracker();
    t.reportLocation(k, 64);
    expect(t.getLocation(relFileLocatorKey(loc), 100)).toBe(64);
  });

  it("a rewritten table (new relfilenumber) gets a new key, as in PostgreSQL (apps/docs/src/reference/synchronized-scans.md#lru-of-scan-locations)", () => {
    const a = relFileLocatorKey({ spcOid: 1663, dbOid: 5, relNumber: 16384 });
    const b = relFileLocatorKey({ spcOid: 1663, dbOid: 5, relNumber: 16390 });
    const c = relFileLocatorKey({ spcOid: 1663, dbOid: 6, relNumber: 16384 });
    expect(new Set([a, b, c]).size).toBe(3);
  });

  it("dev/inode as numbers and as bigints give the same key", () => {
    expect(fileIdentityKey({ dev: 2049, ino: 1234567 })).toBe(fileIdentityKey({ dev: 2049n, ino: 1234567n }));
    expect(fileIdentityKey({ dev: 2049, ino: 1234567 })).not.toBe(
      fileIdentityKey({ dev: 2049, ino: 1234568 }),
    );
    // Inode numbers beyond 2^53 (btrfs, XFS) are fine as bigints.
    const big = fileIdentityKey({ dev: 1n, ino: 0xffff_ffff_ffff_fff0n });
    expect(Number.isSafeInteger(big)).toBe(true);
  });

  it("different kinds of identity with the same numbers do not meet", () => {
    expect(fileIdentityKey({ dev: 1, ino: 2 })).not.toBe(
      relFileLocatorKey({ spcOid: 1, dbOid: 0, relNumber: 2 }),
    );
  });

  it("spreads: 20 000 relfilenumbers and names give 20 000 distinct keys each", () => {
    const rel = new Set<number>();
    const names = new Set<number>();
    for (let i = 0; i < 20_000; i++) {
      rel.add(relFileLocatorKey({ spcOid: 1663, dbOid: 5, relNumber: 16384 + i }));
      names.add(nameKey(`t${i}`));
    }
    expect(rel.size).toBe(20_000);
    expect(names.size).toBe(20_000);
    expect(nameKey("ab")).not.toBe(nameKey("ab\u0000"));
  });

  it("rejects identities that are not unsigned integers", () => {
    expect(() => relFileLocatorKey({ spcOid: -1, dbOid: 5, relNumber: 1 })).toThrow(SyncScanError);
    expect(() => relFileLocatorKey({ spcOid: 1, dbOid: 2 ** 32, relNumber: 1 })).toThrow(/dbOid/);
    expect(() => fileIdentityKey({ dev: 1.5, ino: 1 })).toThrow(/dev/);
    expect(() => fileIdentityKey({ dev: 1n, ino: -1n })).toThrow(/ino/);
  });
});
