/**
 * Long lines of prose fitted to the output width (ctx.width), broken between
 * words with a hanging indent. Colour codes take no width.
 */
import type { Ctx } from "../context.js";

/** The escape character that starts a colour code. */
const ESC = "\u001b";
/** A colour code (an SGR escape sequence) or one character. */
const CHARACTER = new RegExp(`${ESC}\\[[0-9;]*m|[^${ESC}]`, "gu");

/** Splits text into colour codes (SGR escape sequences) and single characters. */
export function characters(text: string): string[] {
  return text.match(CHARACTER) ?? [];
}

/** True for a colour code of {@link characters}' output. */
export function isColourCode(part: string): boolean {
  return part.startsWith(ESC);
}

/** Columns a terminal shows for `text`: one per character, none for colour codes. */
export function visibleWidth(text: string): number {
  return characters(text).filter((p) => !isColourCode(p)).length;
}

/**
 * `text` broken between words into lines of at most ctx.width columns, the
 * lines after the first indented by `indent` spaces. A `backticked span` is
 * kept whole, and so is a word longer than a line (a path or a URL stays
 * whole for copying). An array is a list of pieces that are never broken,
 * joined by two spaces.
 */
export function wrap(ctx: Ctx, text: string | readonly string[], indent: number): string {
  const tokens = typeof text === "string" ? tokenize(text) : pieces(text);
  const lines: string[] = [];
  let line = "";
  let used = 0;
  for (const { gap, word } of tokens) {
    const w = visibleWidth(word);
    const g = visibleWidth(gap);
    if (w > 0 && used > indent && used + g + w > ctx.width) {
      lines.push(line.trimEnd());
      line = " ".repeat(indent) + word;
      used = indent + w;
    } else {
      line += gap + word;
      used += g + w;
    }
  }
  lines.push(line);
  return lines.join("\n");
}

/** Words with the space before each (the first word's gap is the line's own indent). */
function tokenize(text: string): { gap: string; word: string }[] {
  const tokens: { gap: string; word: string }[] = [];
  for (const m of text.matchAll(/(\s*)((?:`[^`]*`|\S)+)/g)) tokens.push({ gap: m[1]!, word: m[2]! });
  return tokens;
}

/** Unbreakable pieces, two spaces apart. */
function pieces(items: readonly string[]): { gap: string; word: string }[] {
  return items.map((word, i) => ({ gap: i === 0 ? "" : "  ", word }));
}

/**
 * A shell command line broken with backslash continuations so that each line
 * is at most `width` columns and the whole still pastes into a shell. Breaks
 * fall outside quotes and $(...), after column `from` (the text before it,
 * such as a prompt or a label, is never broken), preferring (in this order) a
 * break before a long option, at a `;` or `|`, before a short option, at any
 * space. Continuation lines are indented by `indent` spaces; a word longer
 * than a line is kept whole.
 */
export function wrapCommand(line: string, width: number, from: number, indent = 6): string {
  const out: string[] = [];
  let rest = line;
  let start = from;
  while (rest.length > width) {
    const spaces: number[] = [];
    let quote: string | null = null;
    let depth = 0;
    for (let i = 0; i <= width - 3 && i < rest.length; i++) {
      const c = rest[i];
      if (quote !== null) {
        if (c === quote) quote = null;
      } else if (c === '"' || c === "'") quote = c;
      else if (c === "(") depth++;
      else if (c === ")") depth--;
      else if (c === " " && depth === 0 && i >= start) spaces.push(i);
    }
    const preferred = [
      (i: number) => rest.startsWith(" --", i),
      (i: number) => rest[i - 1] === ";" || rest[i + 1] === "|",
      (i: number) => rest[i + 1] === "-" && rest[i + 2] !== " ",
      () => true,
    ];
    let at: number | undefined;
    for (const ok of preferred) {
      at = spaces.filter(ok).at(-1);
      if (at !== undefined) break;
    }
    if (at === undefined) break;
    out.push(`${rest.slice(0, at)} \\`);
    rest = `${" ".repeat(indent)}${rest.slice(at + 1)}`;
    start = indent + 1;
  }
  out.push(rest);
  return out.join("\n");
}
