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
 * broken. A table that cannot fit even so is split: one row is drawn down
 * (a line per column), and several rows are drawn as several tables, each
 * led by the first column and holding as many of the other columns as fit.
 * A part that cannot fit even then is drawn at those minimums.
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
  if (widths !== null && head.length > 2 && tableWidth(widths) > ctx.width) {
    if (body.length === 1) {
      // One row that cannot fit across: one line per column, without a header.
      const across = head.map((h, i) => [ctx.c.bold(h), body[0]![i] ?? ""]);
      const down: Align[] = ["left", aligns.every((a) => a === "right") ? "right" : "left"];
      return draw(ctx, null, across, down, fitColumns(ctx.width, ["", ""], across, down));
    }
    // Rows that cannot fit across: the columns split over tables that fit, each led by the first column.
    return splitColumns(ctx.width, head, body, aligns)
      .map((cols) => {
        const pick = <T>(xs: readonly T[]) => cols.map((i) => xs[i]!);
        const part = body.map(pick);
        return draw(
          ctx,
          pick(head),
          part,
          pick(aligns),
          fitColumns(ctx.width, pick(head), part, pick(aligns)),
        );
      })
      .join("\n");
  }
  return draw(ctx, head, body, aligns, widths);
}

/**
 * The columns of each table a too-wide table is split into: the first column
 * (the rows' names) leads each, followed by as many of the next columns, in
 * order, as fit `width` with the names on one line each (the other columns
 * narrowed as {@link fitColumns} does). A column that cannot fit so even
 * beside the names alone gets a table of its own, fitted as well as it can.
 */
export function splitColumns(
  width: number,
  head: readonly string[],
  body: readonly string[][],
  aligns: readonly Align[],
): number[][] {
  const names = Math.max(lineWidth(head[0]!), ...body.map((r) => lineWidth(r[0] ?? "")));
  const fits = (cols: readonly number[]) => {
    const pick = <T>(xs: readonly T[]) => cols.map((i) => xs[i]!);
    const widths = fitColumns(width, pick(head), body.map(pick), pick(aligns));
    return widths === null || (tableWidth(widths) <= width && widths[0] === names);
  };
  const groups: number[][] = [];
  let group = [0];
  for (let i = 1; i < head.length; i++) {
    if (group.length > 1 && !fits([...group, i])) {
      groups.push(group);
      group = [0];
    }
    group.push(i);
  }
  groups.push(group);
  return groups;
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
  for (const r of body)
    t.push(widths === null ? r : r.map((x, i) => breakWords(indentedLines(x, widths[i]!), widths[i]!)));
  return t.toString();
}

/**
 * A cell whose lines that start with spaces (an indented label) are wrapped
 * here, each continuation as indented as its line, since cli-table3 cuts such
 * a line short instead of wrapping it. Other lines are left to cli-table3.
 */
function indentedLines(cell: string, width: number): string {
  return cell
    .split("\n")
    .map((line) => {
      const indent = /^ +/.exec(line)?.[0] ?? "";
      if (indent === "" || visibleWidth(line) <= width) return line;
      const out: string[] = [];
      let current = indent;
      for (const word of words(line)) {
        if (current !== indent && visibleWidth(current) + 1 + visibleWidth(word) > width) {
          out.push(current);
          current = indent;
        }
        current += (current === indent ? "" : " ") + word;
      }
      out.push(current);
      return out.join("\n");
    })
    .join("\n");
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
