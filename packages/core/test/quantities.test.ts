import { describe, expect, it } from "vitest";
import { parseDuration, parseFioSize, parseSize } from "../src/quantities.js";

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
