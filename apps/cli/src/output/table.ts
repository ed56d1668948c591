/**
 * Tables (cli-table3) without cli-table3's own colours: headers are bold only
 * when colour is on, so NO_COLOR and pipes get plain text.
 *
 * A table fits the output width (ctx.width) or wraps: when its natural width
 * is too wide, columns are narrowed, widest first, and their cells wrapped
 * between words. Numeric (right-aligned) columns are never narrower than
 * their widest value, so numbers never wrap, though a long header may; text
 * (left-aligned or centred) columns keep their longest word whole if they
 * can, and are never narrower than 10 characters. A left-aligned first
 * column holds the rows' names (what a user types next): its words are never
 * broken. A table that cannot fit even so is drawn at those minimums.
 */
import Table from "cli-table3";
import type { Ctx } from "../context.js";
import { characters, isColourCode, visibleWidth } from "./wrap.js";

/** Column alignment. */
export type Align = "left" | "right" | "center";

/** The narrowest a text column is made. */
const MIN_TEXT_WIDTH = 10;

/** Columns a border takes, and a cell's padding (a space each side). */
const BORDER = 1;
const PADDING = 2;

/** Renders a table as text, fitted to ctx.width. */
export function renderTable(ctx: Ctx, head: string[], rows: (string | number)[][], align?: Align[]): string {
  const { aligns, body } = cellsOf(head, rows, align);
  const widths = fitColumns(ctx.width, head, body, aligns);
  if (widths !== null && body.length === 1 && head.length > 2 && tableWidth(widths) > ctx.width) {
    // One row that cannot fit across: one line per column, without a header.
    const across = head.map((h, i) => [ctx.c.bold(h), body[0]![i] ?? ""]);
    const down: Align[] = ["left", aligns.every((a) => a === "right") ? "right" : "left"];
    return draw(ctx, null, across, down, fitColumns(ctx.width, ["", ""], across, down));
  }
  return draw(ctx, head, body, aligns, widths);
}

/** Draws a table with cli-table3: as it is, or with these column widths and its cells wrapped. */
function draw(
  ctx: Ctx,
  head: string[] | null,
  body: string[][],
  aligns: Align[],
  widths: number[] | null,
): string {
  const t = new Table({
    head: (head ?? []).map((h, i) => ctx.c.bold(widths === null ? h : breakWords(h, widths[i]!))),
    style: { head: [], border: [], compact: false },
    colAligns: aligns,
    ...(widths === null
      ? { wordWrap: false }
      : { wordWrap: true, wrapOnWordBoundary: true, colWidths: widths.map((w) => w + PADDING) }),
    // No rule between body rows: compact tables that still line up.
    chars: { mid: "", "left-mid": "", "mid-mid": "", "right-mid": "" },
  });
  for (const r of body) t.push(widths === null ? r : r.map((x, i) => breakWords(x, widths[i]!)));
  return t.toString();
}

/** True when the table fits ctx.width as it is (no column narrowed). */
export function tableFits(ctx: Ctx, head: string[], rows: (string | number)[][], align?: Align[]): boolean {
  const { aligns, body } = cellsOf(head, rows, align);
  return fitColumns(ctx.width, head, body, aligns) === null;
}

/** The cells as text, and the alignment (default: the first column left, the others right). */
function cellsOf(
  head: string[],
  rows: (string | number)[][],
  align?: Align[],
): { aligns: Align[]; body: string[][] } {
  return {
    aligns: align ?? head.map((_, i) => (i === 0 ? "left" : "right")),
    body: rows.map((r) => r.map((x) => (typeof x === "number" ? String(x) : x))),
  };
}

/** Columns a table takes with these content widths. */
function tableWidth(widths: readonly number[]): number {
  return BORDER * (widths.length + 1) + widths.reduce((a, w) => a + w + PADDING, 0);
}

/**
 * The content width of each column so the table fits `width` columns, or
 * null when it fits as it is. The widest column is narrowed one character at
 * a time: first numeric columns (only their header wraps, which costs the
 * fewest lines), then text columns down to their longest word, then text
 * columns down to {@link MIN_TEXT_WIDTH}.
 */
function fitColumns(
  width: number,
  head: readonly string[],
  rows: readonly string[][],
  align: readonly Align[],
): number[] | null {
  const cells = (i: number) => rows.map((r) => r[i] ?? "");
  const longestWord = (texts: readonly string[]) => Math.max(1, ...texts.flatMap(words).map(visibleWidth));
  const natural = head.map((h, i) => Math.max(lineWidth(h), ...cells(i).map(lineWidth)));
  let excess = tableWidth(natural) - width;
  if (excess <= 0) return null;
  // Numbers never wrap: a numeric column is never narrower than its widest value.
  const numberFloor = head.map((h, i) => Math.max(longestWord([h]), ...cells(i).map(lineWidth)));
  const floors = (textFloor: (i: number) => number) =>
    head.map((_, i) => (align[i] === "right" ? numberFloor[i]! : Math.min(natural[i]!, textFloor(i))));
  const headersOnly = floors((i) => natural[i]!);
  const wholeWords = floors((i) => Math.max(MIN_TEXT_WIDTH, longestWord([head[i]!, ...cells(i)])));
  const brokenWords = floors((i) =>
    i === 0 && align[0] === "left" ? Math.max(MIN_TEXT_WIDTH, longestWord(cells(0))) : MIN_TEXT_WIDTH,
  );
  const widths = [...natural];
  for (const floor of [headersOnly, wholeWords, brokenWords]) {
    while (excess > 0) {
      let widest = -1;
      for (let i = 0; i < widths.length; i++)
        if (widths[i]! > floor[i]! && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
      if (widest < 0) break;
      widths[widest]!--;
      excess--;
    }
  }
  return widths;
}

/** The widest line of a cell. */
function lineWidth(cell: string): number {
  return Math.max(...cell.split("\n").map(visibleWidth));
}

/** The words of a cell. */
function words(cell: string): string[] {
  return cell.split(/\s+/).filter((w) => w !== "");
}

/**
 * A cell with each word longer than `width` broken onto lines of at most
 * `width` characters (after a '-' or '/' when there is one), since cli-table3
 * would cut it short.
 */
function breakWords(cell: string, width: number): string {
  return cell.replace(/\S+/g, (word) =>
    visibleWidth(word) <= width ? word : chunks(word, width).join("\n"),
  );
}

/** A long word in pieces of at most `width` visible characters; colour codes are never split. */
function chunks(word: string, width: number): string[] {
  const parts = characters(word);
  const out: string[] = [];
  let piece: string[] = [];
  let seen = 0;
  let lastBreak = -1;
  for (const part of parts) {
    const visible = !isColourCode(part);
    if (visible && seen === width) {
      const cut = lastBreak > 0 ? lastBreak : piece.length;
      out.push(piece.slice(0, cut).join(""));
      piece = piece.slice(cut);
      seen = visibleWidth(piece.join(""));
      lastBreak = -1;
    }
    piece.push(part);
    if (visible) {
      seen++;
      if (part === "-" || part === "/") lastBreak = piece.length;
    }
  }
  if (piece.length > 0) out.push(piece.join(""));
  return out;
}
