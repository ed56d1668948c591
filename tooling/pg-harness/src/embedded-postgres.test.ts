/** The pinned builds and the integrity check (offline: nothing is fetched). */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cachedPostgres, fileIntegrity, PINNED_POSTGRES, pinnedPostgres } from "./index.js";

describe("pinned PostgreSQL builds", () => {
  it("pins one exact build with a sha512 integrity for each of 11, 13, 14, 15, 16, 17 and 18", () => {
    expect(PINNED_POSTGRES.map((p) => p.major)).toEqual([11, 13, 14, 15, 16, 17, 18]);
    for (const p of PINNED_POSTGRES) {
      expect(p.version).toMatch(new RegExp(`^${p.major}\\.\\d+\\.\\d+-beta\\.\\d+$`));
      expect(p.integrity).toMatch(/^sha512-[A-Za-z0-9+/]{86}==$/);
    }
    expect(() => pinnedPostgres(12)).toThrow(/no pinned PostgreSQL 12 build/);
  });

  it("computes npm's integrity string (sha512 of the bytes, base64)", () => {
    const dir = mkdtempSync(join(tmpdir(), "scanlab-integrity-"));
    try {
      writeFileSync(join(dir, "f"), "abc");
      // sha512("abc") from FIPS 180-2, appendix C.1
      expect(fileIntegrity(join(dir, "f"))).toBe(
        `sha512-${Buffer.from("ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f", "hex").toString("base64")}`,
      );
      // an empty cache has nothing, and a tree without the completion marker does not count
      expect(cachedPostgres(17, dir)).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
