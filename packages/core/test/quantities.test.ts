import { describe, expect, it } from "vitest";
import {
  formatSettingSize,
  parseDuration,
  parseFioSize,
  parseSettingSize,
  parseSize,
  rint,
} from "../src/quantities.js";

describe("parseSize", () => {
  it("reads PostgreSQL's memory units as powers of 1024", () => {
    expect(parseSize("8kB")).toEqual({ value: 8, unit: "kB", scale: 1024 });
    expect(parseSize("128MB")?.scale).toBe(1024 ** 2);
    expect(parseSize("1GB")?.scale).toBe(1024 ** 3);
    expect(parseSize("2TB")?.scale).toBe(1024 ** 4);
    expect(parseSize("100B")?.scale).toBe(1);
  });

  it("reads fio's one-letter forms and the IEC spellings with the same powers", () => {
    expect(parseSize("4k")?.scale).toBe(1024);
    expect(parseSize("1g")?.scale).toBe(1024 ** 3);
    expect(parseSize("4KiB")?.scale).toBe(1024);
    expect(parseSize("3TiB")?.scale).toBe(1024 ** 4);
  });

  it("leaves the unit of a bare number to the caller", () => {
    expect(parseSize("4096")).toEqual({ value: 4096, unit: "", scale: null });
    expect(parseSize(" 1.5 ")).toEqual({ value: 1.5, unit: "", scale: null });
    expect(parseSize("100 blocks", { bareUnits: ["block", "blocks"] })).toEqual({
      value: 100,
      unit: "blocks",
      scale: null,
    });
    expect(parseSize("100 blocks")).toBeNull();
  });

  it("rejects the bit forms PostgreSQL rejects instead of reading them as bytes", () => {
    for (const t of ["1Gb", "100Mb", "8Kb", "1Tb"]) expect(parseSize(t), t).toBeNull();
  });

  it("rejects what is not a size", () => {
    for (const t of ["", "GB", "-1GB", "1e3", ".5GB", "1 parsec", "0x10", "1PB", "1 G B"])
      expect(parseSize(t), t).toBeNull();
  });
});

describe("parseDuration", () => {
  it("reads PostgreSQL's time units in microseconds", () => {
    expect(parseDuration("250us")?.scale).toBe(1);
    expect(parseDuration("250ms")?.scale).toBe(1e3);
    expect(parseDuration("10s")?.scale).toBe(1e6);
    expect(parseDuration("3min")?.scale).toBe(60e6);
    expect(parseDuration("2h")?.scale).toBe(3600e6);
    expect(parseDuration("1d")?.scale).toBe(86400e6);
    expect(parseDuration("5µs")?.scale).toBe(1);
    expect(parseDuration("5m")?.scale).toBe(60e6);
  });
  it("leaves a bare number to the caller and rejects other words", () => {
    expect(parseDuration("2.5")).toEqual({ value: 2.5, unit: "", scale: null });
    for (const t of ["", "s", "1 fortnight", "-1s", "1y"]) expect(parseDuration(t), t).toBeNull();
  });
});

describe("parseFioSize", () => {
  it("reads fio job sizes with fio's kb_base rule", () => {
    expect(parseFioSize("128k")).toBe(131072);
    expect(parseFioSize("4096")).toBe(4096);
    expect(parseFioSize("4KiB")).toBe(4000);
    expect(parseFioSize("4KiB", 1000)).toBe(4096);
    expect(parseFioSize("4k", 1000)).toBe(4000);
    expect(parseFioSize("1m")).toBe(1048576);
    expect(parseFioSize("x")).toBeNaN();
  });
});

describe("rint", () => {
  it("rounds halfway cases to even, like C's rint()", () => {
    expect([0.5, 1.5, 2.5, 5.5, 6.5, 2.4999, 2.5001].map(rint)).toEqual([0, 2, 2, 6, 6, 2, 3]);
  });
});

describe("parseSettingSize: a setting's value as PostgreSQL reads it", () => {
  // What PostgreSQL 15.20 stored for `SET effective_cache_size = '...'`, a
  // setting counted in 8 kB pages (GUC_UNIT_BLOCKS), read back from pg_settings.
  const blocks: [string, number][] = [
    ["16384", 16384],
    ["12.5", 12],
    ["13.5", 14],
    ["1.5", 2],
    ["100kB", 12],
    ["104kB", 13],
    ["120kB", 15],
    ["1.5MB", 192],
    ["0.5GB", 65536],
    ["8191B", 1],
    ["4097B", 1],
  ];
  it.each(blocks)("a setting in 8 kB pages: %s is %i pages", (text, pages) => {
    expect(parseSettingSize(text, 8192)).toBe(pages);
  });

  // `SET work_mem = '...'`, a setting counted in kB (GUC_UNIT_KB), on the same server.
  const kilobytes: [string, number][] = [
    ["1.5MB", 1536],
    ["1536B", 2],
    ["2560B", 2],
    ["0.1MB", 102],
    ["1.0001GB", 1048576],
  ];
  it.each(kilobytes)("a setting in kB: %s is %i kB", (text, kb) => {
    expect(parseSettingSize(text, 1024)).toBe(kb);
  });

  it("is null for what is not a size, including the bit spelling", () => {
    for (const text of ["", "x", "16 pages", "1Gb", "-1"]) expect(parseSettingSize(text, 8192)).toBeNull();
  });
});

describe("formatSettingSize", () => {
  it("writes what SHOW prints: the largest unit that divides the size exactly", () => {
    expect(formatSettingSize(16384 * 8192)).toBe("128MB");
    expect(formatSettingSize(16 * 8192)).toBe("128kB");
    expect(formatSettingSize(12 * 8192)).toBe("96kB");
    expect(formatSettingSize(1024 ** 4)).toBe("1TB");
    expect(formatSettingSize(1000)).toBe("1000B");
  });
});
