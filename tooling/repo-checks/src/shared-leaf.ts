/**
 * The shared-leaf rule: what `@scanlab/core` holds is defined there and only
 * there. A second copy of an error base, a seeded generator, the block size
 * or a size/duration parser is how the copies multiplied before core existed
 * (each package "depending on nothing of ours"), so the check looks for the
 * shapes those copies had:
 *
 * - an error class extending Error, TypeError or RangeError (package errors
 *   extend `ScanlabError`);
 * - a seeded generator: mulberry32's increment, xorshift32's shift triple
 *   (13, 17, 5), sfc32's rotation by 21, splitmix's golden-ratio increment or
 *   xor, or a function named after one of them;
 * - the block size: a name about block or page bytes/size (or BLCKSZ) bound
 *   to 8192 (or 8 * 1024);
 * - a size/duration parser: a regular expression that reads a number next to
 *   a unit (a letter class, kB, kmgt, ms...), or a unit table keyed kib/kb.
 *
 * Only code counts: a match on a comment line is skipped.
 *
 * Heuristics, not a parser: the patterns are those of every copy removed when
 * core was introduced, and the unit tests show each one caught and the shapes
 * that must pass (hashes, checksums, byte counts that are not block sizes).
 */

/** One source file: a path relative to the repository root and its text. */
export interface SourceFile {
  readonly path: string;
  readonly text: string;
}

/** What kind of copy was found. */
export type LeafCopyKind = "error-class" | "prng" | "block-size" | "size-parser";

/** One copy of something `@scanlab/core` owns, found outside core. */
export interface LeafCopy {
  readonly path: string;
  /** 1-based line of the match. */
  readonly line: number;
  readonly kind: LeafCopyKind;
  /** The matched text. */
  readonly match: string;
}

const RULES: readonly { kind: LeafCopyKind; pattern: RegExp }[] = [
  { kind: "error-class", pattern: /\bclass\s+\w+\s+extends\s+(?:Error|TypeError|RangeError)\b/g },
  { kind: "prng", pattern: /0x6d2b79f5/gi },
  { kind: "prng", pattern: /[+^]\s*0x9e3779b9/gi },
  { kind: "prng", pattern: /<<\s*13\b[^;]*;\s*\w+\s*\^=\s*\w+\s*>>>\s*17\b/g },
  { kind: "prng", pattern: /\(\s*\w+\s*<<\s*21\s*\)\s*\|\s*\(\s*\w+\s*>>>\s*11\s*\)/g },
  {
    kind: "prng",
    pattern: /\bfunction\s+(?:mulberry32|splitmix\w*|sfc32|xorshift\w*|xoshiro\w*|seededRandom)\b/gi,
  },
  {
    kind: "block-size",
    pattern:
      /\b\w*(?:blcksz|(?:block|page)_?(?:bytes|size))\w*\s*(?::\s*number\s*)?=\s*(?:8192|8\s*\*\s*1024)(?![\d.])/gi,
  },
  {
    kind: "size-parser",
    pattern:
      /\/\^[^/\n]*(?:\\d|\[0-9\])[^/\n]*(?:\[a-zA-Z|\[kmgt|\[kKmMgG|kB\||kB\)|\(ms\||\bmin\||KiB)[^/\n]*\/[a-z]*/g,
  },
  { kind: "size-parser", pattern: /\b(?:kib|mib|gib|kb|mb|gb)\s*:\s*1024\b/gi },
];

/** Every copy of a core-owned definition in `files`. */
export function findLeafCopies(files: readonly SourceFile[]): LeafCopy[] {
  const copies: LeafCopy[] = [];
  for (const file of files) {
    for (const { kind, pattern } of RULES) {
      for (const m of file.text.matchAll(pattern)) {
        const lineStart = file.text.lastIndexOf("\n", m.index) + 1;
        // Comments may name what they are about ("BLCKSZ = 8192"); only code counts.
        if (/^\s*(?:\*|\/\/|\/\*)/.test(file.text.slice(lineStart, m.index))) continue;
        const line = file.text.slice(0, m.index).split("\n").length;
        copies.push({ path: file.path, line, kind, match: m[0] });
      }
    }
  }
  return copies.sort((a, b) => (a.path === b.path ? a.line - b.line : a.path < b.path ? -1 : 1));
}
