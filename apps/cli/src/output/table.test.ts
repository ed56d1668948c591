import { describe, expect, it } from "vitest";
import type { Ctx } from "../context.js";
import { colours } from "./colour.js";
import { renderTable, splitColumns } from "./table.js";
import { visibleWidth } from "./wrap.js";

/** What renderTable reads of a context: the width and the colours. */
const ctxOf = (width: number, colour = false) => ({ width, c: colours(colour) }) as unknown as Ctx;

const lines = (text: string) => text.split("\n");
const widest = (text: string) => Math.max(...lines(text).map(visibleWidth));

describe("renderTable", () => {
  const head = ["name", "title", "MiB/s"];
  const rows = [
    ["intel-ssd-320-120gb", "Intel SSD 320 Series 120 GB (SATA 3 Gb/s, 25 nm MLC)", 270],
    ["hdd-7200rpm", "7200 rpm disk (WD Ultrastar DC HC310 mechanics, Constellation ES.3 zone rates)", 175],
  ];

  it("draws a table that fits as it is, whatever the width beyond it", () => {
    const small = renderTable(ctxOf(80), ["query", "MiB/s"], [["scan", 1137]]);
    expect(small).toBe(
      ["┌───────┬───────┐", "│ query │ MiB/s │", "│ scan  │  1137 │", "└───────┴───────┘"].join("\n"),
    );
    const natural = renderTable(ctxOf(1000), head, rows, ["left", "left", "right"]);
    expect(renderTable(ctxOf(widest(natural)), head, rows, ["left", "left", "right"])).toBe(natural);
    expect(lines(natural)).toHaveLength(5);
  });

  it("wraps the text of a too-wide table between words to fit, numbers intact", () => {
    const out = renderTable(ctxOf(60), head, rows, ["left", "left", "right"]);
    expect(widest(out)).toBeLessThanOrEqual(60);
    expect(lines(out).length).toBeGreaterThan(5);
    // The names are whole (the title column gave way first) and the numbers are on one line each.
    expect(out).toContain("│ intel-ssd-320-120gb │");
    expect(lines(out).filter((l) => /│\s+270 │$/.test(l))).toHaveLength(1);
    expect(lines(out).filter((l) => /│\s+175 │$/.test(l))).toHaveLength(1);
    // Every word of the titles is there, in order.
    const titleCells = lines(out)
      .map((l) => l.split("│")[2]?.trim() ?? "")
      .filter((t) => t !== "" && t !== "title");
    expect(titleCells.join(" ")).toBe(`${rows[0]![1]} ${rows[1]![1]}`);
  });

  it("wraps a numeric column's long header, not its values", () => {
    const out = renderTable(
      ctxOf(40),
      ["query", "8k random QD32 IOPS", "128k seq QD8 MiB/s"],
      [
        ["a", "327,326", "1852"],
        ["b", "3,000", "131"],
      ],
    );
    expect(widest(out)).toBeLessThanOrEqual(40);
    expect(out).toContain("327,326");
    expect(out).toContain("1852");
    expect(out).toMatch(/│ a +│ +327,326 │ +1852 │/);
  });

  it("breaks text columns down to 10 characters but never a first column's names, and draws the minimum when even that is too wide", () => {
    const out = renderTable(
      ctxOf(20),
      head.slice(0, 2),
      rows.map((r) => r.slice(0, 2)),
      ["left", "left"],
    );
    // The names whole and the title at 10, with borders and padding.
    const frame = 3 + 2 * 2;
    expect(widest(out)).toBe(frame + "intel-ssd-320-120gb".length + 10);
    expect(out).toMatch(/│ intel-ssd-320-120gb │/);
    expect(out).toMatch(/│ Intel SSD {2}│/);
    // A second text column's long word is broken after a hyphen.
    const words = renderTable(ctxOf(20), ["a", "b"], [["x", "raid0-6x-intel-s3600-100gb"]], ["left", "left"]);
    expect(words).toContain("raid0-6x-");
  });

  it("shows one row that cannot fit across as one line per column", () => {
    const headers = ["device reads", "avg read kB", "utilisation", "shared_buffers hits"];
    const out = renderTable(ctxOf(40), headers, [["1,299", "50.5", "75%", "0%"]], Array(4).fill("right"));
    expect(widest(out)).toBeLessThanOrEqual(40);
    expect(lines(out)).toHaveLength(6);
    expect(out).toMatch(/│ device reads +│ +1,299 │/);
    expect(out).toMatch(/│ shared_buffers hits +│ +0% │/);
  });

  it("splits rows that cannot fit across into tables that fit, each led by the names", () => {
    const wideHead = ["device", "1", "2", "4", "8", "16", "32", "64", "128", "256"];
    const wideRows = [
      ["intel-ssd-320-120gb", ...Array.from({ length: 9 }, (_, i) => `${(10 + i * 1.5).toFixed(1)} s`)],
      ["hdd-7200rpm", ...Array.from({ length: 9 }, (_, i) => `${(100 + i * 11).toFixed(0)} s`)],
    ];
    const natural = renderTable(ctxOf(1000), wideHead, wideRows);
    expect(widest(natural)).toBeGreaterThan(80);
    const out = renderTable(ctxOf(80), wideHead, wideRows);
    for (const line of lines(out)) expect(visibleWidth(line)).toBeLessThanOrEqual(80);
    // Two tables (two top borders), both led by the device names, every value once and in order.
    expect(lines(out).filter((l) => l.startsWith("┌"))).toHaveLength(2);
    expect(lines(out).filter((l) => l.startsWith("│ intel-ssd-320-120gb │"))).toHaveLength(2);
    expect(lines(out).filter((l) => l.startsWith("│ device "))).toHaveLength(2);
    const cells = (name: string) =>
      lines(out)
        .filter((l) => l.startsWith(`│ ${name} `))
        .flatMap((l) =>
          l
            .split("│")
            .slice(2, -1)
            .map((c) => c.trim()),
        );
    expect(cells("intel-ssd-320-120gb")).toEqual(wideRows[0]!.slice(1));
    expect(cells("hdd-7200rpm")).toEqual(wideRows[1]!.slice(1));
    // Six columns of 6 characters fit beside the names (1 + 22 + 6 x 9 = 77 columns); the other three follow.
    expect(splitColumns(80, wideHead, wideRows, Array(10).fill("right"))).toEqual([
      [0, 1, 2, 3, 4, 5, 6],
      [0, 7, 8, 9],
    ]);
  });

  it("gives a column too wide to sit beside the names even alone a table of its own", () => {
    const out = renderTable(ctxOf(32), head, rows, ["left", "left", "right"]);
    expect(lines(out).filter((l) => l.startsWith("┌"))).toHaveLength(2);
    // The second part (names and numbers, 31 columns) fits; the first is drawn at its minimum.
    expect(widest(out.slice(out.lastIndexOf("┌")))).toBeLessThanOrEqual(32);
    expect(out).toMatch(/│ intel-ssd-320-120gb │ +270 │/);
    expect(out).toMatch(/│ intel-ssd-320-120gb │ Intel SSD {2}│/);
  });

  it("wraps an indented label within its column, indented, rather than cutting it short", () => {
    const out = renderTable(ctxOf(30), ["x", "a"], [["  % of read-ahead-kb=128", "100%"]], ["left", "right"]);
    expect(widest(out)).toBeLessThanOrEqual(30);
    expect(out).not.toContain("…");
    expect(out).toMatch(/│ {3}% of +│/);
    expect(out).toMatch(/│ {3}read-ahead-kb=128 +│/);
  });

  it("does not count colour codes as width", () => {
    const plain = renderTable(ctxOf(1000), head, rows, ["left", "left", "right"]);
    const coloured = renderTable(ctxOf(widest(plain)), head, rows, ["left", "left", "right"]);
    expect(lines(coloured)).toHaveLength(lines(plain).length);
    const bold = renderTable(ctxOf(widest(plain), true), head, rows, ["left", "left", "right"]);
    expect(bold).toContain("\u001b[1m");
    expect(lines(bold)).toHaveLength(lines(plain).length);
    expect(widest(bold)).toBe(widest(plain));
  });
});
