import { describe, expect, it } from "vitest";
import type { Ctx } from "../context.js";
import { visibleWidth, wrap, wrapCommand } from "./wrap.js";

const ctxOf = (width: number) => ({ width }) as unknown as Ctx;

describe("wrap", () => {
  const text =
    "  model PG14: allocator as PG14-19; syncscan as PG9.6-16; bitmap prefetch as PG13-17; ring as PG9.6-17; no read streams (PG17+)";

  it("leaves a line that fits as it is", () => {
    expect(wrap(ctxOf(200), text, 4)).toBe(text);
    expect(wrap(ctxOf(80), "short  line,  spacing kept", 2)).toBe("short  line,  spacing kept");
  });

  it("breaks between words, within the width, with a hanging indent", () => {
    const out = wrap(ctxOf(40), text, 4).split("\n");
    expect(out.length).toBeGreaterThan(2);
    for (const line of out) expect(visibleWidth(line)).toBeLessThanOrEqual(40);
    expect(out[0]).toMatch(/^ {2}model PG14:/);
    for (const line of out.slice(1)) expect(line).toMatch(/^ {4}\S/);
    expect(out.join(" ").split(/\s+/)).toEqual(text.split(/\s+/));
  });

  it("keeps a backticked span and a word longer than the line whole", () => {
    const out = wrap(
      ctxOf(30),
      "see `scanlab profiles show NAME` and https://example.invalid/a/very/long/path/indeed",
      2,
    );
    expect(out.split("\n")).toEqual([
      "see",
      "  `scanlab profiles show NAME`",
      "  and",
      "  https://example.invalid/a/very/long/path/indeed",
    ]);
  });

  it("breaks a list of pieces only between pieces", () => {
    const pieces = ["  label of the ratio", "published   1.64", "simulated   1.35", "gap  -17.9%"];
    expect(wrap(ctxOf(100), pieces, 4)).toBe(pieces.join("  "));
    expect(wrap(ctxOf(60), pieces, 4).split("\n")).toEqual([
      "  label of the ratio  published   1.64  simulated   1.35",
      "    gap  -17.9%",
    ]);
  });

  it("does not count colour codes as width", () => {
    const bold = (s: string) => `\u001b[1m${s}\u001b[22m`;
    const out = wrap(ctxOf(20), `${bold("aaaa bbbb")} cccc dddd eeee`, 2);
    expect(out.split("\n").map(visibleWidth)).toEqual([19, 6]);
  });
});

describe("wrapCommand", () => {
  const command =
    "scanlab sweep --device intel-ssd-320-120gb --os linux-5.4 --table-size 800GB --clients 6 --workers 2 --vary read-ahead-kb=128,256,512,1024,2048,4096,8192";
  /** The command a shell reads from the lines: continuations joined, the label dropped. */
  const pasted = (text: string, label: string) =>
    text
      .slice(label.length)
      .replace(/ \\\n +/g, " ")
      .trim();

  it("leaves a command that fits as it is", () => {
    expect(wrapCommand("  $ scanlab simulate --seed 1", 80, 5)).toBe("  $ scanlab simulate --seed 1");
  });

  it("breaks before long options with continuations, each line within the width, the command intact", () => {
    for (const width of [80, 60]) {
      const label = "  shows it: ";
      const out = wrapCommand(`${label}${command}`, width, label.length + 1);
      const lines = out.split("\n");
      expect(lines.length).toBeGreaterThan(1);
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(width);
      for (const line of lines.slice(0, -1)) expect(line).toMatch(/ \\$/);
      for (const line of lines.slice(1)) expect(line).toMatch(/^ {6}--/);
      expect(out.startsWith(`${label}scanlab sweep --`)).toBe(true);
      expect(pasted(out, label)).toBe(command);
    }
  });

  it("never breaks inside quotes or before the given column, and keeps a word longer than a line whole", () => {
    const quoted = `  $ scanlab simulate --name "a name with spaces in it that runs long" --table-size 1GB`;
    const out = wrapCommand(quoted, 40, 5).split("\n");
    expect(out.some((l) => l.includes('"a name with spaces in it that runs long"'))).toBe(true);
    const long = `  $ scanlab sweep ${"x".repeat(90)} --seed 1`;
    const kept = wrapCommand(long, 40, 5);
    expect(kept).toContain("x".repeat(90));
    expect(kept.startsWith("  $ scanlab sweep")).toBe(true);
  });
});
